package memory

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMemoryFiles(t *testing.T) {
	t.Parallel()
	root := tree(t, map[string]string{
		"home/memory.md":       "I prefer tabs.",
		"ws/.godwit/memory.md": "This project uses make.",
	})
	ws, home := filepath.Join(root, "ws"), filepath.Join(root, "home")
	got, err := MemoryFiles(ws, home)
	if err != nil {
		t.Fatal(err)
	}
	if l := strings.Join(labels(got), ","); l != "$GODWIT_HOME/memory.md,.godwit/memory.md" {
		t.Errorf("files = %s; want the user's first", l)
	}
	if got[0].Scope != "user" || got[1].Scope != "project" || got[1].Text != "This project uses make." {
		t.Errorf("got %+v", got)
	}
	// No home: the project file alone.
	if got, _ := MemoryFiles(ws, ""); len(got) != 1 || got[0].Scope != "project" {
		t.Errorf("without home: %+v", got)
	}
}

func TestMemoryFileCut(t *testing.T) {
	t.Parallel()
	root := tree(t, map[string]string{"ws/.godwit/memory.md": strings.Repeat("remember this line\n", 2000)})
	got, err := MemoryFiles(filepath.Join(root, "ws"), "")
	if err != nil {
		t.Fatal(err)
	}
	f := got[0]
	if !f.Cut || len(f.Text) > MaxMemoryBytes || !strings.HasSuffix(f.Text, "[godwit: .godwit/memory.md cut at 16 KiB; keep it shorter]") {
		t.Errorf("cut = %v, %d bytes, tail %q", f.Cut, len(f.Text), f.Text[len(f.Text)-80:])
	}
}

func TestDiff(t *testing.T) {
	t.Parallel()
	a := File{Path: "/a", Label: "a", Hash: "1"}
	b := File{Path: "/b", Label: "b", Hash: "2"}
	b2 := File{Path: "/b", Label: "b", Hash: "3"}
	c := File{Path: "/c", Label: "c", Hash: "4"}
	tests := []struct {
		name      string
		prev, cur []File
		want      string
	}{
		{"same", []File{a, b}, []File{a, b}, ""},
		{"edited", []File{a, b}, []File{a, b2}, "b (edited)"},
		{"new and removed", []File{a, b}, []File{b, c}, "c (new), a (removed)"},
		{"from nothing", nil, []File{a}, "a (new)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := Notice(Diff(tc.prev, tc.cur))
			if tc.want == "" {
				if n != "" {
					t.Errorf("notice = %q, want none", n)
				}
				return
			}
			want := "[godwit: changed during the last segment: " + tc.want + "; the system prompt now holds the new text.]"
			if n != want {
				t.Errorf("notice = %q\nwant     %q", n, want)
			}
		})
	}
}

// A Source announces an edit made during a segment, once: the next Texts
// serves the new text and the change is no longer news.
func TestSourceChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := tree(t, map[string]string{
		"home/memory.md":       "user memory v1",
		"ws/.godwit/memory.md": "project memory v1",
		"ws/AGENTS.md":         "rule v1",
	})
	ws, home := filepath.Join(root, "ws"), filepath.Join(root, "home")
	src := NewSource(SourceOptions{Workspace: ws, Home: home})
	p := src.Texts(ctx)
	if got := parts(p); got != "rules,memory" {
		t.Fatalf("parts = %s", got)
	}
	if !strings.Contains(p[1].Body, "[from $GODWIT_HOME/memory.md]\nuser memory v1\n\n[from .godwit/memory.md]\nproject memory v1") {
		t.Errorf("memory block = %q", p[1].Body)
	}
	if n := src.Notes(); n != nil {
		t.Fatalf("notes before any edit: %v", n)
	}
	write(t, filepath.Join(ws, ".godwit/memory.md"), "project memory v2")
	if err := os.Remove(filepath.Join(home, "memory.md")); err != nil {
		t.Fatal(err)
	}
	n := src.Notes()
	if len(n) != 1 || !strings.Contains(n[0], ".godwit/memory.md (edited), $GODWIT_HOME/memory.md (removed)") {
		t.Fatalf("notes = %v", n)
	}
	// The change is news until the next Texts serves it.
	if again := src.Notes(); len(again) != 1 || again[0] != n[0] {
		t.Errorf("notes asked again = %v", again)
	}
	p = src.Texts(ctx)
	if body := p[1].Body; body != "[from .godwit/memory.md]\nproject memory v2" {
		t.Errorf("after reload: %q", body)
	}
	if n := src.Notes(); n != nil {
		t.Errorf("notes after reload: %v", n)
	}
	write(t, filepath.Join(ws, "AGENTS.md"), "rule v2")
	if n := src.Notes(); len(n) != 1 || !strings.Contains(n[0], "AGENTS.md (edited)") {
		t.Errorf("rules edit: notes = %v", n)
	}
}

func parts(ts []Text) string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Part)
	}
	return strings.Join(out, ",")
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestChunks(t *testing.T) {
	t.Parallel()
	text := "# Build\nuse make\n\nnot go build\n\n# Style\ntabs\n\n" + strings.Repeat("long ", 400)
	got := chunks(text)
	if len(got) != 3 || got[0] != "# Build\nuse make\n\nnot go build" || got[1] != "# Style\ntabs" {
		t.Errorf("chunks = %q", got)
	}
}
