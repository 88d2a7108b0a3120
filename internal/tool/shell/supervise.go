package shell

import (
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
)

// A supervisor is godwit re-executed between godwit and a command
// (`godwit __godwit_supervise PATH ARGV...`) to hold the command's whole
// process tree: it starts the command in a group of its own (out of reach
// of `kill 0`); on Linux it is a child subreaper, so orphans re-parent to
// it; it ends the tree (SIGTERM, SIGKILL after the grace, until none is
// left) on SIGTERM, SIGINT or SIGHUP, or when its lifeline, a pipe only
// godwit writes, closes because godwit died; it reports the command's
// exit on a status pipe ("exit 3", "signal 11", "... left" when processes
// remain) and stays until the last descendant exits. In an editor's
// terminal, which may SIGKILL it, it runs a second supervisor under
// itself (superviseTerminal). It runs outside Landlock; in a sandbox's
// PID namespace it is the first process. Not PR_SET_PDEATHSIG: it follows
// the parent thread, and Go forks from any thread.

// supervisorArg marks godwit re-executed as a supervisor.
const supervisorArg = "__godwit_supervise"

// supervisorEnv carries the supervisor's settings (its grace).
const supervisorEnv = "GODWIT_SUPERVISE"

// The descriptors the supervisor gets after stdio.
const (
	lifelineFD = 3
	statusFD   = 4
)

// supervisorReady is set by MaybeSupervise: this executable can act as a
// supervisor. It is process-wide by nature (a fact about the binary), set
// once at the start of main; without it a re-executed test binary would
// run its tests again instead of supervising.
var supervisorReady atomic.Bool

// exitInfo is how the command itself (the shell) ended.
type exitInfo struct {
	code int            // exit status when sig is 0
	sig  syscall.Signal // the signal that ended it, or 0
}

func (e exitInfo) String() string {
	if e.sig != 0 {
		return "signal " + strconv.Itoa(int(e.sig))
	}
	return "exit " + strconv.Itoa(e.code)
}

// parseStatusLine reads "exit 3", "signal 9", "exit 0 left".
func parseStatusLine(line string) (e exitInfo, left, ok bool) {
	f := strings.Fields(line)
	if len(f) < 2 {
		return e, false, false
	}
	n, err := strconv.Atoi(f[1])
	if err != nil {
		return e, false, false
	}
	switch f[0] {
	case "exit":
		e.code = n
	case "signal":
		e.sig = syscall.Signal(n)
	default:
		return e, false, false
	}
	return e, len(f) > 2 && f[2] == "left", true
}
