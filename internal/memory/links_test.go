package memory

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	wsroot "github.com/godwit/godwit/internal/tool/workspace"
)

// TestRepositoryLinksLeftOut: a repository's rules, memory file and
// skills that are links out of it, or to a secrets file, are left out
// and the problems say why; a link that stays inside still loads; the
// user's own files are read as they are.
func TestRepositoryLinksLeftOut(t *testing.T) {
	base := t.TempDir()
	ws, home, out := filepath.Join(base, "ws"), filepath.Join(base, "home"), filepath.Join(base, "out")
	for _, d := range []string{filepath.Join(ws, ".git"), filepath.Join(ws, ".godwit"), filepath.Join(ws, "sub"), home, filepath.Join(out, "skills", "leak")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, p string) {
		t.Helper()
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(out, "netrc"), "OUTMARK")
	write(filepath.Join(out, "skills", "leak", "SKILL.md"), "---\nname: leak\ndescription: OUTMARK\n---\n")
	write(filepath.Join(ws, ".env"), "ENVMARK")
	write(filepath.Join(ws, "sub", "AGENTS.md"), "sub rules")
	link(filepath.Join(out, "netrc"), filepath.Join(ws, "AGENTS.md"))
	link("../.env", filepath.Join(ws, ".godwit", "memory.md"))
	link("AGENTS.md", filepath.Join(ws, "sub", "CLAUDE.md"))
	if err := os.MkdirAll(filepath.Join(ws, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	link(filepath.Join(out, "skills"), filepath.Join(ws, ".claude", "skills"))
	write(filepath.Join(home, "AGENTS.md"), "user rules")

	rules, err := Rules(filepath.Join(ws, "sub"), home)
	if !errors.Is(err, wsroot.ErrOutside) || !strings.Contains(err.Error(), "left out") {
		t.Errorf("rules: problems %v", err)
	}
	if strings.Contains(rules.Text, "OUTMARK") || !strings.Contains(rules.Text, "sub rules") || !strings.Contains(rules.Text, "user rules") {
		t.Errorf("rules text: %q", rules.Text)
	}
	mem, err := MemoryFiles(ws, "")
	if !errors.Is(err, wsroot.ErrSecret) || len(mem) != 0 {
		t.Errorf("memory: %v, %v", mem, err)
	}
	skills, err := Skills(SkillPlaces{Workspace: ws})
	if !errors.Is(err, wsroot.ErrOutside) || len(skills) != 0 {
		t.Errorf("skills: %v, %v", skills, err)
	}
}
