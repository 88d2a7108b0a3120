package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A recursive search typed into the shell (grep -r, rg, ag) reads every
// file under its folders, so naming no secrets file it can still print
// one. Such a search of a folder that holds secrets files asks, as
// reading the file would; the grep tool passes over them instead.

// maxSearchEntries bounds the walk that looks for secrets files under a
// searched folder; a bigger folder asks, as it cannot be cleared.
const maxSearchEntries = 20000

// searchScope says whether c searches folders recursively, and whether
// it skips hidden files (rg and ag do by default; .env is hidden).
func searchScope(c SimpleCommand) (recursive, skipsHidden bool) {
	name := c.Name()
	flags := func(yield func(string) bool) {
		for _, w := range c.Words[1:] {
			if !w.Known || !strings.HasPrefix(w.Value, "-") {
				continue
			}
			if w.Value == "--" || !yield(w.Value) {
				return
			}
		}
	}
	switch name {
	case "grep", "egrep", "fgrep":
		for f := range flags {
			switch {
			case f == "--recursive", f == "--dereference-recursive", f == "--directories=recurse":
				return true, false
			case !strings.HasPrefix(f, "--") && strings.ContainsAny(f[1:], "rR"):
				return true, false
			}
		}
		return false, false
	case "rg", "ag":
		skips := true
		for f := range flags {
			switch {
			case f == "--hidden", f == "--unrestricted", f == "-.":
				skips = false
			case !strings.HasPrefix(f, "--") && strings.Contains(f[1:], "u"):
				skips = false
			}
		}
		return true, skips
	}
	return false, false
}

// errSearchTooBig stops a walk past maxSearchEntries.
var errSearchTooBig = errors.New("too many files")

// secretsUnder lists (up to 3) secrets files under dir, relative to it,
// skipping .git and, when skipHidden, hidden entries.
func secretsUnder(dir string, skipHidden bool) ([]string, error) {
	var found []string
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil // unreadable below: the search cannot read it either
		}
		if p == dir {
			return nil
		}
		if n++; n > maxSearchEntries {
			return errSearchTooBig
		}
		name := d.Name()
		if d.IsDir() {
			if name == ".git" || (skipHidden && strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if skipHidden && strings.HasPrefix(name, ".") {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if isSecret(rel) {
			found = append(found, filepath.ToSlash(rel))
			if len(found) == 3 {
				return filepath.SkipAll
			}
		}
		return nil
	})
	return found, err
}

// searchItems are what a recursive search reads that its words do not
// say: the secrets files under the folders it searches (dirs, or where
// it runs when it names none).
func (p *Policy) searchItems(c SimpleCommand, paths []Word) []item {
	recursive, skipHidden := searchScope(c)
	if !recursive {
		return nil
	}
	var dirs []string
	for _, w := range paths {
		if w.Literal() {
			if abs := resolveIn(c.Dir, w.Value); abs != "" {
				dirs = append(dirs, abs)
			}
		}
	}
	if len(paths) == 0 && c.Dir != "" {
		dirs = []string{c.Dir}
	}
	var out []item
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || p.where(dir) != placeInside {
			continue // files and outside folders are judged as paths
		}
		show := p.rel(dir)
		if show == "." {
			show = "the workspace"
		}
		found, err := secretsUnder(dir, skipHidden)
		switch {
		case errors.Is(err, errSearchTooBig):
			out = append(out, item{kind: kindPath, abs: dir, level: levelSensitive,
				what: fmt.Sprintf("searches %s, too big (over %d entries) to check for secrets files; the grep tool passes over them", show, maxSearchEntries)})
		case err != nil:
			continue
		case len(found) > 0:
			out = append(out, item{kind: kindPath, abs: filepath.Join(dir, filepath.FromSlash(found[0])), level: levelSensitive,
				what: fmt.Sprintf("searches %s, which holds secrets files (%s), so it may print them; the grep tool passes over them", show, strings.Join(found, ", "))})
		}
	}
	return out
}
