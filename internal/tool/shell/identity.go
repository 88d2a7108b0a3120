package shell

import (
	"os"
	"time"
)

// Identity names one process over time: its pid, which the system may
// later give to another process, with the process's start stamp and the
// boot it ran in. godwit records the identity of every command it starts
// so that a later godwit can tell whether a recorded command still runs
// before it ends it, and never signals a stranger that got the same pid.
type Identity struct {
	PID int
	// Start is when the process started: clock ticks after boot on Linux
	// (/proc/PID/stat), microseconds since the epoch on macOS; 0 when the
	// platform cannot say.
	Start uint64
	// Boot names the boot the process ran in (Linux's boot id): start
	// stamps compare within one boot only.
	Boot string
}

// Self is this process's identity.
func Self() Identity {
	id, _ := Lookup(os.Getpid())
	return id
}

// Verified reports whether the identity can tell the process from a
// later one with the same pid.
func (id Identity) Verified() bool { return id.Start != 0 }

// Alive reports whether the process is still running: the same pid,
// started at the same moment in the same boot, and not a zombie. Without
// a start stamp, any live process with the pid counts.
func (id Identity) Alive() bool {
	cur, ok := Lookup(id.PID)
	switch {
	case !ok:
		return false
	case id.Boot != "" && cur.Boot != "" && id.Boot != cur.Boot:
		return false
	case id.Start == 0 || cur.Start == 0:
		return true
	default:
		return cur.Start == id.Start
	}
}

// EndOrphan ends a command an earlier godwit left running, if it still
// runs and its identity is verified: SIGTERM to its leader (a supervisor
// then ends its whole tree) and group, then, after grace, SIGKILL to the
// leader, its group and (on Linux) every descendant. It reports whether
// the command was still running.
func EndOrphan(id Identity, grace time.Duration) bool {
	if !id.Verified() || !id.Alive() {
		return false
	}
	endOrphan(id, grace)
	return true
}
