package gitguard

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"time"
)

type kind uint8

const (
	kindMissing kind = iota
	kindFile
	kindDir
	kindSymlink
	kindOther
)

func (k kind) String() string {
	return [...]string{"missing path", "file", "folder", "symbolic link", "special file"}[k]
}

// sig is what a stat says of a file: if it is the same, the file is.
// The change time (and inode) cannot be set back by a command, unlike
// the modification time.
type sig struct {
	dev, ino     uint64
	size         int64
	mtime, ctime time.Time
}

// entry is one guarded path as it was at a scan.
type entry struct {
	kind kind
	mode fs.FileMode
	sig  sig
	data []byte // a file's content; nil when over the cap or unreadable
	link string // a symbolic link's target
	cfg  bool   // a git config file: judged setting by setting
	hook bool   // inside a git dir's hooks folder
	repo bool   // a git dir's own file (its config, its hooks)
}

// same reports whether two scans of one path found the same thing.
func (e entry) same(f entry) bool {
	if e.kind != f.kind || e.mode != f.mode || e.link != f.link {
		return false
	}
	if e.kind != kindFile || e.sig == f.sig {
		return true
	}
	return e.data != nil && f.data != nil && bytes.Equal(e.data, f.data)
}

// stat fingerprints p; a file's content is read unless prev has it with
// the same stat.
func stat(p string, cfg bool, prev entry, maxBytes int64) entry {
	e := entry{cfg: cfg, hook: prev.hook, repo: prev.repo}
	fi, err := os.Lstat(p)
	if err != nil {
		return e // kindMissing (or unreadable, which cannot be restored either)
	}
	e.mode, e.sig = fi.Mode(), sigOf(fi)
	switch {
	case fi.Mode().IsRegular():
		e.kind = kindFile
		if prev.kind == kindFile && prev.sig == e.sig && prev.data != nil {
			e.data = prev.data
		} else if fi.Size() <= maxBytes {
			e.data = readSame(p, fi)
		}
	case fi.IsDir():
		e.kind = kindDir
	case fi.Mode()&fs.ModeSymlink != 0:
		e.kind = kindSymlink
		e.link, _ = os.Readlink(p)
	default:
		e.kind = kindOther
	}
	return e
}

// readSame reads p if it is still the regular file fi describes: a
// command may have swapped a link or a FIFO in since the Lstat, and
// godwit must neither read through the one nor wait on the other. Nil
// when it is not.
func readSame(p string, fi fs.FileInfo) []byte {
	f, err := os.OpenFile(p, os.O_RDONLY|readFlags, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	if now, err := f.Stat(); err != nil || !now.Mode().IsRegular() || !os.SameFile(fi, now) {
		return nil
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil
	}
	return b
}
