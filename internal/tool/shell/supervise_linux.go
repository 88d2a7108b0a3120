package shell

import (
	"errors"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// becomeSubreaper makes orphaned descendants re-parent to this process.
func becomeSubreaper() {
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
}

const (
	prSetChildSubreaper = 36
	pAll                = 0
	wNoWait             = 0x1000000
)

// hasChildren reports whether this process still has a child, without
// reaping it: waitid(P_ALL, WNOHANG|WNOWAIT) fails with ECHILD only when
// there is none.
func hasChildren(int) bool {
	var info [128]byte // siginfo_t
	_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pAll, 0, uintptr(unsafe.Pointer(&info[0])),
		syscall.WEXITED|syscall.WNOHANG|wNoWait, 0, 0)
	return errno != syscall.ECHILD
}

// signalTree sends sig to the command's process group and to every live
// descendant of this process (a subreaper: orphans are its descendants
// too).
func signalTree(mainPid int, sig syscall.Signal) {
	_ = syscall.Kill(-mainPid, sig)
	for _, pid := range descendants(os.Getpid()) {
		_ = syscall.Kill(pid, sig)
	}
}

// descendants lists the live descendants of root, by one scan of /proc
// (/proc/PID/task/TID/children needs CONFIG_PROC_CHILDREN).
func descendants(root int) []int {
	children := map[int][]int{}
	eachProc(func(pid int, si statInfo) bool {
		children[si.ppid] = append(children[si.ppid], pid)
		return true
	})
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// treeLeft is false: a subreaper with no child has no descendant.
func treeLeft(int) bool { return false }

// watchExit returns a channel closed once the process id names has
// exited (at once if it already has, or the pid is now another
// process's). It holds a pidfd (Linux 5.3+), which becomes readable when
// the process exits whoever its parent is; the identity is checked once
// the pidfd is open, so a pid reused before that is not mistaken for it.
// Where pidfd_open is missing it polls.
func watchExit(id Identity) <-chan struct{} {
	gone := make(chan struct{})
	fd, err := unix.PidfdOpen(id.PID, 0)
	if err != nil {
		if errors.Is(err, unix.ESRCH) {
			close(gone)
			return gone
		}
		return pollExit(id)
	}
	go func() {
		defer close(gone)
		defer unix.Close(fd)
		if !id.Alive() {
			return
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			if _, err := unix.Poll(fds, -1); err != unix.EINTR {
				return
			}
		}
	}()
	return gone
}

// nsSpec is the namespaces Options.Wrap asked for on a command (clone
// flags and ambient capabilities; a user namespace maps the
// supervisor's own ids), carried to a supervisor an editor's terminal
// starts.
type nsSpec struct {
	Flags   uintptr   `json:"flags"`
	Ambient []uintptr `json:"ambient,omitempty"`
}

func nsOf(sys *syscall.SysProcAttr) *nsSpec {
	if sys == nil || sys.Cloneflags == 0 {
		return nil
	}
	return &nsSpec{Flags: sys.Cloneflags, Ambient: sys.AmbientCaps}
}

func (n *nsSpec) apply(sys *syscall.SysProcAttr) {
	if n == nil {
		return
	}
	sys.Cloneflags |= n.Flags
	sys.AmbientCaps = n.Ambient
	if n.Flags&syscall.CLONE_NEWUSER != 0 {
		sys.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
		sys.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
	}
}
