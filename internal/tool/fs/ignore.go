package fs

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/godwit/godwit/internal/ignore"
)

// Folders skipped unless no_ignore is set. .git is always skipped.
var skippedDirs = map[string]bool{"node_modules": true, "vendor": true}

// ignoreRules are the gitignore patterns in force in one folder: the
// repository's .git/info/exclude, then every .gitignore from the
// repository root down, as git reads them (internal/ignore). A value is
// immutable once built.
type ignoreRules struct {
	base     string   // folder the patterns' domains are relative to
	dir      []string // the folder these rules are for, relative to base
	patterns ignore.Rules
	off      bool // no_ignore: nothing is ignored
}

// loadIgnore returns the rules in force in dir (absolute, inside top, the
// workspace root), from the enclosing repository or else top down. It
// does not look above the workspace: a home folder kept in git with a
// .gitignore of "*" would hide every file of a project below it.
func loadIgnore(top, dir string, off bool) *ignoreRules {
	r := &ignoreRules{base: top, off: off}
	if off {
		return r
	}
	for d := dir; len(d) >= len(top); d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			r.base = d
			r.patterns = ignore.Read(filepath.Join(d, ".git", "info", "exclude"), nil)
			break
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	rel, err := filepath.Rel(r.base, dir)
	if err != nil || strings.HasPrefix(rel, "..") {
		return r
	}
	r.patterns = r.patterns.Then(ignore.Read(filepath.Join(r.base, ".gitignore"), nil))
	if rel != "." {
		for _, name := range strings.Split(filepath.ToSlash(rel), "/") {
			r = r.child(name)
		}
	}
	return r
}

// child returns the rules for the sub-folder name, adding its .gitignore.
func (r *ignoreRules) child(name string) *ignoreRules {
	dir := append(slices.Clip(r.dir), name)
	c := &ignoreRules{base: r.base, dir: dir, patterns: r.patterns, off: r.off}
	if r.off {
		return c
	}
	c.patterns = r.patterns.Then(ignore.Read(filepath.Join(r.base, filepath.Join(dir...), ".gitignore"), dir))
	return c
}

// ignored reports whether the entry name of this folder is skipped:
// node_modules and vendor folders and gitignored entries, unless the
// rules are off. (Walks skip .git always: walking.entries.)
func (r *ignoreRules) ignored(name string, isDir bool) bool {
	if r.off {
		return false
	}
	if isDir && skippedDirs[name] {
		return true
	}
	if len(r.patterns) == 0 {
		return false
	}
	return r.patterns.Ignored(append(slices.Clip(r.dir), name), isDir)
}
