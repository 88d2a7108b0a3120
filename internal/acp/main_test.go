package acp_test

import (
	"os"
	"testing"

	"github.com/godwit/godwit/internal/sandbox"
)

// TestMain lets the test binary act as the sandbox child: wiring's
// sandbox re-runs the executable to confine a command.
func TestMain(m *testing.M) {
	sandbox.MaybeRunChild()
	os.Exit(m.Run())
}
