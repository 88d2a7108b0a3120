package policy

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
)

// Git hooks and git's configuration run programs later, as the user and
// outside any sandbox (a hook at the next commit, core.fsmonitor at the
// next git status, an alias). So a shell command that may change them
// asks in every mode, --yes included, as a file tool's write to them
// does: a command whose arguments name a protected file or a folder
// holding one (cp x .git/hooks/, ln -s, install, rsync, mv, tee, dd
// of=.git/config, a redirect), git config setting a key that is not on
// a short list of harmless ones (core.hooksPath, core.fsmonitor,
// core.pager, alias.*, diff.*.textconv, filter.* ...), git -c with such
// a key, git init or clone with --template, and the variables that point
// git at another configuration (GIT_CONFIG_*). What the analysis cannot
// see (a script, tar -x, a program writing on its own) is caught after
// the fact: the safety layer compares .git/hooks and .git/config after
// each command and restores them.

// gitSafeKeys are the git settings that run nothing and point nowhere;
// setting any other asks in every mode. Section and key are matched
// without case, "*" stands for a subsection.
var gitSafeKeys = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, k := range strings.Fields(`user.name user.email user.signingkey
		core.autocrlf core.eol core.filemode core.ignorecase core.quotepath core.whitespace core.compression core.abbrev
		core.safecrlf core.symlinks core.precomposeunicode core.longpaths core.checkstat core.trustctime
		init.defaultbranch pull.rebase pull.ff push.default push.autosetupremote push.followtags fetch.prune fetch.prunetags
		merge.ff merge.conflictstyle rebase.autosquash rebase.autostash rebase.updaterefs
		diff.renames diff.algorithm diff.colormoved diff.noprefix diff.mnemonicprefix diff.context diff.indentheuristic
		status.short status.branch status.showuntrackedfiles status.relativepaths
		branch.*.remote branch.*.merge branch.*.rebase branch.autosetupmerge branch.sort
		remote.*.url remote.*.pushurl remote.*.fetch remote.*.push remote.*.tagopt remote.*.prune
		log.date log.decorate log.abbrevcommit log.follow rerere.enabled commit.verbose commit.cleanup tag.sort column.ui
		blame.date grep.linenumber gc.auto pack.threads protocol.version format.pretty pretty.* advice.* color.*`) {
		m[k] = true
	}
	return m
})

// gitKeySafe reports whether setting key runs no program.
func gitKeySafe(key string) bool {
	sec, rest, ok := strings.Cut(strings.ToLower(key), ".")
	if !ok || rest == "" {
		return false
	}
	safe := gitSafeKeys()
	if i := strings.LastIndexByte(rest, '.'); i >= 0 {
		return safe[sec+".*."+rest[i+1:]] || safe[sec+".*"]
	}
	return safe[sec+"."+rest] || safe[sec+".*"]
}

