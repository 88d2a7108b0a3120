package gitconfig

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Scope is where a config file stands in git's order of reading.
type Scope uint8

const (
	System   Scope = iota // GIT_CONFIG_SYSTEM or /etc/gitconfig
	Global                // GIT_CONFIG_GLOBAL, or the XDG file and ~/.gitconfig
	Local                 // the repository's config
	Worktree              // the worktree's config.worktree
)

// A File is a config file git reads, and its scope.
type File struct {
	Path  string
	Scope Scope
}

// SystemFile is the system config file of git as commonly built.
const SystemFile = "/etc/gitconfig"

// Files are the config files a git command started in dir reads, in
// git's order (a later value wins; a file's includes stand where it
// names them, see Includes), as git-config(1) FILES and git(1)
// ENVIRONMENT give them: the system file (GIT_CONFIG_SYSTEM, else
// SystemFile; none when GIT_CONFIG_NOSYSTEM is true); the global ones
// (GIT_CONFIG_GLOBAL, else $XDG_CONFIG_HOME/git/config, or
// $HOME/.config/git/config when XDG_CONFIG_HOME is unset or empty, then
// $HOME/.gitconfig); the config of the repository Discover finds (the
// common one, for a linked worktree or under GIT_COMMON_DIR; GIT_DIR's;
// a bare repository's when git finds dir or a folder above it to be one
// before a .git); and this worktree's config.worktree when that config
// sets extensions.worktreeConfig. A GIT_CONFIG_GLOBAL or
// GIT_CONFIG_SYSTEM set to "" names no file. lookup reads the
// environment the command runs with (os.LookupEnv).
//
// An error says the list is not certain: GIT_CONFIG_GLOBAL,
// GIT_CONFIG_SYSTEM, GIT_DIR or GIT_COMMON_DIR is a relative path (git reads it from the folder it
// is in, which changes as it starts: aliases from dir, the rest from the
// top of the work tree), GIT_CONFIG_NOSYSTEM is not a boolean, or the
// repository's config cannot be read for extensions.worktreeConfig. The
// files are still listed as best known (a relative path against dir).
func Files(dir string, lookup func(string) (string, bool)) ([]File, error) {
	var out []File
	var errs []error
	// path is v as git opens it: a relative one from the folder it is
	// in at the time, which is not certain.
	path := func(name, v string) string {
		if !filepath.IsAbs(v) {
			errs = append(errs, fmt.Errorf("%s is a relative path (%s), which git reads from more than one folder", name, v))
			return filepath.Join(dir, v)
		}
		return filepath.Clean(v)
	}
	noSystem := false
	if v, ok := lookup("GIT_CONFIG_NOSYSTEM"); ok {
		var err error
		if noSystem, err = parseBool(v); err != nil {
			errs = append(errs, fmt.Errorf("GIT_CONFIG_NOSYSTEM: %w", err))
		}
	}
	switch v, ok := lookup("GIT_CONFIG_SYSTEM"); {
	case noSystem || ok && v == "":
	case ok:
		out = append(out, File{path("GIT_CONFIG_SYSTEM", v), System})
	default:
		out = append(out, File{SystemFile, System})
	}
	if v, ok := lookup("GIT_CONFIG_GLOBAL"); ok {
		if v != "" {
			out = append(out, File{path("GIT_CONFIG_GLOBAL", v), Global})
		}
	} else {
		home, hasHome := lookup("HOME")
		if home == "" {
			home = "/" // git joins "" and "/.gitconfig"
		}
		if xdg, _ := lookup("XDG_CONFIG_HOME"); xdg != "" {
			out = append(out, File{path("XDG_CONFIG_HOME", filepath.Join(xdg, "git", "config")), Global})
		} else if hasHome {
			out = append(out, File{path("HOME", filepath.Join(home, ".config", "git", "config")), Global})
		}
		if hasHome {
			out = append(out, File{path("HOME", filepath.Join(home, ".gitconfig")), Global})
		}
	}
	r, ok, err := Discover(dir, lookup)
	if err != nil {
		errs = append(errs, err)
	}
	if ok {
		common := filepath.Join(r.Common, "config")
		out = append(out, File{common, Local})
		on, err := worktreeConfig(common)
		if err != nil {
			errs = append(errs, err)
		}
		if on || err != nil {
			out = append(out, File{filepath.Join(r.GitDir, "config.worktree"), Worktree})
		}
	}
	return out, errors.Join(errs...)
}

