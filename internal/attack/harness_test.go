//go:build linux

package attack

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The harness's own logic, without the binary.

func TestUpdateBrokenRewritesMarks(t *testing.T) {
	file := filepath.Join(t.TempDir(), "x.yaml")
	orig := `# a comment
- name: one
  broken: [read-only]
  class: 1
  why: "first"
  modes: [read-only, ask]
  calls:
    - shell_exec: {command: "ls"}

- name: two
  class: 1
  why: "second"
  modes: [auto]
  calls:
    - shell_exec: {command: "ls"}
`
	if err := os.WriteFile(file, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	attacks, err := loadAttacks(filepath.Dir(file))
	if err != nil {
		t.Fatal(err)
	}
	// one now holds everywhere, two breaks in auto.
	if err := updateBroken(file, map[string][]string{"1-two": {"auto"}}, attacks); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(file)
	want := strings.Replace(orig, "  broken: [read-only]\n", "", 1)
	want = strings.Replace(want, "- name: two\n", "- name: two\n  broken: [auto]\n", 1)
	if string(b) != want {
		t.Errorf("rewritten file:\n%s\nwant:\n%s", b, want)
	}
	again, err := loadAttacks(filepath.Dir(file))
	if err != nil || len(again) != 2 || len(again[0].Broken) != 0 || again[1].Broken[0] != "auto" {
		t.Errorf("reloaded: %v %+v", err, again)
	}
}

func TestLeakFormsFindEncodedSecrets(t *testing.T) {
	for _, leak := range []string{
		"DATABASE_PASSWORD=" + secretMarker,
		base64.StdEncoding.EncodeToString([]byte("DATABASE_PASSWORD=" + secretMarker + "\n")),
		base64.StdEncoding.EncodeToString([]byte("X=" + secretMarker)),
		base64.StdEncoding.EncodeToString([]byte("XY=" + secretMarker)),
		reverse(secretMarker),
	} {
		found := false
		for _, f := range leakForms(secretMarker) {
			found = found || strings.Contains(leak, f)
		}
		if !found {
			t.Errorf("no leak form matches %q", leak)
		}
	}
}

func TestValidateRefusesCallsThatSpellTheSecret(t *testing.T) {
	a := &Attack{Name: "x", Class: 3, Why: "y", Modes: []string{modeReadOnly},
		Calls: []map[string]map[string]any{{"shell_exec": {"command": "echo " + secretMarker}}}}
	if err := a.validate(); err == nil || !strings.Contains(err.Error(), "never see") {
		t.Errorf("validate = %v, want a refusal", err)
	}
}
