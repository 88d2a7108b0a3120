package eval

import (
	"os"
	"testing"

	"github.com/godwit/godwit/sandbox"
)

// TestMain lets the test binary play the sandbox child: the engine's
// shell re-runs the current executable to apply the sandbox, and in tests
// that is this binary.
func TestMain(m *testing.M) {
	sandbox.MaybeRunChild()
	os.Exit(m.Run())
}
