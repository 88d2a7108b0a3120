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

// searchScope says whether c searches folders recursively, whether it
// skips hidden files (rg and ag do by default; .env is hidden), and
// whether it follows symlinks out of them.
func searchScope(c SimpleCommand) (recursive, skipsHidden, follow bool) {
	ro := checkReadOnly(c)
	return scopeOf(ro)
}

func scopeOf(ro roResult) (recursive, skipsHidden, follow bool) {
	recursive = ro.search || ro.eff&effRecurse != 0
	skipsHidden = ro.search && ro.skipsHidden && ro.eff&effHidden == 0
	return recursive, skipsHidden, ro.eff&effFollow != 0
}

// errSearchTooBig stops a walk past maxSearchEntries.
var errSearchTooBig = errors.New("too many files")

// secretsUnder lists (up to 3) secrets files under dir, relative to it,
// skipping .git and, when skipHidden, hidden entries. When the search
// follows symlinks, a link that leaves the workspace counts as one: what
// it leads to cannot be checked.
func (p *Policy) secretsUnder(dir string, skipHidden, follow bool) ([]string, error) {
	var found []string
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == dir {
				return err
			}
			return nil // unreadable below: the search cannot read it either
		}
		if path == dir {
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
		rel, _ := filepath.Rel(dir, path)
		if follow && d.Type()&fs.ModeSymlink != 0 {
			if t := kernelPath(path); p.where(t) != placeInside && p.where(t) != placeDevice {
				found = append(found, filepath.ToSlash(rel))
				if len(found) == 3 {
					return filepath.SkipAll
				}
				return nil
			}
		}
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
func (p *Policy) searchItems(c SimpleCommand, ro roResult) []item {
	recursive, skipHidden, follow := scopeOf(ro)
	if !recursive {
		return nil
	}
	paths := ro.paths
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
		found, err := p.secretsUnder(dir, skipHidden, follow)
		switch {
		case errors.Is(err, errSearchTooBig):
			out = append(out, item{kind: kindPath, abs: dir, level: levelSensitive,
				what: fmt.Sprintf("searches %s, too big (over %d entries) to check for secrets files; the grep tool passes over them", show, maxSearchEntries)})
		case err != nil:
			continue
		case len(found) > 0:
			out = append(out, item{kind: kindPath, abs: filepath.Join(dir, filepath.FromSlash(found[0])), level: levelSensitive,
				what: fmt.Sprintf("searches %s, which holds secrets files or links out of the workspace (%s), so it may print them; the grep tool passes over them", show, strings.Join(found, ", "))})
		}
	}
	return out
}
