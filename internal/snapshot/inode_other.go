//go:build !unix

package snapshot

import "io/fs"

// inodeOf knows no link counts here: no file is taken as shared.
func inodeOf(fs.FileInfo) (inode, bool) { return inode{}, false }
