//go:build unix

package policy

import (
	"io/fs"
	"syscall"
)

// links is a file's hard link count (1 when it cannot be told).
func links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
