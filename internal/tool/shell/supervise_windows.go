package shell

import (
	"errors"
	"os"
	"os/exec"
	"time"
)

// MaybeSupervise does nothing on Windows: commands run without a
// supervisor (see proc_windows.go for what holds their tree).
func MaybeSupervise() {}

func superviseCmd(*exec.Cmd, string, *os.File, time.Duration) (status, statusW *os.File, err error) {
	return nil, nil, errors.New("shell: no supervisor on windows")
}

func terminalCmd(*exec.Cmd, string, Identity, time.Duration) {}
