// Package atomicfile replaces a file whole: the new content goes to a
// temporary file in the same folder, which is given its mode, synced and
// renamed over the old one, and then the folder is synced. A reader sees
// the old file or the whole new one, never half of it, and after an OS
// crash the file is one or the other too (not empty, as a rename of
// unsynced data can leave it on ext4, XFS and btrfs).
//
// It is the one writer of this kind for godwit's tools and commands (the
// file tools, undo, the git guard's restore, the snapshot's link
// detaching, the chat's history, init, eval results, the sandbox's
// caches). Each caller's own check before the rename (a hash, the file
// still being the one read) goes between Create and Commit.
//
// It imports none of godwit's packages.
package atomicfile

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Option changes how a file is written.
type Option func(*options)

type options struct {
	root   *os.Root
	noSync bool
}

// InRoot resolves the path inside root only, as os.Root does: a link
// planted in the path (a folder swapped for a link to ~/.ssh) fails the
// write instead of carrying it out of root. The path is relative to root.
func InRoot(root *os.Root) Option { return func(o *options) { o.root = root } }

// NoSync skips the file's and the folder's fsync, for caches: there a
// write lost to an OS crash is only a miss, and a build writes thousands
// of entries.
func NoSync() Option { return func(o *options) { o.noSync = true } }

// maxBase bounds the part of the file's name the temporary name repeats,
// so a name near the file system's limit (255 bytes) still leaves room
// for the prefix and suffix.
const maxBase = 64

// Pending is a replacement being written: Write to it, then Commit, or
// Abort to leave the file as it was. Abort after Commit does nothing, so
// a deferred Abort is always safe. A Pending is not safe for concurrent
// use.
type Pending struct {
	f         *os.File
	path, tmp string
	perm      fs.FileMode
	o         options
	done      bool
}

// Create starts replacing path (or creating it) with a file of mode perm.
// perm is applied as given, umask aside, with its setuid, setgid and
// sticky bits. The folder must exist.
func Create(path string, perm fs.FileMode, opts ...Option) (*Pending, error) {
	p := &Pending{path: path, perm: perm}
	for _, opt := range opts {
		opt(&p.o)
	}
	base := filepath.Base(path)
	if len(base) > maxBase {
		n := maxBase
		for n > 0 && !utf8.RuneStart(base[n]) {
			n--
		}
		base = base[:n]
	}
	prefix := filepath.Join(filepath.Dir(path), "."+base+tempMark)
	for range 100 {
		p.tmp = prefix + strconv.FormatUint(rand.Uint64(), 36)
		f, err := p.openFile(p.tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		p.f = f
		return p, nil
	}
	return nil, &fs.PathError{Op: "createtemp", Path: prefix + "*", Err: fs.ErrExist}
}

// tempMark is what Create puts between the file's name and the random
// suffix of the temporary file's.
const tempMark = ".godwit-"

// IsTemp reports whether name (a base name) is that of a temporary file
// Create makes: ".NAME.godwit-SUFFIX", SUFFIX in base 36. A folder walk
// passes over it, since a write under way may rename or remove it.
func IsTemp(name string) bool {
	i := strings.LastIndex(name, tempMark)
	if i < 1 || name[0] != '.' {
		return false
	}
	suffix := name[i+len(tempMark):]
	return suffix != "" && len(suffix) <= 13 && strings.Trim(suffix, "0123456789abcdefghijklmnopqrstuvwxyz") == ""
}

// Write writes to the temporary file.
func (p *Pending) Write(b []byte) (int, error) { return p.f.Write(b) }

// Seek moves the temporary file's offset, so a copy can leave a hole
// where its source has one instead of writing the zeros.
func (p *Pending) Seek(off int64, whence int) (int64, error) { return p.f.Seek(off, whence) }

// Truncate sets the temporary file's size (a copy that ends in a hole).
func (p *Pending) Truncate(size int64) error { return p.f.Truncate(size) }

// Commit gives the temporary file its mode, syncs it, renames it over the
// file and syncs the folder. On an error before the rename the file is
// left as it was and the temporary one removed.
func (p *Pending) Commit() error {
	if p.done {
		return errors.New("atomicfile: commit of a finished write")
	}
	err := p.f.Chmod(p.perm)
	if err == nil && !p.o.noSync {
		err = p.f.Sync()
	}
	if cerr := p.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = p.rename(p.tmp, p.path)
	}
	p.done = true
	if err != nil {
		_ = p.remove(p.tmp)
		return err
	}
	if !p.o.noSync {
		p.syncDir()
	}
	return nil
}

// syncDir makes the rename durable. Its error is dropped: the file is
// already replaced, and some file systems (FUSE, network ones, Windows)
// cannot sync a folder; reporting that as a failed write would be false.
func (p *Pending) syncDir() {
	d, err := p.openFile(filepath.Dir(p.path), os.O_RDONLY, 0)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}

// Abort removes the temporary file, leaving the file as it was; after
// Commit it does nothing.
func (p *Pending) Abort() {
	if p.done {
		return
	}
	p.done = true
	_ = p.f.Close()
	_ = p.remove(p.tmp)
}

// WriteFile replaces path with data, of mode perm (see Create).
func WriteFile(path string, data []byte, perm fs.FileMode, opts ...Option) error {
	p, err := Create(path, perm, opts...)
	if err != nil {
		return err
	}
	defer p.Abort()
	if _, err := p.Write(data); err != nil {
		return err
	}
	return p.Commit()
}

func (p *Pending) openFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	if p.o.root != nil {
		return p.o.root.OpenFile(name, flag, perm)
	}
	return os.OpenFile(name, flag, perm)
}

func (p *Pending) rename(from, to string) error {
	if p.o.root != nil {
		return p.o.root.Rename(from, to)
	}
	return os.Rename(from, to)
}

func (p *Pending) remove(name string) error {
	if p.o.root != nil {
		return p.o.root.Remove(name)
	}
	return os.Remove(name)
}
