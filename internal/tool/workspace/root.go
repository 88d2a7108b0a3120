package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/godwit/godwit/internal/atomicfile"
	"github.com/godwit/godwit/tool"
)

// The file operations below take an absolute path as Resolve returns it
// and go through the workspace's os.Root: a link that appeared in the
// path since (a folder swapped for a link to $HOME) is never followed out
// of the root, and opens check that they opened the path Resolve named.

// ErrMoved is wrapped by the error of an operation whose path changed
// into a link after it was resolved.
var ErrMoved = errors.New("workspace: the path changed while in use")

// ErrTooLarge is ReadInto's error for a file over its limit.
var ErrTooLarge = errors.New("workspace: file too large")

// ErrLinked is ReadInto's error for a file with another hard link: a
// name the walk did not judge.
var ErrLinked = errors.New("workspace: the file has another name (a hard link)")

// local is abs relative to the root, in the OS's form ("." for the root).
func (w *Workspace) local(abs string) (string, error) {
	if !w.Inside(abs) {
		return "", &tool.ToolError{Code: tool.CodeOutsideWorkspace, Err: ErrOutside,
			Message: fmt.Sprintf("%s is outside the workspace %s", abs, w.root),
			Remedy:  "Use a path inside the workspace; relative paths start at its root."}
	}
	return filepath.Rel(w.root, abs)
}

// ErrNotFile is wrapped by Open's error for what is neither a regular
// file nor a folder: a FIFO (whose reads wait for a writer, forever), a
// device or a socket.
var ErrNotFile = errors.New("workspace: not a regular file or folder")

// Open opens abs for reading: a regular file or a folder. The last
// element is not followed if it is a link. The open does not wait (a
// FIFO's would, for a writer), and what it opened is checked: a FIFO, a
// device or a socket fails wrapping ErrNotFile, whatever read it and
// however the name came (a repository's AGENTS.md, a tool's argument, a
// command that swapped one in since a Stat).
func (w *Workspace) Open(abs string) (*os.File, error) {
	f, err := w.open(abs)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		err = fmt.Errorf("%s is a %s: %w", abs, kind(fi.Mode()), ErrNotFile)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// kind names a file type for people.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "FIFO (named pipe)"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	case m&fs.ModeSymlink != 0:
		return "link"
	}
	return "special file (" + m.Type().String() + ")"
}

