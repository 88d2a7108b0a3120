//go:build unix

package cli

import "syscall"

// envOpenFlags: an open of a FIFO does not wait for a writer.
const envOpenFlags = syscall.O_NONBLOCK
