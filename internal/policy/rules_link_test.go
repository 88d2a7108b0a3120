package policy_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/policy"
	"github.com/godwit/godwit/internal/tool/workspace"
)

// TestLoadRulesRefusesALinkOut: the workspace's rules file comes with
// the repository; one that is a link out of the workspace (to a key, to
// godwit's own environment) is not read, and the error names the link,
// not the content. A link inside still works.
func TestLoadRulesRefusesALinkOut(t *testing.T) {
	base := t.TempDir()
	key := filepath.Join(base, "id_ed25519")
	if err := os.WriteFile(key, []byte("KEYMARK"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{key, "/proc/self/environ", "../../id_ed25519"} {
		ws := filepath.Join(base, "ws")
		os.RemoveAll(ws)
		if err := os.MkdirAll(filepath.Join(ws, ".godwit"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(ws, ".godwit", policy.RulesFile)); err != nil {
			t.Fatal(err)
		}
		_, err := policy.LoadRules("", filepath.Join(ws, ".godwit", policy.RulesFile))
		if !errors.Is(err, workspace.ErrOutside) || strings.Contains(err.Error(), "KEYMARK") {
			t.Errorf("a rules file linked to %s: %v", target, err)
		}
	}
	ws := filepath.Join(base, "ws2")
	if err := os.MkdirAll(filepath.Join(ws, ".godwit"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "rules.yaml"), []byte("deny:\n  - tool: grep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../rules.yaml", filepath.Join(ws, ".godwit", policy.RulesFile)); err != nil {
		t.Fatal(err)
	}
	r, err := policy.LoadRules("", filepath.Join(ws, ".godwit", policy.RulesFile))
	if err != nil || len(r.Deny) != 1 {
		t.Errorf("a rules file linked inside: %+v, %v", r, err)
	}
}
