package snapshot

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/godwit/godwit/internal/tool/workspace"
)

// inode names a file's data: two paths with the same inode are hard
// links to one file, and a write through either changes both.
type inode struct {
	dev, ino, nlink uint64
}

// Shared lists, relative to the root, the regular files of the walk that
// have a hard link the walk did not see: a name outside the workspace
// (or in a folder the walk skips). A command allowed to write the
// workspace could change that outside file through them, since Landlock
// judges a write by the path it goes through, not by the file.
func (f *Fingerprint) Shared() []string {
	seen := map[[2]uint64]uint64{}
	for _, in := range f.linked {
		seen[[2]uint64{in.dev, in.ino}]++
	}
	var out []string
	for p, in := range f.linked {
		if seen[[2]uint64{in.dev, in.ino}] < in.nlink {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// Detach gives each path (relative to the root) a file of its own: a
// copy with the same content, mode and modification time renamed over
// it, so the hard link is broken and the file outside keeps its content
// whatever a command does here (godwit's file tools write the same way,
// through a new file). A path that changed since it was seen is left
// alone. It returns the paths detached.
func (w *Watcher) Detach(paths []string) ([]string, error) {
	ws, err := workspace.New(w.root)
	if err != nil {
		return nil, fmt.Errorf("snapshot: detach: %w", err)
	}
	defer ws.Close()
	var done []string
	var errs []error
	for _, rel := range paths {
		if err := detach(ws, filepath.Join(ws.Root(), filepath.FromSlash(rel))); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", rel, err))
			continue
		}
		done = append(done, rel)
	}
	return done, errors.Join(errs...)
}

// detach copies p through the workspace: the walk went through plain
// folders, and one a background job swapped for a link since fails.
func detach(ws *workspace.Workspace, p string) error {
	before, err := ws.Lstat(p)
	if err != nil {
		return err
	}
	in, ok := inodeOf(before)
	if !ok || !before.Mode().IsRegular() || in.nlink < 2 {
		return nil
	}
	// Copied as a stream, holes kept: a command may have made the file a
	// sparse 4 GiB (its size limit) of nothing, many times over, and read
	// whole it passed through godwit's memory, written out it filled the
	// disk with zeros the file never held.
	src, err := ws.Open(p)
	if err != nil {
		return err
	}
	defer src.Close()
	if fi, err := src.Stat(); err != nil || !os.SameFile(before, fi) {
		return errors.New("it changed while being copied")
	}
	err = ws.Replace(p, before.Mode().Perm(), func(f io.Writer) error {
		n, err := copySparse(f, src)
		if err != nil {
			return err
		}
		// The file must still be the one read.
		if now, err := ws.Lstat(p); err != nil || !os.SameFile(before, now) || now.Size() != n {
			return errors.New("it changed while being copied")
		}
		return nil
	})
	if err != nil {
		return err
	}
	return ws.Chtimes(p, before.ModTime()) // the watcher compares times: a copy is no change
}

// copyChunk is copySparse's buffer: its memory, and the smallest hole it
// keeps.
const copyChunk = 64 << 10

// copySparse copies src to dst a chunk at a time; where dst can seek and
// truncate (atomicfile.Pending), a chunk of zeros becomes a hole. It
// returns the bytes copied.
func copySparse(dst io.Writer, src io.Reader) (int64, error) {
	holes, canHole := dst.(interface {
		io.Seeker
		Truncate(int64) error
	})
	buf := make([]byte, copyChunk)
	var n int64
	endsInHole := false
	for {
		k, err := io.ReadFull(src, buf)
		if k > 0 {
			if canHole && len(bytes.TrimLeft(buf[:k], "\x00")) == 0 { // all zeros
				if _, err := holes.Seek(int64(k), io.SeekCurrent); err != nil {
					return n, err
				}
				endsInHole = true
			} else {
				if _, err := dst.Write(buf[:k]); err != nil {
					return n, err
				}
				endsInHole = false
			}
			n += int64(k)
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return n, err
		}
	}
	if endsInHole {
		return n, holes.Truncate(n)
	}
	return n, nil
}

// detachNote is what the model and the user are told.
func detachNote(paths []string) string {
	return strings.Join(paths, ", ") + " had a hard link outside the workspace; each is now a file of its own with the same content, so a command cannot change the file outside through it"
}
