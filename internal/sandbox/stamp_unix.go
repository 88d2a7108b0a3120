//go:build unix

package sandbox

import "syscall"

// stampFlags: no link followed in the last element, no wait on a FIFO.
const stampFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
