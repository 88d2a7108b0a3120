//go:build !unix

package policy

import "io/fs"

// links is a file's hard link count; Windows' is not read here.
func links(fs.FileInfo) uint64 { return 1 }
