package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godwit/godwit/llm/llmtest"
)

// TestPolicyHoldsInTheBinary drives the real binary with a scripted
// model through attacks of issue 15 that the policy closes, one fresh
// workspace each, with no one to ask (no terminal): each must be refused
// with a reason the model reads, and nothing may change on disk.
func TestPolicyHoldsInTheBinary(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, mode, command string
		userRules, wsRules  string
		warning             string // on stderr
	}{
		{name: "abbreviated --output", mode: "--allow-write", command: "sort --outp=pwned a.txt"},
		{name: "a program through an abbreviated pager option", mode: "--allow-write", command: "git grep --open-files-in='touch pwned;' a"},
		{name: "--compress-program abbreviated", mode: "--allow-write", command: "sort --compress-prog=sh a.txt"},
		{name: "printf -v PATH", mode: "--allow-write", command: "printf -v PATH %s bin; ls"},
		{name: "find -exec past a deny rule", mode: "--yes", command: "find . -name a.txt -exec rm {} \\;", userRules: "deny:\n  - command: rm *\n"},
		{name: "a pipe into sh past a deny rule", mode: "--yes", command: "echo 'rm a.txt' | sh", userRules: "deny:\n  - command: rm *\n"},
		{name: "an alias past a deny rule", mode: "--yes", command: "shopt -s expand_aliases\nalias r=rm\nr a.txt", userRules: "deny:\n  - command: rm *\n"},
		{name: "a hook by cp under --yes", mode: "--yes", command: "mkdir -p .git/hooks && cp a.txt .git/hooks/pre-commit"},
		{name: "core.hooksPath under --yes", mode: "--yes", command: "git config core.hooksPath hooks"},
		{name: "a repository's allow rule", mode: "--allow-write", command: "rm a.txt", wsRules: "allow:\n  - command: rm *\n",
			warning: "allow (1 rule(s), first: command rm *) is ignored"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args, _ := json.Marshal(map[string]string{"command": tc.command})
			srv := llmtest.NewTestServer(t,
				llmtest.ChatReply(llmtest.ChatToolCall("c1", "shell_exec", string(args)), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(10, 1)),
				llmtest.ChatTextReply("done", 10, 1),
			)
			home, ws := setup(t, srv.URL())
			write := func(p, body string) {
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write(filepath.Join(ws, "a.txt"), "a\n")
			if tc.userRules != "" {
				write(filepath.Join(home, "rules.yaml"), tc.userRules)
			}
			if tc.wsRules != "" {
				write(filepath.Join(ws, ".godwit", "rules.yaml"), tc.wsRules)
			}
			r := godwit(t, home, ws, nil, "run", tc.mode, "--model", "local/m", "-p", "go")
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			t.Logf("stderr: %s\nbody: %.600s", r.stderr, srv.Requests()[1].Body)
			if body := string(srv.Requests()[1].Body); !strings.Contains(body, "DENIED") {
				t.Errorf("the model was not told the call was refused: %s", body)
			}
			for _, p := range []string{"pwned", ".git/hooks/pre-commit", ".git/config"} {
				if _, err := os.Stat(filepath.Join(ws, p)); err == nil {
					t.Errorf("%s was written", p)
				}
			}
			if _, err := os.Stat(filepath.Join(ws, "a.txt")); err != nil {
				t.Errorf("a.txt is gone: %v", err)
			}
			if tc.warning != "" && !strings.Contains(r.stderr, tc.warning) {
				t.Errorf("stderr lacks the warning %q:\n%s", tc.warning, r.stderr)
			}
		})
	}
}
