package fs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/tool/fs"
	"github.com/godwit/godwit/internal/tool/workspace"
	"github.com/godwit/godwit/tool"
)

func grepTree(t *testing.T) (tool.Tool, string) {
	ws, root := newWS(t, map[string]string{
		".git/info/exclude":   "secret.txt\n",
		".git/config":         "needle in git",
		".gitignore":          "*.log\n!keep.log\nout/\n",
		"a.go":                "package a\n// needle one\nfunc A() {}\n",
		"b.txt":               "no\nNEEDLE upper\n",
		"app.log":             "needle in log\n",
		"keep.log":            "needle kept\n",
		"secret.txt":          "needle excluded\n",
		"out/x.go":            "needle in out\n",
		"sub/.gitignore":      "*.tmp\n/local.go\n",
		"sub/c.go":            "x\nneedle sub\n",
		"sub/d.tmp":           "needle tmp\n",
		"sub/local.go":        "needle anchored\n",
		"sub/deeper/local.go": "needle not anchored\n",
		"sub/deeper/e.tmp":    "needle deep tmp\n",
		"vendor/v.go":         "needle vendor\n",
		"node_modules/m/i.js": "needle node\n",
		"bin.dat":             "needle\x00binary",
	})
	return fs.NewGrep(ws), root
}

func TestGrep(t *testing.T) {
	g, root := grepTree(t)
	tests := []struct {
		name string
		args map[string]any
		want string
		code string
		has  []string
	}{
		{name: "ignore rules", args: map[string]any{"pattern": "needle"}, want: `a.go
2:// needle one
keep.log
1:needle kept
sub/c.go
2:needle sub
sub/deeper/local.go
1:needle not anchored
`},
		{name: "no_ignore", args: map[string]any{"pattern": "needle", "no_ignore": true},
			has: []string{"app.log\n", "secret.txt\n", "out/x.go\n", "sub/d.tmp\n", "sub/local.go\n", "sub/deeper/e.tmp\n", "vendor/v.go\n", "node_modules/m/i.js\n"}},
		{name: "ignore_case", args: map[string]any{"pattern": "needle upper", "ignore_case": true}, want: "b.txt\n2:NEEDLE upper\n"},
		{name: "regexp", args: map[string]any{"pattern": `^func \w+\(`}, want: "a.go\n3:func A() {}\n"},
		{name: "glob name", args: map[string]any{"pattern": "needle", "glob": "*.go"}, want: "a.go\n2:// needle one\nsub/c.go\n2:needle sub\nsub/deeper/local.go\n1:needle not anchored\n"},
		{name: "glob path", args: map[string]any{"pattern": "needle", "glob": "sub/**/*.go"}, want: "sub/c.go\n2:needle sub\nsub/deeper/local.go\n1:needle not anchored\n"},
		{name: "glob braces", args: map[string]any{"pattern": "needle", "glob": "*.{log,txt}"}, want: "keep.log\n1:needle kept\n"},
		{name: "sub path keeps parent rules", args: map[string]any{"pattern": "needle", "path": "sub"}, want: "sub/c.go\n2:needle sub\nsub/deeper/local.go\n1:needle not anchored\n"},
		{name: "file path", args: map[string]any{"pattern": "needle", "path": "app.log"}, want: "app.log\n1:needle in log\n"},
		{name: "binary file path", args: map[string]any{"pattern": "needle", "path": "bin.dat"}, want: "bin.dat is a binary file; not searched"},
		{name: "no matches", args: map[string]any{"pattern": "zzz"}, want: "no matches (7 files searched, 1 binary skipped)\n"},
		{name: "bad regexp", args: map[string]any{"pattern": "func("}, code: tool.CodeBadArgs, has: []string{"missing closing )", "RE2"}},
		{name: "bad glob", args: map[string]any{"pattern": "x", "glob": "[a"}, code: tool.CodeBadArgs},
		{name: "no pattern", args: map[string]any{}, code: tool.CodeBadArgs},
		{name: "bad context", args: map[string]any{"pattern": "x", "context": -1}, code: tool.CodeBadArgs},
		{name: "missing path", args: map[string]any{"pattern": "x", "path": "nope"}, code: tool.CodeNotFound},
		{name: "outside", args: map[string]any{"pattern": "x", "path": "../"}, code: tool.CodeOutsideWorkspace},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, te := call(t, g, tt.args)
			got := res.Content
			if tt.code != "" {
				if te == nil || te.Code != tt.code {
					t.Fatalf("got %q, %v; want %s", res.Content, te, tt.code)
				}
				got = te.Error()
			} else if te != nil {
				t.Fatal(te)
			}
			if tt.want != "" && got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
			for _, h := range tt.has {
				if !strings.Contains(got, h) {
					t.Errorf("output lacks %q:\n%s", h, got)
				}
			}
			if strings.Contains(got, "needle in git") {
				t.Error(".git was searched")
			}
		})
	}
	_ = root
}

