//go:build unix

package workspace

import "syscall"

// nonBlock keeps an open of a FIFO from waiting for a writer (Open then
// refuses it); on a regular file or a folder it changes nothing.
const nonBlock = syscall.O_NONBLOCK
