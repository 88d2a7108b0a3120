package shell

import (
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
)

// A supervisor is godwit's own binary, re-executed between godwit and a
// command (`godwit __godwit_supervise PATH ARGV...`), that holds the
// command's whole process tree so that nothing the command starts
// outlives godwit:
//
//   - it starts the command in a process group of its own, so the
//     command's `kill 0` does not reach it;
//   - on Linux it is a child subreaper (PR_SET_CHILD_SUBREAPER): every
//     process the command orphans, by setsid or a double fork, is
//     re-parented to it rather than to init, so its descendants are the
//     whole tree, found by walking /proc;
//   - it reads a lifeline, the read end of a pipe whose write end only
//     godwit holds: when godwit dies in any way (SIGKILL, a crash) the
//     kernel closes it, and the supervisor ends the tree;
//   - SIGTERM, SIGINT or SIGHUP to it (godwit's stop, timeout, Close)
//     ends the tree: SIGTERM to every descendant, then SIGKILL after the
//     grace, until none is left;
//   - it reports how the command itself exited on a status pipe ("exit
//     3", "signal 11", with " left" when processes it started still
//     run), and stays until the last descendant has exited.
//
// A command run in an editor's terminal (Options.Terminal) has the
// editor, not godwit, as its parent, so it gets no lifeline from godwit,
// and the editor may end its terminal with SIGKILL. There the editor
// starts a supervisor (terminalCmd) that starts a second one under
// itself and holds that one's lifeline; the first watches godwit's own
// process (a pidfd on Linux 5.3+, its start time checked; a poll
// elsewhere), and the second ends the tree when godwit exits, when the
// first supervisor ends in any way (the terminal killed or released),
// or once the command has exited (what it left running goes, as with a
// command run here).
//
// PR_SET_PDEATHSIG is not used: it fires when the parent *thread* exits,
// and a Go program's fork may come from any of its threads; the lifeline
// closes only when the whole process is gone. A cgroup would also hold
// the tree, but is writable only where systemd delegates one to the user,
// which containers, CI and many desktops do not; the subreaper needs no
// privilege.
//
// The sandbox (Options.Wrap) wraps the command before the supervisor
// does, so the supervisor runs outside Landlock and the command inside
// it: with Landlock ABI 6 (Linux 6.12) or later the command can neither
// signal nor ptrace its supervisor.
//
// Where the sandbox gives commands namespaces of their own (Linux: it
// sets clone flags on the command), the supervisor is the process
// created in them: the first process of the new PID namespace, so every
// orphan re-parents to it anyway, and when it exits the kernel kills
// whatever is left in the namespace. Its tree walk reads the /proc of
// that namespace, which the sandbox child mounts.

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