// Discover is the repository a git command started in dir works in,
// whose config and hooks it reads: the one GIT_DIR names (GIT_COMMON_DIR
// naming its common folder, GIT_WORK_TREE its work tree) when the
// environment lookup reads sets it; else FindRepo's, unless git's
// discovery meets a folder that is itself a git dir (a bare repository:
// HEAD, objects and refs) on the way up first, which git then takes. An
// error when GIT_DIR or GIT_COMMON_DIR is a relative path, which git
// reads from the folder it starts in, not certain here.
func Discover(dir string, lookup func(string) (string, bool)) (Repo, bool, error) {
	var errs []error
	env := func(name string) string {
		v, _ := lookup(name)
		if v != "" && !filepath.IsAbs(v) {
			errs = append(errs, fmt.Errorf("%s is a relative path (%s), which git reads from the folder it starts in", name, v))
		}
		return v
	}
	gd, common, wt := env("GIT_DIR"), env("GIT_COMMON_DIR"), env("GIT_WORK_TREE")
	r, ok := discover(dir)
	if gd != "" {
		r, ok = Repo{DotGit: join(dir, gd), GitDir: join(dir, gd), WorkTree: dir}, true
		r.Common = r.GitDir
		if c, err := readSmall(filepath.Join(r.GitDir, "commondir")); err == nil {
			r.Common = join(r.GitDir, strings.TrimSpace(string(c)))
		}
	}
	if ok && common != "" {
		r.Common = join(dir, common)
	}
	if ok && wt != "" {
		r.WorkTree = join(dir, wt)
	}
	return r, ok, errors.Join(errs...)
}

// discover is Discover without the environment.
func discover(dir string) (Repo, bool) {
	r, ok := FindRepo(dir)
	for d := dir; d != "" && !(ok && d == r.WorkTree); d = filepath.Dir(d) {
		if isGitDir(d) {
			b := Repo{DotGit: d, GitDir: d, Common: d}
			if c, err := readSmall(filepath.Join(d, "commondir")); err == nil {
				b.Common = join(d, strings.TrimSpace(string(c)))
			}
			return b, true
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return r, ok
}

// isGitDir reports whether dir looks like a git dir to git: a HEAD file
// and objects and refs folders.
func isGitDir(dir string) bool {
	head, err := os.Stat(filepath.Join(dir, "HEAD"))
	if err != nil || !head.Mode().IsRegular() {
		return false
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(dir, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// worktreeConfig reports whether a repository's config turns
// extensions.worktreeConfig on (git reads it there only, without
// includes; the last value wins).
func worktreeConfig(file string) (bool, error) {
	settings, err := ReadFile(file)
	if err != nil {
		return false, err
	}
	on := false
	for _, s := range settings {
		if s.Subsection != "" || !s.Is("extensions", "worktreeconfig") {
			continue
		}
		if on = s.NoValue; !on {
			if on, err = parseBool(s.Value); err != nil {
				return false, fmt.Errorf("%s: extensions.worktreeConfig: %w", file, err)
			}
		}
	}
	return on, nil
}

// parseBool reads a boolean as git does: true, yes, on, false, no, off
// in any case, "" for false, or an integer (k, m or g multiplying it),
// true unless 0.
func parseBool(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "true", "yes", "on":
		return true, nil
	case "false", "no", "off", "":
		return false, nil
	}
	n := strings.TrimRight(v, "kKmMgG")
	if len(v)-len(n) <= 1 {
		if i, err := strconv.ParseInt(n, 0, 64); err == nil {
			return i != 0, nil
		}
	}
	return false, fmt.Errorf("bad boolean value %q", v)
}

// EnvSettings are the settings git takes from the environment, after
// the files' and before -c's: GIT_CONFIG_KEY_n and GIT_CONFIG_VALUE_n
// for n below GIT_CONFIG_COUNT. An error when git would refuse them (a
// pair missing, a count that is not a number) or godwit does not read
// them (GIT_CONFIG_PARAMETERS, which git sets for the gits a git runs;
// an include, which may name any file).
func EnvSettings(lookup func(string) (string, bool)) ([]Setting, error) {
	if v, _ := lookup("GIT_CONFIG_PARAMETERS"); v != "" {
		return nil, errors.New("GIT_CONFIG_PARAMETERS sets git settings godwit does not read")
	}
	c, _ := lookup("GIT_CONFIG_COUNT")
	if c == "" {
		return nil, nil
	}
	count, err := strconv.Atoi(c)
	if err != nil || count < 0 {
		return nil, fmt.Errorf("GIT_CONFIG_COUNT is not a count: %q", c)
	}
	var out []Setting
	for i := range count {
		k, okK := lookup("GIT_CONFIG_KEY_" + strconv.Itoa(i))
		v, okV := lookup("GIT_CONFIG_VALUE_" + strconv.Itoa(i))
		sec, key, dot := strings.Cut(k, ".")
		if !okK || !okV || !dot {
			return nil, fmt.Errorf("GIT_CONFIG_KEY_%d or GIT_CONFIG_VALUE_%d is missing or not a key", i, i)
		}
		s := Setting{Section: sec, Key: key, Value: v}
		if j := strings.LastIndexByte(key, '.'); j >= 0 {
			s.Subsection, s.Key = key[:j], key[j+1:]
		}
		if s.Is("include", "path") || s.Is("includeif", "path") {
			return nil, fmt.Errorf("GIT_CONFIG_KEY_%d includes a file", i)
		}
		out = append(out, s)
	}
	return out, nil
}
