package gitguard

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/godwit/godwit/internal/gitconfig"
)

// gitDirs lists the git dirs whose config and hooks are guarded: the
// shared one, this worktree's, and every submodule's under modules/
// (which may nest).
func gitDirs(r gitconfig.Repo) []string {
	dirs := []string{r.Common}
	if r.GitDir != r.Common {
		dirs = append(dirs, r.GitDir)
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
	walk(filepath.Join(r.Common, "modules"), 0)
	return dirs
}

// maxGitDirs bounds the submodules guarded.
const maxGitDirs = 200

// worktreeConfigs lists the per-worktree config files of the shared git
// dir's linked worktrees.
func worktreeConfigs(r gitconfig.Repo) []string {
	ents, err := os.ReadDir(filepath.Join(r.Common, "worktrees"))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, filepath.Join(r.Common, "worktrees", e.Name(), "config.worktree"))
		}
	}
	return out
}

// expandHome resolves git's "~/" and relative paths.
func expandHome(p, home, base string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok && home != "" {
		return filepath.Join(home, rest)
	}
	if p == "~" && home != "" {
		return home
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}
