package gitguard

import (
	"os"
	"path/filepath"
	"strings"
)

// repo is where a repository keeps its control files.
type repo struct {
	dotGit   string // the workspace's .git (or an ancestor's): a folder, or a file naming the git dir
	gitDir   string // this worktree's git dir
	common   string // the shared git dir (config, hooks, modules); gitDir unless a linked worktree
	workTree string // the top of the working tree
}

// findRepo finds the repository holding dir, as git does: the first
// .git going up. A .git file ("gitdir: PATH") is a linked worktree or a
// submodule.
func findRepo(dir string) (repo, bool) {
	for d := dir; ; {
		p := filepath.Join(d, ".git")
		if fi, err := os.Lstat(p); err == nil {
			r := repo{dotGit: p, workTree: d}
			switch {
			case fi.IsDir():
				r.gitDir = p
			case fi.Mode().IsRegular():
				b, err := os.ReadFile(p)
				target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
				if err != nil || !ok {
					return repo{}, false
				}
				r.gitDir = abs(d, strings.TrimSpace(target))
			default:
				return repo{}, false
			}
			r.common = r.gitDir
			if b, err := os.ReadFile(filepath.Join(r.gitDir, "commondir")); err == nil {
				r.common = abs(r.gitDir, strings.TrimSpace(string(b)))
			}
			return r, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return repo{}, false
		}
		d = parent
	}
}

// gitDirs lists the git dirs whose config and hooks are guarded: the
// shared one, this worktree's, and every submodule's under modules/
// (which may nest).
func (r repo) gitDirs() []string {
	dirs := []string{r.common}
	if r.gitDir != r.common {
		dirs = append(dirs, r.gitDir)
	}
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		if depth > 4 || len(dirs) > maxGitDirs {
			return
		}
		ents, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range ents {
			if !e.IsDir() {
				continue
			}
			sub := filepath.Join(dir, e.Name())
			if _, err := os.Lstat(filepath.Join(sub, "HEAD")); err == nil {
				dirs = append(dirs, sub)
				walk(filepath.Join(sub, "modules"), depth+1)
			} else {
				walk(sub, depth+1) // a submodule named a/b lives in modules/a/b
			}
		}
	}
	walk(filepath.Join(r.common, "modules"), 0)
	return dirs
}

// maxGitDirs bounds the submodules guarded.
const maxGitDirs = 200

// worktreeConfigs lists the per-worktree config files of the shared git
// dir's linked worktrees.
func (r repo) worktreeConfigs() []string {
	ents, err := os.ReadDir(filepath.Join(r.common, "worktrees"))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, filepath.Join(r.common, "worktrees", e.Name(), "config.worktree"))
		}
	}
	return out
}

// abs resolves p against base unless it is absolute.
func abs(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// expandHome resolves git's "~/" and relative paths.
func expandHome(p, home, base string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok && home != "" {
		return filepath.Join(home, rest)
	}
	if p == "~" && home != "" {
		return home
	}
	return abs(base, p)
}
