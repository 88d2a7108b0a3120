//go:build !linux

package sandbox

import (
	"fmt"
	"os/exec"
	"runtime"
)

// Status reports that Landlock exists only on Linux.
func Status() (abi int, err error) {
	return 0, fmt.Errorf("%w on %s", ErrUnsupported, runtime.GOOS)
}

// Wrap logs one warning that commands run without a sandbox, and returns
// a function that only sets TMPDIR.
func Wrap(cfg Config) func(*exec.Cmd) error {
	logger(cfg.Logger).Warn("sandbox: not supported on " + runtime.GOOS + "; shell commands run without a sandbox, behind the approval gates only")
	return tempOnly(cfg.TempDir)
}

// MaybeRunChild does nothing where there is no sandbox.
func MaybeRunChild() {}
