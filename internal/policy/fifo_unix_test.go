//go:build unix

package policy

import (
	"path/filepath"
	"syscall"
	"testing"
)

// TestScriptFIFO: a script that an earlier command made a FIFO (mkfifo
// run.sh; sh run.sh) is judged as one that cannot be read, at once: the
// policy's open of it waited for a writer, and godwit with it.
func TestScriptFIFO(t *testing.T) {
	e := newEnv(t)
	if err := syscall.Mkfifo(filepath.Join(e.root, "run.sh"), 0o644); err != nil {
		t.Fatal(err)
	}
	runVerdicts(t, e, "deny:\n  - command: \"rm *\"\n", []verdictCase{{"sh run.sh", "DQQ"}, {"./run.sh", "DQQ"}, {"sh missing.sh", "DQQ"}})
}
