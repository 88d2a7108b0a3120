package shell

import (
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// sZomb is a zombie's p_stat (sys/proc.h).
const sZomb = 5

// Lookup returns the identity of the live process pid from the kernel's
// process table (sysctl kern.proc.pid).
func Lookup(pid int) (Identity, bool) {
	if pid <= 0 {
		return Identity{}, false
	}
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || kp.Proc.P_pid != int32(pid) || kp.Proc.P_stat == sZomb {
		return Identity{}, false
	}
	t := kp.Proc.P_starttime
	return Identity{PID: pid, Start: uint64(t.Sec)*1e6 + uint64(t.Usec)}, true
}

func endOrphan(id Identity, grace time.Duration) {
	_ = syscall.Kill(id.PID, syscall.SIGTERM)
	_ = syscall.Kill(-id.PID, syscall.SIGTERM)
	if waitUntil(func() bool { return !id.Alive() }, grace+supervisorSlack) {
		return
	}
	_ = syscall.Kill(-id.PID, syscall.SIGKILL)
	_ = syscall.Kill(id.PID, syscall.SIGKILL)
}
