//go:build unix && !linux

package shell

import "syscall"

// groupAlive reports whether any process is in group pgid. Without /proc
// a zombie counts as alive; stop then waits its grace and sends SIGKILL,
// which is harmless.
func groupAlive(pgid int) bool {
	err := syscall.Kill(-pgid, 0)
	return err == nil || err == syscall.EPERM
}
