// Package hostpath finds the programs godwit itself runs (the shell, go)
// on the user's PATH without the folders commands may write. A
// repository that puts its own folder on PATH (direnv's PATH_add bin)
// must not choose what godwit runs: `bin/bash` would run every command
// line past the deny rules, `bin/go` outside the sandbox. It imports none
// of godwit's packages.
package hostpath

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Path is the PATH list path without relative entries and entries inside
// any of dirs, compared as written and with symlinks resolved. An entry
// that does not exist is dropped too: it holds no program now, and a
// command may make it later.
func Path(path string, dirs ...string) string {
	var keep []string
	for _, d := range filepath.SplitList(path) {
		if !filepath.IsAbs(d) {
			continue
		}
		real, err := filepath.EvalSymlinks(d)
		if err != nil || inside(filepath.Clean(d), dirs) || inside(real, dirs) {
			continue
		}
		keep = append(keep, d)
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

// LookPath is exec.LookPath on Path(os.Getenv("PATH"), dirs...).
func LookPath(name string, dirs ...string) (string, error) {
	for _, d := range filepath.SplitList(Path(os.Getenv("PATH"), dirs...)) {
		// A name with a separator is looked up as that file (and, on
		// Windows, with PATHEXT's extensions).
		if p, err := exec.LookPath(filepath.Join(d, name)); err == nil {
			return p, nil
		}
	}
	return "", &exec.Error{Name: name, Err: errors.New("executable file not found in $PATH outside the workspace")}
}

// inside reports whether p is one of dirs or below one, as written or
// with the dir's symlinks resolved.
func inside(p string, dirs []string) bool {
	for _, d := range dirs {
		if d == "" {
			continue
		}
		for _, dir := range []string{filepath.Clean(d), resolved(d)} {
			if rel, err := filepath.Rel(dir, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return true
			}
		}
	}
	return false
}

func resolved(d string) string {
	if r, err := filepath.EvalSymlinks(d); err == nil {
		return r
	}
	return filepath.Clean(d)
}
