//go:build unix

package regfile

import "syscall"

const (
	noWait   = syscall.O_NONBLOCK // an open of a FIFO does not wait for a writer
	noFollow = syscall.O_NOFOLLOW
)
