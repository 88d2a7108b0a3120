package shell

import (
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
)

// A supervisor is godwit's own binary, re-executed between godwit and a
// command (`godwit __godwit_supervise PATH ARGV...`), that holds the
// command's whole process tree so that nothing it starts outlives godwit:
//
//   - it starts the command in a process group of its own, out of reach
//     of the command's `kill 0`;
//   - on Linux it is a child subreaper, so every orphan (setsid, a double
//     fork) re-parents to it and its descendants are the whole tree;
//   - it reads a lifeline, a pipe whose write end only godwit holds: when
//     godwit dies in any way the kernel closes it and the tree is ended;
//   - SIGTERM, SIGINT or SIGHUP ends the tree: SIGTERM to every
//     descendant, SIGKILL after the grace, until none is left;
//   - it reports how the command exited on a status pipe ("exit 3",
//     "signal 11", " left" when its processes still run), and stays until
//     the last descendant has exited.
//
// In an editor's terminal the editor is the parent and may SIGKILL it, so
// that supervisor (terminalCmd) starts a second one under itself and holds
// its lifeline, and watches godwit's process itself (see
// superviseTerminal).
//
// PR_SET_PDEATHSIG fires when the parent *thread* exits, and a Go fork may
// come from any thread; a cgroup needs a delegation many systems lack. The
// sandbox wraps the command before the supervisor does, so the supervisor
// runs outside Landlock. In a sandbox's PID namespace the supervisor is its
// first process, and the kernel ends what is left when it exits.

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
