package eval

import (
	"os"
	"testing"

	"github.com/godwit/godwit/internal/sandbox"
	gwshell "github.com/godwit/godwit/internal/tool/shell"
)

// TestMain lets the test binary play the sandbox child: the engine's
// shell re-runs the current executable to apply the sandbox, and in tests
// that is this binary.
func TestMain(m *testing.M) {
	gwshell.MaybeSupervise()
	sandbox.MaybeRunChild()
	os.Exit(m.Run())
}
