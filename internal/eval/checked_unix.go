//go:build unix

package eval

import "syscall"

// checkedFlags: no link followed in the last element, no wait on a FIFO.
const checkedFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
