package snapshot

import (
	"errors"
	"io/fs"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/godwit/godwit/internal/ignore"
)

// DefaultMaxFiles bounds how many files a Watcher fingerprints.
const DefaultMaxFiles = 100_000

// skipped folders are never watched: version control, dependencies,
// godwit's own job logs.
var skipped = map[string]bool{".git": true, "node_modules": true, "vendor": true, ".godwit": true}

// WatchOptions configure a Watcher.
type WatchOptions struct {
	// MaxFiles bounds the files fingerprinted; past it, changes are
	// tracked only among the first MaxFiles in walk order. 0 means
	// DefaultMaxFiles.
	MaxFiles int
	// DetachShared makes WatchTool, before each command, replace every
	// file that is also hard-linked outside the walked workspace by a
	// copy of itself (see Detach): set it where a sandbox confines
	// commands to the workspace, which a hard link would otherwise cross.
	DetachShared bool
	Logger       *slog.Logger
}

// Watcher fingerprints a workspace to find what a command changed.
//
// It costs one lstat per file before the command and one after
// (BenchmarkFingerprint), in a walk that skips .git, node_modules,
// vendor, .godwit and folders that .gitignore files ignore; nothing is
// read. Only foreground shell_exec calls pay it. Past MaxFiles (100k by
// default) the walk stops: changes beyond are not listed, and a warning
// says so.
type Watcher struct {
	root   string
	max    int
	detach bool
	log    *slog.Logger
	warned sync.Once
}

// NewWatcher returns a Watcher of root.
func NewWatcher(root string, opts WatchOptions) *Watcher {
	w := &Watcher{root: root, max: opts.MaxFiles, detach: opts.DetachShared, log: opts.Logger}
	if w.max <= 0 {
		w.max = DefaultMaxFiles
	}
	if w.log == nil {
		w.log = slog.New(slog.DiscardHandler)
	}
	return w
}

// stamp is what a fingerprint keeps of a file.
type stamp struct {
	size  int64
	mtime time.Time
	mode  fs.FileMode
}

// Fingerprint is the state of the workspace's files at one moment.
type Fingerprint struct {
	w         *Watcher
	files     map[string]stamp // by slash path relative to the root
	linked    map[string]inode // files with more than one hard link
	truncated bool
}

// Take fingerprints the workspace now.
func (w *Watcher) Take() *Fingerprint {
	files, linked, truncated := w.walk()
	if truncated {
		w.warned.Do(func() {
			w.log.Warn("snapshot: the workspace has more files than the watcher tracks; changes shell commands make beyond them are not listed", "max", w.max)
		})
	}
	return &Fingerprint{w: w, files: files, linked: linked, truncated: truncated}
}

// Changed walks the workspace again and returns the files created,
// modified or deleted since the fingerprint, relative to the root with
// forward slashes, sorted. When either walk stopped at MaxFiles, only
// modifications of files seen both times are reported.
func (f *Fingerprint) Changed() []string {
	now, _, truncated := f.w.walk()
	var out []string
	for p, s := range now {
		old, ok := f.files[p]
		switch {
		case !ok:
			if !f.truncated && !truncated {
				out = append(out, p)
			}
		case old != s:
			out = append(out, p)
		}
	}
	if !f.truncated && !truncated {
		for p := range f.files {
			if _, ok := now[p]; !ok {
				out = append(out, p)
			}
		}
	}
	slices.Sort(out)
	return out
}

var errFull = errors.New("full")

// walk stamps every watched file, and notes those with more than one
// hard link.
func (w *Watcher) walk() (map[string]stamp, map[string]inode, bool) {
	files := map[string]stamp{}
	linked := map[string]inode{}
	// The patterns met so far: one only matches below the folder of its
	// file (its domain), so those of sibling folders walked earlier do
	// no harm.
	ign := ignore.Read(filepath.Join(w.root, ".git", "info", "exclude"), nil).
		Then(ignore.Read(filepath.Join(w.root, ".gitignore"), nil))
	prefix := len(w.root) + len(string(filepath.Separator))
	err := filepath.WalkDir(w.root, func(p string, d fs.DirEntry, err error) error {
		if p == w.root || len(p) <= prefix {
			return nil
		}
		if err != nil {
			if d != nil && d.IsDir() {
				return fs.SkipDir // an unreadable folder
			}
			return nil
		}
		rel := filepath.ToSlash(p[prefix:])
		if d.IsDir() {
			parts := strings.Split(rel, "/")
			if skipped[d.Name()] || ign.Ignored(parts, true) {
				return fs.SkipDir
			}
			ign = ign.Then(ignore.Read(filepath.Join(p, ".gitignore"), parts))
			return nil
		}
		if len(files) >= w.max {
			return errFull
		}
		info, err := d.Info()
		if err != nil {
			return nil // vanished while walking
		}
		files[rel] = stamp{size: info.Size(), mtime: info.ModTime(), mode: info.Mode()}
		if in, ok := inodeOf(info); ok && in.nlink > 1 && info.Mode().IsRegular() {
			linked[rel] = in
		}
		return nil
	})
	return files, linked, errors.Is(err, errFull)
}
