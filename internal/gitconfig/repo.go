package gitconfig

import (
	"os"
	"path/filepath"
	"strings"
)

// Repo is where a repository keeps its files.
type Repo struct {
	// DotGit is the .git found: a folder, or a file naming the git dir
	// (a linked worktree's, a submodule's).
	DotGit string
	// GitDir is this worktree's git dir; Common the one it shares with
	// the main worktree (config, hooks, modules), GitDir unless linked.
	GitDir, Common string
	// WorkTree is the folder holding DotGit.
	WorkTree string
}

// FindRepo finds the repository holding dir as git does: the first .git
// going up, a folder (or a link to one) or a "gitdir: PATH" file. ok is
// false when there is none, or when the .git found names no git dir
// (then WorkTree is still where it was).
func FindRepo(dir string) (r Repo, ok bool) {
	for d := dir; d != ""; d = filepath.Dir(d) {
		p := filepath.Join(d, ".git")
		if _, err := os.Lstat(p); err != nil {
			if filepath.Dir(d) == d {
				return Repo{}, false
			}
			continue
		}
		r = Repo{DotGit: p, WorkTree: d}
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			r.GitDir = p
		} else if b, err := readSmall(p); err == nil {
			target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
			if !ok {
				return r, false
			}
			r.GitDir = join(d, strings.TrimSpace(target))
		} else {
			return r, false
		}
		r.Common = r.GitDir
		if b, err := readSmall(filepath.Join(r.GitDir, "commondir")); err == nil {
			r.Common = join(r.GitDir, strings.TrimSpace(string(b)))
		}
		return r, true
	}
	return Repo{}, false
}

// join resolves p against base unless it is absolute.
func join(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}