func TestGrepContext(t *testing.T) {
	ws, _ := newWS(t, map[string]string{"f.txt": lines(20)})
	g := fs.NewGrep(ws)
	res := mustCall(t, g, map[string]any{"pattern": `^line (3|5|15)$`, "context": 1})
	want := "f.txt\n2-line 2\n3:line 3\n4-line 4\n5:line 5\n6-line 6\n--\n14-line 14\n15:line 15\n16-line 16\n"
	if res.Content != want {
		t.Errorf("got:\n%s\nwant:\n%s", res.Content, want)
	}
	res = mustCall(t, g, map[string]any{"pattern": `^line (1|20)$`, "context": 2})
	want = "f.txt\n1:line 1\n2-line 2\n3-line 3\n--\n18-line 18\n19-line 19\n20:line 20\n"
	if res.Content != want {
		t.Errorf("edges: got:\n%s\nwant:\n%s", res.Content, want)
	}
}

func TestGrepMaxResults(t *testing.T) {
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("f%02d.txt", i)] = "hit\nmiss\nhit\n"
	}
	ws, _ := newWS(t, files)
	g := fs.NewGrep(ws)
	// Deterministic: always the first 5 matches in path order.
	for range 5 {
		res := mustCall(t, g, map[string]any{"pattern": "hit", "max_results": 5})
		want := "f00.txt\n1:hit\n3:hit\nf01.txt\n1:hit\n3:hit\nf02.txt\n1:hit\n" +
			"[limit of 5 matching lines reached; narrow the pattern, path or glob, or raise max_results]\n"
		if res.Content != want {
			t.Fatalf("got:\n%s\nwant:\n%s", res.Content, want)
		}
	}
	res := mustCall(t, g, map[string]any{"pattern": "hit"})
	if n := strings.Count(res.Content, ":hit"); n != 60 || strings.Contains(res.Content, "limit") {
		t.Errorf("%d matches, want all 60 without a note:\n%s", n, res.Content)
	}
	if _, te := call(t, g, map[string]any{"pattern": "hit", "max_results": 100000}); te == nil || te.Code != tool.CodeBadArgs {
		t.Errorf("huge max_results: %v, want BAD_ARGS", te)
	}
}

func TestGrepLongLineAndSymlink(t *testing.T) {
	ws, root := newWS(t, map[string]string{"min.js": strings.Repeat("a", 1000) + "needle" + strings.Repeat("b", 1000) + "\n"})
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "s.txt"), []byte("needle outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	res := mustCall(t, fs.NewGrep(ws), map[string]any{"pattern": "needle"})
	if !strings.Contains(res.Content, "…[+1706 bytes]") || len(res.Content) > 400 {
		t.Errorf("long line not cut: %d bytes", len(res.Content))
	}
	if strings.Contains(res.Content, "outside") {
		t.Error("followed a symlink out of the workspace")
	}
}

