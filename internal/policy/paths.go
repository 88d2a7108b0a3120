package policy

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/godwit/godwit/internal/gitconfig"
	"github.com/godwit/godwit/tool"
)

// place says where a path is, as far as approval cares.
type place int

const (
	placeInside  place = iota // in the workspace
	placeScratch              // outside it, but in a folder writes may go to (TMPDIR, rules)
	placeDevice               // /dev/null and friends: reading or writing them is harmless
	placeOutside              // anywhere else
	placeUnknown              // computed at run time: cannot be known before the command runs
)

// devices are the files a command may write without that counting as a
// write.
var devices = nameSet("/dev/null /dev/zero /dev/full /dev/stdout /dev/stderr /dev/stdin /dev/tty /dev/random /dev/urandom")

// where classifies abs, an absolute path with symlinks resolved ("" is
// unknown).
func (p *Policy) where(abs string) place {
	switch {
	case abs == "":
		return placeUnknown
	case devices.has(abs) || strings.HasPrefix(abs, "/dev/fd/") || strings.HasPrefix(abs, "/proc/self/fd/"):
		return placeDevice
	case within(p.root, abs):
		return placeInside
	}
	for _, d := range p.scratch {
		if within(d, abs) {
			return placeScratch
		}
	}
	return placeOutside
}

// rel is abs relative to the workspace with forward slashes, or abs
// itself when it is outside.
func (p *Policy) rel(abs string) string {
	if r := relTo(p.root, abs); r != "" {
		return r
	}
	return filepath.ToSlash(abs)
}

// relTo is abs relative to root with forward slashes, "" when outside.
func relTo(root, abs string) string {
	if !within(root, abs) {
		return ""
	}
	r, err := filepath.Rel(root, abs)
	if err != nil {
		return ""
	}
	return filepath.ToSlash(r)
}

// within reports whether abs is dir or below it.
func within(dir, abs string) bool {
	if dir == "" || abs == "" {
		return false
	}
	if abs == dir {
		return true
	}
	if !strings.HasSuffix(dir, string(filepath.Separator)) {
		dir += string(filepath.Separator)
	}
	return strings.HasPrefix(abs, dir)
}

// isSecret reports whether a path names a secrets file (tool.IsSecret:
// one list for the policy and for the tools that walk folders).
func isSecret(p string) bool { return tool.IsSecret(p) }

// protected are workspace files whose change would grant the agent more
// than the user did: godwit's own, the project's MCP servers, git hooks
// and config (which run programs later, as the user), and the files hook
// managers run from git's hooks (husky, pre-commit, lefthook,
// overcommit). Writing them asks in every mode, after any Always.
var protected = []string{".godwit/**", ".mcp.json", "**/.git", "**/.git/config", "**/.git/config.worktree",
	"**/.git/commondir", "**/.git/hooks", "**/.git/hooks/**", "**/.git/modules/**/config", "**/.git/modules/**/hooks/**",
	"**/.git/worktrees/*/config.worktree",
	"**/.husky/**", "**/.pre-commit-config.{yaml,yml}",
	"**/{,.config/}{,.}lefthook{,-local}.{yml,yaml,toml,json,jsonc}", "**/.lefthook{,-local}/**",
	"**/.overcommit.yml", "**/.git-hooks/**"}

func (p *Policy) isProtected(abs string) bool {
	for _, gd := range p.gitDirs {
		if abs == gd || abs == filepath.Join(gd, "config") || abs == filepath.Join(gd, "config.worktree") || within(filepath.Join(gd, "hooks"), abs) {
			return true
		}
	}
	for _, d := range p.hookDirs {
		if within(d, abs) {
			return true
		}
	}
	if !within(p.root, abs) {
		return false
	}
	rel := p.rel(abs)
	for _, pat := range protected {
		if ok, _ := doublestar.Match(pat, rel); ok {
			return true
		}
	}
	return false
}

// hookDirs are the folders git runs hooks from besides .git/hooks: each
// core.hooksPath in a config file git reads in root (includes followed),
// resolved against the top of the work tree, and for husky's wrappers
// (.husky/_) the folder above. An error when a config file does not parse.
func hookDirs(root string, env func(string) (string, bool)) ([]string, error) {
	top := repoRoot(root)
	if top == "" {
		return nil, nil
	}
	settings, _, err := gitSettings(root, env)
	home, _ := env("HOME")
	var out []string
	for _, s := range settings {
		v := s.Value
		switch {
		case !s.Is("core", "hookspath") || s.Subsection != "" || v == "":
			continue
		case v == "~" || strings.HasPrefix(v, "~/"):
			if home == "" {
				continue
			}
			v = filepath.Join(home, v[1:])
		}
		d := resolveIn(top, v)
		if within(d, root) {
			continue // the workspace or above: it cannot all ask (gitguard skips it too)
		}
		out = append(out, d)
		if filepath.Base(d) == "_" {
			out = append(out, filepath.Dir(d))
		}
	}
	return out, err
}

// linkedGitDirs are the git folder a .git file (or link) at root points
// to, and its common folder (a worktree's): none when .git is a folder
// or absent.
func linkedGitDirs(root string) []string {
	r, ok := gitconfig.FindRepo(root)
	if fi, err := os.Lstat(filepath.Join(root, ".git")); err != nil || fi.IsDir() || !ok {
		return nil
	}
	out := []string{kernelPath(r.GitDir)}
	if r.Common != r.GitDir {
		out = append(out, kernelPath(r.Common))
	}
	return out
}

// maxLinks bounds symlink hops, as the kernel's ELOOP limit does.
const maxLinks = 40

// kernelPath resolves an absolute path the way open(2) walks it: each
// symlink is followed when met, so a later ".." leaves the link's
// target, not the link. Parts that do not exist are appended as written.
func kernelPath(p string) string {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return walkPath(p, 0)
}

func walkPath(p string, hops int) string {
	vol := filepath.VolumeName(p)
	sep := string(filepath.Separator)
	cur := vol + sep
	missing := false
	for _, c := range strings.Split(p[len(vol):], sep) {
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		if missing {
			cur = next
			continue
		}
		fi, err := os.Lstat(next)
		switch {
		case err != nil:
			missing = true
			cur = next
		case fi.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(next)
			if err != nil || hops >= maxLinks {
				missing = true
				cur = next
				continue
			}
			if !filepath.IsAbs(target) {
				target = cur + sep + target
			}
			cur = walkPath(target, hops+1)
		default:
			cur = next
		}
	}
	return cur
}
