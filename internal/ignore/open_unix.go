//go:build unix

package ignore

import "syscall"

// openFlags: no link followed in the last element, no wait on a FIFO.
const openFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
