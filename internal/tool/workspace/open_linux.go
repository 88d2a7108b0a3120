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
