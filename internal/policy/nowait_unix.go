//go:build unix

package policy

import "syscall"

// openNoWait keeps an open of a FIFO from waiting for a writer.
const openNoWait = syscall.O_NONBLOCK
