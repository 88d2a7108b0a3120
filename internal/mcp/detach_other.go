//go:build !unix

package mcp

import "os/exec"

// detach is a no-op where process groups are not used.
func detach(*exec.Cmd) {}
