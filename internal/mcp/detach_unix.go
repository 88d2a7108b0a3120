//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// detach puts a server in its own process group, so that the Ctrl-C a
// user presses to stop a turn does not kill the MCP servers too.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