func (w *Workspace) open(abs string) (*os.File, error) {
	rel, err := w.local(abs)
	if err != nil {
		return nil, err
	}
	if fd, ok, err := w.openBeneath(rel, os.O_RDONLY|nonBlock); ok {
		if err != nil {
			return nil, err
		}
		return os.NewFile(uintptr(fd), abs), nil
	}
	f, err := w.r.OpenFile(rel, os.O_RDONLY|noFollow|nonBlock, 0)
	if err != nil {
		return nil, w.pathErr(err, abs)
	}
	if err := opened(f, abs); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadFile reads abs whole.
func (w *Workspace) ReadFile(abs string) ([]byte, error) {
	return w.read(abs, nil, math.MaxInt64, false)
}

// ReadLimit reads abs whole, failing with ErrTooLarge past limit bytes
// however the file grows while it is read.
func (w *Workspace) ReadLimit(abs string, limit int64) ([]byte, error) {
	return w.read(abs, nil, limit, false)
}

// ReadInto reads abs whole into b (reused, for a walk over many files);
// past limit bytes it returns ErrTooLarge, and for a file with another
// hard link ErrLinked.
func (w *Workspace) ReadInto(abs string, b []byte, limit int64) ([]byte, error) {
	return w.read(abs, b, limit, true)
}

func (w *Workspace) read(abs string, b []byte, limit int64, single bool) ([]byte, error) {
	f, err := w.Open(abs)
	if err != nil {
		return b, err
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return b, err
	case single && Links(fi) > 1:
		return b, ErrLinked
	case fi.Size() > limit:
		return b, ErrTooLarge
	}
	if size := int(fi.Size()); cap(b) <= size {
		b = make([]byte, 0, size+4096)
	}
	b = b[:0]
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if int64(len(b)) > limit {
			return b, ErrTooLarge
		}
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// ReadDir lists the folder abs, sorted by name, as os.ReadDir does,
// without the temporary files of atomic writes (atomicfile.IsTemp): a
// walk that runs while a file tool writes must not show or read one.
func (w *Workspace) ReadDir(abs string) ([]fs.DirEntry, error) {
	f, err := w.Open(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	ents = slices.DeleteFunc(ents, func(e fs.DirEntry) bool { return e.Type().IsRegular() && atomicfile.IsTemp(e.Name()) })
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents, err
}

// Lstat describes abs without following a link in its last element.
func (w *Workspace) Lstat(abs string) (fs.FileInfo, error) {
	rel, err := w.local(abs)
	if err != nil {
		return nil, err
	}
	fi, err := w.r.Lstat(rel)
	return fi, w.pathErr(err, abs)
}

// Readlink returns the target of the link abs.
func (w *Workspace) Readlink(abs string) (string, error) {
	rel, err := w.local(abs)
	if err != nil {
		return "", err
	}
	s, err := w.r.Readlink(rel)
	return s, w.pathErr(err, abs)
}

// MkdirAll makes the folder abs and its missing parents.
func (w *Workspace) MkdirAll(abs string, perm fs.FileMode) error {
	rel, err := w.local(abs)
	if err != nil {
		return err
	}
	return w.pathErr(w.r.MkdirAll(rel, perm), abs)
}

// Remove removes the file or empty folder abs (a link itself, not what
// it points to).
func (w *Workspace) Remove(abs string) error {
	dir, err := w.openDir(filepath.Dir(abs))
	if err != nil {
		return err
	}
	defer dir.Close()
	return w.pathErr(dir.Remove(filepath.Base(abs)), abs)
}

// Replace replaces abs whole with what write writes, of mode perm: a
// temporary file and a rename inside abs's resolved folder, so a reader
// sees the old file or the new one and a link at abs is replaced, not
// written through. An error from write leaves abs as it was.
func (w *Workspace) Replace(abs string, perm fs.FileMode, write func(io.Writer) error) error {
	dir, err := w.openDir(filepath.Dir(abs))
	if err != nil {
		return err
	}
	defer dir.Close()
	p, err := atomicfile.Create(filepath.Base(abs), perm, atomicfile.InRoot(dir))
	if err != nil {
		return w.pathErr(err, abs)
	}
	defer p.Abort()
	if err := write(p); err != nil {
		return err
	}
	return w.pathErr(p.Commit(), abs)
}

// openDir opens the folder abs as a root of its own, checked to be abs.
func (w *Workspace) openDir(abs string) (*os.Root, error) {
	rel, err := w.local(abs)
	if err != nil {
		return nil, err
	}
	d, err := w.r.OpenRoot(rel)
	if err != nil {
		return nil, w.pathErr(err, abs)
	}
	f, err := d.Open(".")
	if err == nil {
		err = opened(f, abs)
		f.Close()
	}
	if err != nil {
		d.Close()
		return nil, w.pathErr(err, abs)
	}
	return d, nil
}

// pathErr says plainly when the root refused to follow a link out of it
// (os.Root's "path escapes from parent").
func (w *Workspace) pathErr(err error, abs string) error {
	if err == nil || errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrMoved) {
		return err
	}
	if strings.Contains(err.Error(), "escapes") {
		return fmt.Errorf("%w: %s now leads out of the workspace through a link", ErrMoved, abs)
	}
	return err
}

// Chtimes sets the access and modification times of abs to t.
func (w *Workspace) Chtimes(abs string, t time.Time) error {
	rel, err := w.local(abs)
	if err != nil {
		return err
	}
	return w.pathErr(w.r.Chtimes(rel, t, t), abs)
}

// Sub opens the folder abs (resolved, inside the root) as a workspace of
// its own: a skill's folder, whose files may not lead out of it.
func (w *Workspace) Sub(abs string) (*Workspace, error) {
	r, err := w.openDir(abs)
	if err != nil {
		return nil, err
	}
	dir, err := r.Open(".")
	if err != nil {
		r.Close()
		return nil, err
	}
	return &Workspace{root: abs, r: r, dir: dir}, nil
}

// FS is the root as an fs.FS, for walks.
func (w *Workspace) FS() fs.FS { return w.r.FS() }
