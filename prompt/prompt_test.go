package prompt

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/system.golden")

// TestSystemGolden pins the system prompt: a change to model-facing text
// must show up in review as a change to this file (go test ./prompt -update).
func TestSystemGolden(t *testing.T) {
	got := System(Env{OS: "linux", Shell: "bash", Workspace: "/home/user/project"})
	golden := filepath.Join("testdata", "system.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("the system prompt changed (%d bytes, golden %d); review it, then run go test ./prompt -update", len(got), len(want))
	}
}

// The prompt must be the same for the same environment: it heads the
// cached prefix, so nothing in it may vary between calls.
func TestSystemIsStable(t *testing.T) {
	env := Env{OS: "linux", Shell: "bash", Workspace: "/w"}
	first, second := System(env), System(env)
	if first != second {
		t.Error("System is not deterministic")
	}
	for _, banned := range []string{"{{", "%s", "%v"} {
		if strings.Contains(first, banned) {
			t.Errorf("the prompt holds an unfilled placeholder %q", banned)
		}
	}
}
