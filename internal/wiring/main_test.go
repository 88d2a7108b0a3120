package wiring

import (
	"os"
	"testing"

	"github.com/godwit/godwit/internal/sandbox"
	"github.com/godwit/godwit/internal/tool/shell"
)

// Shell commands run in a Landlock sandbox by re-executing the binary,
// here the test binary: it must act as the sandbox child when it is one.
func TestMain(m *testing.M) {
	shell.MaybeSupervise()
	sandbox.MaybeRunChild()
	os.Exit(m.Run())
}
