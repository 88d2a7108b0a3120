package prompt

import (
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/goldentest"
)

// TestSystemGolden pins the system prompt: a change to model-facing text
// must show up in review as a change to testdata/system.golden
// (go test ./internal/prompt -run TestSystemGolden -update).
func TestSystemGolden(t *testing.T) {
	got := System(Env{OS: "linux", Shell: "bash", Workspace: "/home/user/project"})
	goldentest.Check(t, "system.golden", []byte(got))
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
