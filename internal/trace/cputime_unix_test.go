//go:build unix

package trace_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process has used (user and system, all
// threads): a figure a busy machine inflates less than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
