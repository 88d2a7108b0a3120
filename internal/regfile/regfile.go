// Package regfile reads the small files godwit's own process opens from
// paths a repository or a command controls (.env, .gitignore, git's
// config, a script judged, a file an eval checks): whole, only if it is
// a regular file of a bounded size, and with an open that does not wait.
// A FIFO in such a place held godwit in open(2) past SIGTERM, and a link
// to /dev/zero filled its memory. The null device reads as empty, as git
// and shells read it. It imports none of godwit's packages.
package regfile

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrTooLarge is a file over the bound a reader gave.
var ErrTooLarge = errors.New("too large")

// Read reads path whole if it is a regular file of at most max bytes.
func Read(path string, max int64) ([]byte, error) { return read(path, max, 0) }

// ReadNoFollow is Read that refuses a link in the last element: the
// file itself is meant, not one it points at.
func ReadNoFollow(path string, max int64) ([]byte, error) { return read(path, max, noFollow) }

func read(path string, max int64, flags int) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|noWait|flags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return nil, err
	case IsNull(fi):
		return nil, nil
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file (%s)", path, fi.Mode().Type())
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err == nil && int64(len(data)) > max {
		return nil, fmt.Errorf("%s is over %d bytes: %w", path, max, ErrTooLarge)
	}
	return data, err
}

// IsNull reports whether fi is the null device.
func IsNull(fi os.FileInfo) bool {
	if fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err == nil && os.SameFile(fi, null)
}
