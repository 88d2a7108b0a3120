//go:build !unix

package gitguard

import "io/fs"

// sigOf has only size and modification time here: a command that sets
// a file's time back with the same size is caught only when the content
// was kept and differs.
func sigOf(fi fs.FileInfo) sig { return sig{size: fi.Size(), mtime: fi.ModTime()} }

// readFlags: the link and FIFO cases are unix's; readSame's identity
// check still holds.
const readFlags = 0
