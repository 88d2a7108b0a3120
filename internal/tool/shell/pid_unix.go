//go:build unix && !linux && !darwin

package shell

import "syscall"

func pidExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
