package acp_test

import (
	"os"
	"testing"

	"github.com/godwit/godwit/internal/sandbox"
)

// binDir holds the godwit binary the peer tests build (godwitBinary).
var binDir string

// TestMain lets the test binary act as the sandbox child: wiring's
// sandbox re-runs the executable to confine a command.
func TestMain(m *testing.M) {
	sandbox.MaybeRunChild()
	dir, err := os.MkdirTemp("", "godwit-acp-bin-")
	if err != nil {
		panic(err)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
