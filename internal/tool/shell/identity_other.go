//go:build !linux && !darwin

package shell

import (
	"os"
	"time"
)

// Self is this process's identity; this platform gives no start stamp,
// so recorded commands are never signalled by a later godwit.
func Self() Identity { return Identity{PID: os.Getpid()} }

// Lookup reports whether a process with the pid exists.
func Lookup(pid int) (Identity, bool) {
	if pid <= 0 || !pidExists(pid) {
		return Identity{}, false
	}
	return Identity{PID: pid}, true
}

// endOrphan is never reached: no identity here is verified.
func endOrphan(Identity, time.Duration) {}