// A repository above the workspace (a home folder kept in git, ignoring
// "*") must not hide the project's files.
func TestGrepIgnoresNothingAboveWorkspace(t *testing.T) {
	home := t.TempDir()
	writeFiles(t, home, map[string]string{".git/HEAD": "x", ".gitignore": "*\n", "proj/a.go": "needle\n", "proj/.gitignore": "gen/\n", "proj/gen/g.go": "needle\n"})
	ws, err := workspace.New(filepath.Join(home, "proj"))
	if err != nil {
		t.Fatal(err)
	}
	res := mustCall(t, fs.NewGrep(ws), map[string]any{"pattern": "needle"})
	if res.Content != "a.go\n1:needle\n" {
		t.Errorf("got %q", res.Content)
	}
	res = mustCall(t, fs.NewList(ws), map[string]any{})
	if res.Content != ".gitignore\na.go\n[1 gitignored entry not shown]\n" {
		t.Errorf("file_list: %q", res.Content)
	}
}

func TestGrepPassesOverSecretsInAFolder(t *testing.T) {
	root := t.TempDir()
	for name, body := range map[string]string{
		".env":              "API_KEY=sk-live-123 token here\n",
		"config/prod.pem":   "-----BEGIN PRIVATE KEY----- token\n",
		"main.go":           "package main // token\n",
		".env.example":      "API_KEY=token placeholder\n",
		"deploy/id_rsa":     "token\n",
		"deploy/id_rsa.pub": "ssh-rsa token\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	res, err := fs.NewGrep(ws).Run(context.Background(), json.RawMessage(`{"pattern":"token","path":"."}`))
	if err != nil {
		t.Fatal(err)
	}
	out := res.Content
	if strings.Contains(out, "sk-live") || strings.Contains(out, "PRIVATE KEY") {
		t.Errorf("a secret's content reached the result:\n%s", out)
	}
	for _, want := range []string{"main.go", ".env.example", "id_rsa.pub", "[not searched, they may hold secrets: .env, config/prod.pem, deploy/id_rsa;"} {
		if !strings.Contains(out, want) {
			t.Errorf("result lacks %q:\n%s", want, out)
		}
	}
}

// TestGrepNoLiteral: patterns with no literal to look for first go
// through the DFA; what they match is what the regexp matches on each
// line: CRLF endings are not part of a line, a last line without a
// newline counts, ^ and $ are the line's edges, binary files are
// skipped.
func TestGrepNoLiteral(t *testing.T) {
	ws, _ := newWS(t, map[string]string{
		"crlf.txt":  "alpha\r\nbeta  \r\n\r\ngamma\r\n",
		"nonl.txt":  "one\ntwo words",
		"bin.dat":   "alpha\x00\nbeta  \n",
		"long.txt":  strings.Repeat("x", 5000) + "Q7\n",
		"uni.txt":   "naïve café\n日本語 text\n",
		"empty.txt": "",
	})
	g := fs.NewGrep(ws)
	for _, tt := range []struct {
		pattern string
		ic      bool
		want    string
	}{
		{`\s+$`, false, "crlf.txt\n2:beta  \n"},
		{`^[a-z]+$`, false, "crlf.txt\n1:alpha\n4:gamma\nnonl.txt\n1:one\n"},
		{`^$`, false, "crlf.txt\n3:\n"},
		{`\b[a-z]+\b$`, false, "crlf.txt\n1:alpha\n4:gamma\nnonl.txt\n1:one\n2:two words\nuni.txt\n2:日本語 text\n"},
		{`[A-Z][0-9]$`, false, "long.txt\n1:" + strings.Repeat("x", 300) + "…[+4702 bytes]\n"},
		{`[^\x00-\x7f]+`, false, "uni.txt\n1:naïve café\n2:日本語 text\n"},
		{`\p{Han}{3}\s`, false, "uni.txt\n2:日本語 text\n"},
		{`^[A-Z]+$`, true, "crlf.txt\n1:alpha\n4:gamma\nnonl.txt\n1:one\n"},
		{`[^\s\S]`, false, "no matches (5 files searched, 1 binary skipped)\n"},
	} {
		res := mustCall(t, g, map[string]any{"pattern": tt.pattern, "ignore_case": tt.ic})
		if res.Content != tt.want {
			t.Errorf("%q (ignore case %v): got\n%s\nwant\n%s", tt.pattern, tt.ic, res.Content, tt.want)
		}
	}
	// An empty match matches every line, and an empty file has none.
	res := mustCall(t, g, map[string]any{"pattern": `x*`, "path": "nonl.txt"})
	if res.Content != "nonl.txt\n1:one\n2:two words\n" {
		t.Errorf("x*: got\n%s", res.Content)
	}
}

// TestWalksPassOverRuledPaths: a path the user's rules deny or ask about
// (Options.Hidden, the policy's path rules) is left out of a folder
// walk by grep and file_list, which say what they left out; a
// symlink to it is not followed either.
func TestWalksPassOverRuledPaths(t *testing.T) {
	ws, root := newWS(t, map[string]string{"secrets/db.txt": "DENYMARK token\n", "deep/secrets/x.txt": "DENYMARK\n",
		"main.go": "package main // token\n", "notes.txt": "token\n"})
	if err := os.Symlink("secrets", filepath.Join(root, "s")); err != nil {
		t.Fatal(err)
	}
	var asked []string
	hidden := func(toolName, abs string) bool {
		asked = append(asked, toolName)
		rel, _ := filepath.Rel(root, abs)
		return rel == "secrets" || strings.HasSuffix(rel, string(filepath.Separator)+"secrets")
	}
	opts := fs.Options{Hidden: hidden}
	res, terr := call(t, byName(t, ws, opts, "grep"), map[string]any{"pattern": "DENYMARK|token", "path": "."})
	if terr != nil {
		t.Fatal(terr)
	}
	if strings.Contains(res.Content, "DENYMARK") {
		t.Errorf("grep searched a ruled folder:\n%s", res.Content)
	}
	for _, want := range []string{"main.go", "notes.txt", "[not searched, the user's rules deny or ask about them: deep/secrets, secrets]"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("grep result lacks %q:\n%s", want, res.Content)
		}
	}
	res, terr = call(t, byName(t, ws, opts, "file_list"), map[string]any{"path": ".", "depth": 3})
	if terr != nil {
		t.Fatal(terr)
	}
	if strings.Contains(res.Content, "db.txt") || strings.Contains(res.Content, "secrets/") {
		t.Errorf("file_list showed a ruled folder:\n%s", res.Content)
	}
	if !strings.Contains(res.Content, "[2 entries not shown: the user's rules deny or ask about them]") {
		t.Errorf("file_list does not say what it left out:\n%s", res.Content)
	}
	if !slices.Contains(asked, "grep") || !slices.Contains(asked, "file_list") {
		t.Errorf("Hidden was asked for %q, want both tools by name", asked)
	}
	// Without Hidden, nothing is left out.
	res, _ = call(t, byName(t, ws, fs.Options{}, "grep"), map[string]any{"pattern": "DENYMARK", "path": "."})
	if !strings.Contains(res.Content, "secrets/db.txt") {
		t.Errorf("without rules, grep left secrets/db.txt out:\n%s", res.Content)
	}
}

// TestWalksSkipAtomicWriteTemps: grep and file_list that run while a
// file tool writes (the runner's path locks do not cover walks) neither
// list nor search the write's temporary file.
func TestWalksSkipAtomicWriteTemps(t *testing.T) {
	ws, root := newWS(t, map[string]string{"a.go": "needle old\n"})
	grep, list := byName(t, ws, fs.Options{}, "grep"), byName(t, ws, fs.Options{}, "file_list")
	err := ws.Replace(filepath.Join(root, "a.go"), 0o644, func(w io.Writer) error {
		if _, err := io.WriteString(w, "needle new\n"); err != nil {
			return err
		}
		ents, _ := os.ReadDir(root)
		if len(ents) != 2 {
			t.Fatalf("no temporary file beside a.go: %v", ents)
		}
		if got := mustCall(t, grep, map[string]any{"pattern": "needle"}).Content; got != "a.go\n1:needle old\n" {
			t.Errorf("grep during a write:\n%s", got)
		}
		if got := mustCall(t, list, map[string]any{}).Content; got != "a.go\n" {
			t.Errorf("file_list during a write:\n%s", got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
