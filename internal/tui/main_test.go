package tui

import (
	"os"
	"testing"

	"github.com/godwit/godwit/internal/sandbox"
	"github.com/godwit/godwit/internal/tool/shell"
)

// TestMain lets the test binary be the command supervisor and the
// sandbox's re-exec child, as godwit is: the chat's !commands run a shell.
func TestMain(m *testing.M) {
	shell.MaybeSupervise()
	sandbox.MaybeRunChild()
	os.Exit(m.Run())
}
