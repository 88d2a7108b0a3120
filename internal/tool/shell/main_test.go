package shell

import (
	"os"
	"testing"
)

// TestMain lets the test binary act as a supervisor, so the tests run
// commands the way godwit does.
func TestMain(m *testing.M) {
	MaybeSupervise()
	os.Exit(m.Run())
}
