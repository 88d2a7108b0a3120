//go:build unix && !linux

package shell

import "syscall"

// Without a subreaper (macOS, the BSDs here) orphans go to init, so the
// supervisor holds only the command's process group: a process that
// calls setsid escapes it. The lifeline still ends the group when godwit
// dies.
func becomeSubreaper() {}

// hasChildren reports whether the command's process group still has a
// process (a zombie counts: without /proc it cannot be told apart).
func hasChildren(mainPid int) bool {
	err := syscall.Kill(-mainPid, 0)
	return err == nil || err == syscall.EPERM
}

func signalTree(mainPid int, sig syscall.Signal) { _ = syscall.Kill(-mainPid, sig) }

// treeLeft reports whether the command's group still has a process,
// which here need not be a child of the supervisor.
func treeLeft(mainPid int) bool { return hasChildren(mainPid) }

// watchExit returns a channel closed once the process id names has
// exited; there is no pidfd here, so it polls.
func watchExit(id Identity) <-chan struct{} { return pollExit(id) }

// nsSpec is Linux's namespaces: none here.
type nsSpec struct{}

func nsOf(*syscall.SysProcAttr) *nsSpec { return nil }

func (*nsSpec) apply(*syscall.SysProcAttr) {}
