package peertest_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/peertest"
)

// TestMissingSkipsOrFails runs a test that lacks its peer in a child
// process, once as a developer's machine would and once under CI.
func TestMissingSkipsOrFails(t *testing.T) {
	if os.Getenv("PEERTEST_CHILD") != "" {
		peertest.Missing(t, "the frobnicator is not installed (apt-get install frob)")
		return
	}
	for _, tc := range []struct {
		ci   string
		want string
	}{
		{"", "--- SKIP: TestMissingSkipsOrFails"},
		{"true", "--- FAIL: TestMissingSkipsOrFails"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMissingSkipsOrFails$", "-test.v")
		cmd.Env = append(os.Environ(), "PEERTEST_CHILD=1", "CI="+tc.ci)
		out, _ := cmd.CombinedOutput()
		if !strings.Contains(string(out), tc.want) || !strings.Contains(string(out), "apt-get install frob") {
			t.Errorf("CI=%q: want %q and the install step in:\n%s", tc.ci, tc.want, out)
		}
	}
}
