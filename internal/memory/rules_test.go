package memory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree writes files (path -> content, "/" separated) under a new temp dir
// and returns it. A path ending in "/" makes a folder.
func tree(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func labels(fs []File) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Label)
	}
	return out
}

func TestRulesDiscovery(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string
		ws    string // workspace, relative to the temp root
		home  bool   // use root/home as GODWIT_HOME
		want  []string
		// inText must appear in this order; notText must not appear.
		inText  []string
		notText []string
	}{
		{
			name: "root down to workspace, deeper last",
			files: map[string]string{
				"repo/.git/":              "",
				"repo/AGENTS.md":          "root rule",
				"repo/svc/AGENTS.md":      "svc rule",
				"repo/svc/api/x.go":       "package x",
				"repo/other/AGENTS.md":    "not on the path",
				"AGENTS.md":               "above the repository",
				"repo/svc/api/keep.txt":   "",
				"repo/svc/api/AGENTS.txt": "wrong name",
			},
			ws:      "repo/svc/api",
			want:    []string{"AGENTS.md", "svc/AGENTS.md"},
			inText:  []string{"[from AGENTS.md]\nroot rule", "[from svc/AGENTS.md]\nsvc rule"},
			notText: []string{"not on the path", "above the repository", "wrong name"},
		},
		{
			name: "user-level file first",
			files: map[string]string{
				"home/AGENTS.md": "user rule",
				"repo/.git/":     "",
				"repo/AGENTS.md": "project rule",
			},
			ws: "repo", home: true,
			want:   []string{"$GODWIT_HOME/AGENTS.md", "AGENTS.md"},
			inText: []string{"user rule", "project rule"},
		},
		{
			name: "CLAUDE.md only where AGENTS.md is absent",
			files: map[string]string{
				"repo/.git/":         "",
				"repo/AGENTS.md":     "agents root",
				"repo/CLAUDE.md":     "claude root",
				"repo/sub/CLAUDE.md": "claude sub",
			},
			ws:      "repo/sub",
			want:    []string{"AGENTS.md", "sub/CLAUDE.md"},
			inText:  []string{"agents root", "claude sub"},
			notText: []string{"claude root"},
		},
		{
			name: "override wins, empty files skipped",
			files: map[string]string{
				"repo/.git/":              "",
				"repo/AGENTS.override.md": "override",
				"repo/AGENTS.md":          "plain",
				"repo/sub/AGENTS.md":      "  \n\n",
				"repo/sub/CLAUDE.md":      "fallback after empty",
				"home/AGENTS.override.md": "",
				"home/AGENTS.md":          "user plain",
			},
			ws: "repo/sub", home: true,
			want:    []string{"$GODWIT_HOME/AGENTS.md", "AGENTS.override.md", "sub/CLAUDE.md"},
			inText:  []string{"user plain", "override", "fallback after empty"},
			notText: []string{"[from AGENTS.md]"},
		},
		{
			name: "no repository: the workspace alone",
			files: map[string]string{
				"AGENTS.md":    "parent",
				"ws/AGENTS.md": "here",
			},
			ws:      "ws",
			want:    []string{"AGENTS.md"},
			inText:  []string{"here"},
			notText: []string{"parent"},
		},
		{
			name: ".git as a file (worktree) marks the root",
			files: map[string]string{
				"AGENTS.md":        "outside",
				"wt/.git":          "gitdir: /elsewhere",
				"wt/AGENTS.md":     "worktree root",
				"wt/a/b/AGENTS.md": "deep",
			},
			ws:      "wt/a/b",
			want:    []string{"AGENTS.md", "a/b/AGENTS.md"},
			inText:  []string{"worktree root", "deep"},
			notText: []string{"outside"},
		},
		{
			name:  "a folder named AGENTS.md is not a file",
			files: map[string]string{"ws/AGENTS.md/": "", "ws/CLAUDE.md": "claude"},
			ws:    "ws",
			want:  []string{"CLAUDE.md"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := tree(t, tc.files)
			home := ""
			if tc.home {
				home = filepath.Join(root, "home")
			}
			got, err := Rules(filepath.Join(root, filepath.FromSlash(tc.ws)), home)
			if err != nil {
				t.Fatal(err)
			}
			if g := strings.Join(labels(got.Files), ","); g != strings.Join(tc.want, ",") {
				t.Errorf("files = %s, want %s", g, strings.Join(tc.want, ","))
			}
			at := 0
			for _, s := range tc.inText {
				i := strings.Index(got.Text[at:], s)
				if i < 0 {
					t.Fatalf("text lacks %q (in order) in:\n%s", s, got.Text)
				}
				at += i + len(s)
			}
			for _, s := range tc.notText {
				if strings.Contains(got.Text, s) {
					t.Errorf("text holds %q:\n%s", s, got.Text)
				}
			}
		})
	}
}

func TestRulesCap(t *testing.T) {
	t.Parallel()
	line := strings.Repeat("x", 99) + "\n" // 100 bytes
	root := tree(t, map[string]string{
		"home/AGENTS.md":     "user " + strings.Repeat(line, 100), // ~10 KB
		"repo/.git/":         "",
		"repo/AGENTS.md":     "root " + strings.Repeat(line, 150),   // ~15 KB
		"repo/a/AGENTS.md":   "mid " + strings.Repeat(line, 150),    // passes the cap
		"repo/a/b/AGENTS.md": "deepest " + strings.Repeat(line, 10), // left out
	})
	got, err := Rules(filepath.Join(root, "repo/a/b"), filepath.Join(root, "home"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Text) > MaxRulesBytes {
		t.Errorf("rules are %d bytes, over the %d cap", len(got.Text), MaxRulesBytes)
	}
	if len(got.Text) < MaxRulesBytes-200 {
		t.Errorf("rules are %d bytes: the cut left too much room", len(got.Text))
	}
	if !strings.Contains(got.Text, "[godwit: rules cut at 32 KiB: the rest of a/AGENTS.md and 1 more file(s) were not loaded") {
		t.Errorf("no cut note in the tail: %q", got.Text[len(got.Text)-200:])
	}
	if strings.Contains(got.Text, "deepest") {
		t.Error("the file after the cut was loaded")
	}
	if n := len(got.Files); n != 3 || !got.Files[2].Cut || got.Files[0].Cut || got.Files[2].Size <= len(got.Files[2].Text) {
		t.Errorf("files = %+v; want 3, the last one cut", labels(got.Files))
	}
	// The cut falls at a line end.
	body := got.Files[2].Text
	if !strings.HasSuffix(body, "x") || strings.HasSuffix(body, "\n") {
		t.Errorf("cut mid-line or on a newline: %q", body[len(body)-20:])
	}
}

func TestRulesUnreadable(t *testing.T) {
	t.Parallel()
	if os.Getuid() == 0 {
		t.Skip("root reads everything")
	}
	root := tree(t, map[string]string{"repo/.git/": "", "repo/AGENTS.md": "root", "repo/s/AGENTS.md": "secret"})
	if err := os.Chmod(filepath.Join(root, "repo/s/AGENTS.md"), 0); err != nil {
		t.Fatal(err)
	}
	got, err := Rules(filepath.Join(root, "repo/s"), "")
	if err == nil || !strings.Contains(err.Error(), "fix its permissions") {
		t.Errorf("err = %v, want one naming the file", err)
	}
	if got.Text != "[from AGENTS.md]\nroot" {
		t.Errorf("text = %q, want the readable file", got.Text)
	}
}
