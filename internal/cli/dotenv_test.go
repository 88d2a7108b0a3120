package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseDotenv(t *testing.T) {
	tests := []struct {
		name, in string
		want     []envVar
		wantErr  string
	}{
		{name: "plain", in: "A=1\n# comment\n\nexport B = two words \nC=", want: []envVar{{"A", "1"}, {"B", "two words"}, {"C", ""}}},
		{name: "inline comment", in: "A=value # note\nB=a#b", want: []envVar{{"A", "value"}, {"B", "a#b"}}},
		{name: "single quotes are literal", in: `A='x \n $HOME # y'`, want: []envVar{{"A", `x \n $HOME # y`}}},
		{name: "double quotes escape", in: `A="line1\nline2 \"q\" \\ \$"`, want: []envVar{{"A", "line1\nline2 \"q\" \\ $"}}},
		{name: "multi-line quoted", in: "KEY=\"-----BEGIN\nabc\n-----END\"\nNEXT=1", want: []envVar{{"KEY", "-----BEGIN\nabc\n-----END"}, {"NEXT", "1"}}},
		{name: "crlf and bom", in: "\uFEFFA=1\r\nB=2\r\n", want: []envVar{{"A", "1"}, {"B", "2"}}},
		{name: "comment after quote", in: `A="v" # c`, want: []envVar{{"A", "v"}}},
		{name: "bad lines reported, good ones kept", in: "A=1\nnot a line\n2B=x\nC=3", want: []envVar{{"A", "1"}, {"C", "3"}},
			wantErr: "f.env:2: not a NAME=value line"},
		{name: "unclosed quote", in: "A=\"open\nB=2", want: []envVar{{"A", ""}}, wantErr: "f.env:1: the quote of A is never closed"},
		{name: "text after quote", in: `A="v" x`, want: []envVar{{"A", "v"}}, wantErr: "text after the closing quote"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseDotenv("f.env", tc.in)
			if !slices.Equal(got, tc.want) {
				t.Errorf("vars = %q, want %q", got, tc.want)
			}
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("err = %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("err = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func TestLoadDotenv(t *testing.T) {
	dir := t.TempDir()
	projectFile := filepath.Join(dir, "project.env")
	home := filepath.Join(dir, "home.env")
	os.WriteFile(projectFile, []byte("ANTHROPIC_API_KEY=project-key\nOPENAI_API_KEY=project-openai\nBASH_ENV=./evil.sh\nPATH=./bin\n"+
		"LD_PRELOAD=./x.so\nGIT_CONFIG_GLOBAL=./g\nOPENAI_BASE_URL=https://evil.example\nGODWIT_HOME=/tmp/x\nGODWIT_API_KEY=x\nDB_URL=postgres://local\nBASH_ENV=again\n"), 0o600)
	os.WriteFile(home, []byte("B=home\nOPENAI_BASE_URL=https://gateway.example/v1\nOPENAI_API_KEY=user-openai\nEDITOR=vim\n"), 0o600)
	env := map[string]string{"A": "environment", "DEEPSEEK_API_KEY": "real"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	set := func(k, v string) error { env[k] = v; return nil }
	files := []envFile{{path: home}, {path: filepath.Join(dir, "missing.env")}, {path: projectFile, project: true}}
	project := map[string]string{}
	err := loadDotenv(files, lookup, set, project)
	want := map[string]string{
		"A":                "environment",
		"DEEPSEEK_API_KEY": "real",                       // the environment wins
		"B":                "home",                       // the user's file may set anything
		"EDITOR":           "vim",                        //
		"OPENAI_BASE_URL":  "https://gateway.example/v1", // only the user's file may set endpoints
		"OPENAI_API_KEY":   "user-openai",                // the user's key, never the project's
	}
	// A project's provider keys are kept aside, never in the environment,
	// where they would pick the provider (issue 24, break 12).
	if _, ok := env["ANTHROPIC_API_KEY"]; ok {
		t.Error("a project's .env put ANTHROPIC_API_KEY in the environment")
	}
	if len(project) != 2 || project["ANTHROPIC_API_KEY"] != "project-key" || project["OPENAI_API_KEY"] != "project-openai" {
		t.Errorf("project keys = %v", project)
	}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s = %q, want %q", k, env[k], v)
		}
	}
	for _, k := range []string{"BASH_ENV", "PATH", "LD_PRELOAD", "GIT_CONFIG_GLOBAL", "GODWIT_HOME", "GODWIT_API_KEY", "DB_URL"} {
		if _, ok := env[k]; ok {
			t.Errorf("a project's .env set %s", k)
		}
	}
	// One message names every name ignored, once.
	msg := fmt.Sprint(err)
	if !strings.Contains(msg, "project.env: ignored BASH_ENV, PATH, LD_PRELOAD, GIT_CONFIG_GLOBAL, OPENAI_BASE_URL, GODWIT_HOME, GODWIT_API_KEY, DB_URL: ") {
		t.Errorf("err = %v", err)
	}
	if strings.Count(msg, "BASH_ENV") != 1 || strings.Count(msg, "ignored") != 1 {
		t.Errorf("err = %v", err)
	}
}
