//go:build unix

package main

import (
	"os"
	"syscall"
)

// maxRSSKB is an ended process's peak resident set in KiB (Linux; bytes
// on macOS, which this benchmark does not report on), 0 when unknown.
func maxRSSKB(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok && ru != nil {
		return int64(ru.Maxrss)
	}
	return 0
}
