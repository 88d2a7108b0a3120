package gitguard_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/gitguard"
)

// TestCreatedHooksPathOutside: in a workspace that is no repository, a
// command writes .git as "gitdir: g" and g/config with only a
// core.hooksPath naming a folder of the user's outside the workspace.
// The guard removes the setting; it failed to ("larger than the bytes
// kept", the cleaned file being empty), so from the next command on it
// guarded that folder as hooks and deleted the files the user saved
// there while commands ran.
func TestCreatedHooksPathOutside(t *testing.T) {
	base := t.TempDir()
	ws, home, docs := filepath.Join(base, "ws"), filepath.Join(base, "home"), filepath.Join(base, "docs")
	for _, d := range []string{ws, home, docs} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	g := gitguard.New(gitguard.Options{Workspace: ws, Home: home, Getenv: func(string) string { return "" }})
	g.Accept()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(ws, "g"), 0o755))
	must(os.WriteFile(filepath.Join(ws, ".git"), []byte("gitdir: g\n"), 0o644))
	must(os.WriteFile(filepath.Join(ws, "g", "config"), []byte("[core]\n\thooksPath = "+docs+"\n"), 0o644))
	for _, ch := range g.Check() {
		if !ch.Restored {
			t.Errorf("not restored: %+v", ch)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "g", "config")); strings.Contains(strings.ToLower(string(b)), "hookspath") {
		t.Errorf("g/config still sets core.hooksPath: %q", b)
	}
	// The next command; the user saves a file there meanwhile.
	g.Accept()
	must(os.WriteFile(filepath.Join(docs, "new.txt"), []byte("the user's\n"), 0o644))
	g.Check()
	if _, err := os.Stat(filepath.Join(docs, "new.txt")); err != nil {
		t.Errorf("the guard deleted the user's file outside the workspace: %v", err)
	}
}
