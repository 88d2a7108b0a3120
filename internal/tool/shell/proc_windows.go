package shell

import (
	"os/exec"
	"strconv"
	"syscall"

	"github.com/godwit/godwit/internal/hostpath"
)

// findShell prefers PowerShell 7 (pwsh), then Windows PowerShell, from
// PATH's folders outside the workspace root.
func findShell(root string) (path, name string) {
	for _, n := range []string{"pwsh", "powershell"} {
		if p, err := hostpath.LookPath(n, root); err == nil {
			return p, "powershell"
		}
	}
	return "powershell.exe", "powershell"
}

func shellArgs(line string) []string {
	return []string{"-NoProfile", "-NonInteractive", "-Command", line}
}

func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// Windows has no process-group signals: taskkill /T ends the tree rooted
// at the leader. Processes already orphaned from that tree are not found
// (a job object would be; not done yet).
func termGroup(pid int) error { return killGroup(pid) }

func killGroup(pid int) error {
	return exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(pid)).Run()
}

// groupAlive cannot be answered cheaply on Windows; once the leader has
// exited the tree is taken as gone.
func groupAlive(int) bool { return false }

// termLeader is never called on Windows: no command is supervised.
func termLeader(pid int) error { return killGroup(pid) }