// gitEnvVars point git at configuration, programs or templates other
// than the repository's: setting one is git -c in disguise.
var gitEnvVars = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^GIT_(CONFIG(_.*)?|EXEC_PATH|TEMPLATE_DIR|DIR|COMMON_DIR|WORK_TREE)$`)
})

// protectedItems are the changes to git hooks and configuration a
// command that is not read-only may make: they ask in every mode.
func (p *Policy) protectedItems(toolName string, c SimpleCommand) []item {
	var out []item
	add := func(what string) {
		out = append(out, item{kind: kindTool, level: levelEscape, what: what})
	}
	for _, n := range c.Assigns {
		if gitEnvVars().MatchString(n) {
			add("sets " + n + ", which makes git read configuration or run programs from elsewhere")
		}
	}
	seen := map[string]bool{}
	for _, w := range c.Words[1:] {
		for _, abs := range p.argPaths(w, c.Dir) {
			if !seen[abs] && p.touchesProtected(abs) {
				seen[abs] = true
				add("names " + p.rel(abs) + ", which can run programs later (git hooks and configuration ask in every mode)")
			}
		}
	}
	if c.Name() == "git" || baseName(c.Name()) == "git" {
		for _, why := range gitConfigChanges(c.Words[1:]) {
			add(why)
		}
	}
	return out
}

// argPaths are the paths a word may name: the word itself, the value of
// --opt=VALUE or key=VALUE (dd of=), and what a glob matches.
func (p *Policy) argPaths(w Word, dir string) []string {
	if !w.Known {
		return nil
	}
	vals := []string{w.Value}
	if _, v, ok := strings.Cut(w.Value, "="); ok && v != "" {
		vals = append(vals, v)
	}
	var out []string
	for _, v := range vals {
		if !w.Glob {
			if abs := resolveIn(dir, v); abs != "" {
				out = append(out, abs)
			}
			continue
		}
		pattern := v
		if !filepath.IsAbs(pattern) {
			if dir == "" {
				continue
			}
			pattern = filepath.Join(dir, pattern)
		}
		base, pat := doublestar.SplitPattern(filepath.ToSlash(pattern))
		n, dirs := 0, maxGlobDirs
		fsys := budgetFS{FS: os.DirFS(filepath.FromSlash(base)), left: &dirs}
		dots := strings.Contains("/"+pat, "/.")
		_ = doublestar.GlobWalk(fsys, pat, func(m string, _ os.DirEntry) error {
			if n++; n > maxGlobMatches {
				return errTooMany
			}
			if !dots && strings.Contains("/"+m, "/.") {
				return nil // bash's globs pass over dot files
			}
			out = append(out, kernelPath(filepath.Join(filepath.FromSlash(base), filepath.FromSlash(m))))
			return nil
		})
	}
	return out
}

// touchesProtected reports whether a command naming abs may change a
// protected file: abs is one, is inside one (.git/hooks/x), or is a
// folder of the workspace that holds the repository's .git (cp -r x/
// .git, mv y .git).
func (p *Policy) touchesProtected(abs string) bool {
	if p.isProtected(abs) {
		return true
	}
	if !within(p.root, abs) {
		return false
	}
	// A .git folder named with a trailing part that does not exist yet
	// (.git/hooks-new) is still inside .git.
	rel := p.rel(abs)
	return rel == ".git" || strings.HasPrefix(rel, ".git/") || strings.Contains(rel, "/.git/") || strings.HasSuffix(rel, "/.git")
}

// gitConfigChanges finds what a git command line changes in git's
// configuration that can run programs: git -c KEY=V, git config KEY V,
// --template, clone -c.
func gitConfigChanges(args []Word) []string {
	var out []string
	i := 0
	for ; i < len(args); i++ {
		v := args[i].Value
		switch {
		case !args[i].Known:
			return append(out, "runs git with an option computed at run time, which could set a program to run")
		case v == "-c" && i+1 < len(args):
			i++
			if k, _, _ := strings.Cut(args[i].Value, "="); !args[i].Known || !gitKeySafe(k) {
				out = append(out, "git -c "+args[i].Value+" sets a git setting that can run a program")
			}
			continue
		case strings.HasPrefix(v, "--config-env"):
			out = append(out, "git "+v+" sets a git setting from the environment")
			continue
		case v == "-C" || v == "--git-dir" || v == "--work-tree" || v == "--namespace" || v == "--exec-path":
			if !strings.Contains(v, "=") {
				i++
			}
			continue
		case strings.HasPrefix(v, "--exec-path=") || strings.HasPrefix(v, "--git-dir=") || strings.HasPrefix(v, "--work-tree="):
			continue
		case strings.HasPrefix(v, "-"):
			continue
		}
		break
	}
	if i >= len(args) {
		return out
	}
	sub, rest := args[i].Value, args[i+1:]
	switch sub {
	case "config":
		out = append(out, gitConfigWrite(rest)...)
	case "init", "clone", "submodule":
		for k, a := range rest {
			v := a.Value
			switch {
			case strings.HasPrefix(v, "--template"):
				out = append(out, "git "+sub+" "+v+" copies hooks from a template")
			case (v == "-c" || v == "--config") && k+1 < len(rest):
				if key, _, _ := strings.Cut(rest[k+1].Value, "="); !gitKeySafe(key) {
					out = append(out, "git "+sub+" "+v+" "+rest[k+1].Value+" sets a git setting that can run a program")
				}
			case strings.HasPrefix(v, "--config="):
				if key, _, _ := strings.Cut(strings.TrimPrefix(v, "--config="), "="); !gitKeySafe(key) {
					out = append(out, "git "+sub+" "+v+" sets a git setting that can run a program")
				}
			}
		}
	}
	return out
}

// gitConfigWrite: a write of git config (set, unset, --add, --edit,
// sections) asks in every mode unless it sets a harmless key of the
// repository's own configuration.
func gitConfigWrite(rest []Word) []string {
	var keys []string
	global, edit, reads := false, false, false
	verb := ""
	for k, a := range rest {
		v := a.Value
		switch {
		case !a.Known:
			return []string{"git config with an argument computed at run time may set a program to run"}
		case k == 0 && !strings.HasPrefix(v, "-"):
			verb = v
			switch v {
			case "get", "list":
				reads = true
			case "edit":
				edit = true
			case "set", "unset", "rename-section", "remove-section":
			default:
				keys = append(keys, v)
				verb = ""
			}
		case v == "--global" || v == "--system" || v == "--file" || v == "-f" || strings.HasPrefix(v, "--file=") || v == "--blob":
			global = true
		case v == "--edit" || v == "-e":
			edit = true
		case v == "--get" || v == "--get-all" || v == "--get-regexp" || v == "--list" || v == "-l" || v == "--get-urlmatch" || v == "--get-color" || v == "--get-colorbool":
			reads = true
		case strings.HasPrefix(v, "-"):
		default:
			keys = append(keys, v)
		}
	}
	switch {
	case reads && verb != "set" && verb != "unset":
		return nil
	case edit:
		return []string{"git config --edit changes git's configuration in an editor"}
	case global:
		return []string{"git config writes a configuration file outside the repository (--global, --system, --file)"}
	}
	if verb == "rename-section" || verb == "remove-section" {
		return []string{"git config " + verb + " changes settings that can run programs"}
	}
	if len(keys) > 0 && !gitKeySafe(keys[0]) {
		return []string{"git config " + keys[0] + " sets a git setting that can run a program or point git elsewhere"}
	}
	return nil
}
