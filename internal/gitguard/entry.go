package gitguard

import (
	"bytes"
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
			if b, err := os.ReadFile(p); err == nil {
				e.data = b
			}
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
