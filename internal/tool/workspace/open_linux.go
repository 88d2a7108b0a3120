package workspace

import (
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// noFollow keeps the fallback's open from following a link in the last
// element.
const noFollow = unix.O_NOFOLLOW

// openBeneath opens rel under the root with openat2, which follows no
// link and reaches nothing outside, so a path that changed into a link
// since Resolve fails with ErrMoved. ok is false without openat2 (before
// 5.6, or seccomp); the caller then goes through the os.Root.
func (w *Workspace) openBeneath(rel string, flags int) (fd int, ok bool, err error) {
	how := unix.OpenHow{
		Flags:   uint64(flags | unix.O_CLOEXEC | unix.O_NOFOLLOW),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	}
	for range 16 { // EAGAIN: a rename raced the lookup; EINTR: a signal
		fd, err = unix.Openat2(int(w.dir.Fd()), rel, &how)
		if err != unix.EAGAIN && err != unix.EINTR {
			break
		}
	}
	switch {
	case err == unix.ENOSYS:
		return -1, false, nil
	case err == unix.ELOOP || err == unix.EXDEV:
		return -1, true, fmt.Errorf("%w: %s is now, or goes through, a link", ErrMoved, rel)
	case err != nil:
		return -1, true, &fs.PathError{Op: "open", Path: rel, Err: err}
	}
	return fd, true, nil
}

// readInto reads the file at rel whole into b (reused) with plain system
// calls: for grep's thousands of files os.File's poller registration
// costs more than the read. With single, a linked file is ErrLinked.
func (w *Workspace) readInto(rel string, b []byte, limit int64, single bool) ([]byte, bool, error) {
	fd, ok, err := w.openBeneath(rel, unix.O_RDONLY)
	if !ok || err != nil {
		return b, ok, err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return b, true, &fs.PathError{Op: "stat", Path: rel, Err: err}
	}
	if single && st.Nlink > 1 {
		return b, true, ErrLinked
	}
	if st.Size > limit {
		return b, true, ErrTooLarge
	}
	size := int(st.Size)
	if cap(b) < size+1 {
		b = make([]byte, 0, size+4096)
	}
	b = b[:0]
	for {
		n, err := unix.Read(fd, b[len(b):cap(b)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return b, true, &fs.PathError{Op: "read", Path: rel, Err: err}
		}
		b = b[:len(b)+n]
		// A file reporting size 0 (/proc) is read to its end.
		if n == 0 || size > 0 && len(b) >= size {
			return b, true, nil
		}
		if int64(len(b)) > limit {
			return b, true, ErrTooLarge
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// opened checks, after the fallback's open, that the kernel's name for
// f (/proc/self/fd) is abs, so a link swapped in since Resolve did not
// lead the open elsewhere. Without /proc the root's guarantee stands.
func opened(f *os.File, abs string) error {
	c, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	var got string
	var rerr error
	if err := c.Control(func(fd uintptr) {
		got, rerr = os.Readlink("/proc/self/fd/" + strconv.Itoa(int(fd)))
	}); err != nil || rerr != nil {
		return nil
	}
	if got != abs {
		return fmt.Errorf("%w: %s now leads to %s", ErrMoved, abs, got)
	}
	return nil
}

// Links is a file's count of hard links (1 where it cannot be told).
func Links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
