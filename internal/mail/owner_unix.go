//go:build unix

package mail

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
)

// startOf reads a process's start time (clock ticks since boot) from
// /proc, where there is one; "" elsewhere.
func startOf(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	// The command name (field 2) may hold spaces and parentheses: the
	// fields after it start after the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return ""
	}
	return f[19] // field 22, starttime
}

// running reports whether process pid exists (EPERM: it exists, and
// belongs to someone else).
func running(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
