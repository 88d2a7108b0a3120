//go:build unix

package shell

import (
	"os/exec"
	"syscall"

	"github.com/godwit/godwit/internal/hostpath"
)

// findShell picks bash, or sh where bash is missing, from PATH's folders
// outside the workspace root.
func findShell(root string) (path, name string) {
	if p, err := hostpath.LookPath("bash", root); err == nil {
		return p, "bash"
	}
	if p, err := hostpath.LookPath("sh", root); err == nil {
		return p, "sh"
	}
	return "/bin/sh", "sh"
}

func shellArgs(line string) []string { return []string{"-c", line} }

// setGroup starts the command in a new session: a new process group we
// can signal as a whole, and no controlling terminal, so a program that
// opens /dev/tty to ask for a password fails instead of waiting forever
// (or stopping on SIGTTIN under the TUI).
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

func termGroup(pgid int) error { return syscall.Kill(-pgid, syscall.SIGTERM) }
func killGroup(pgid int) error { return syscall.Kill(-pgid, syscall.SIGKILL) }

// termLeader asks a supervisor (the group leader) to end its tree.
func termLeader(pid int) error { return syscall.Kill(pid, syscall.SIGTERM) }
