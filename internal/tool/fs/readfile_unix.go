//go:build unix

package fs

import (
	iofs "io/fs"
	"syscall"
)

// readSmall reads a whole file into b (reused), for grep. It calls the
// system directly: os.Open registers every file with the poller and sets a
// finalizer, and a search over thousands of files spends most of its time
// in those extra system calls. It returns errTooLarge past limit bytes.
func readSmall(path string, b []byte, limit int64) ([]byte, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return b, &iofs.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return b, &iofs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Size > limit {
		return b, errTooLarge
	}
	size := int(st.Size)
	if cap(b) < size+1 {
		b = make([]byte, 0, size+4096)
	}
	b = b[:0]
	for {
		n, err := syscall.Read(fd, b[len(b):cap(b)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return b, &iofs.PathError{Op: "read", Path: path, Err: err}
		}
		b = b[:len(b)+n]
		// Reading stops at the size fstat gave, saving the read that would
		// return 0; a file reporting size 0 (/proc) is read to its end.
		if n == 0 || size > 0 && len(b) >= size {
			return b, nil
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}
