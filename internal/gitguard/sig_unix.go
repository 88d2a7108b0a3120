//go:build unix

package gitguard

import (
	"io/fs"
	"syscall"
)

func sigOf(fi fs.FileInfo) sig {
	s := sig{size: fi.Size(), mtime: fi.ModTime()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		s.dev, s.ino = uint64(st.Dev), uint64(st.Ino)
		s.ctime = ctime(st)
	}
	return s
}

// readFlags open a file read by stat: no link followed in its last
// element, no wait on a FIFO.
const readFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
