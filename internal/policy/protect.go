package policy

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/godwit/godwit/internal/gitconfig"
)

// Git hooks and configuration run programs later, outside any sandbox:
// a command that may change them asks in every mode, --yes included.

// gitSafeKeys are the settings that run nothing (programs.txt).
var gitSafeKeys = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, l := range table("git-safe-keys") {
		for _, k := range strings.Fields(l) {
			m[k] = true
		}
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
var gitEnvVars = lazyRE(`^GIT_(CONFIG(_.*)?|EXEC_PATH|TEMPLATE_DIR|DIR|COMMON_DIR|WORK_TREE)$`)

// protectedItems are the changes to git hooks and configuration a
// command that is not read-only may make: they ask in every mode.
func (p *Policy) protectedItems(toolName string, c SimpleCommand) []item {
	var out []item
	add := func(what string) {
		out = append(out, item{kind: kindTool, level: levelEscape, what: what, pinned: true})
	}
	for _, n := range c.Assigns {
		if gitEnvVars().MatchString(n) {
			add("sets " + n + ", which makes git read configuration or run programs from elsewhere")
		}
	}
	seen := map[string]bool{}
	for _, w := range c.Words[1:] {
		paths, complete := p.argPaths(w, c.Dir)
		if !complete {
			add("names more than " + strconv.Itoa(p.globMatches) + " files matching " + w.Value + ", which may be git's hooks or configuration")
		}
		for _, abs := range paths {
			if !seen[abs] && p.touchesProtected(abs) {
				seen[abs] = true
				add("names " + p.rel(abs) + ", which can run programs later (git hooks and configuration ask in every mode)")
			}
		}
	}
	if w := unknownTarget(c); w != "" {
		add("writes to `" + w + "`, a path computed at run time, which could be git's hooks or configuration")
	}
	if baseName(c.Name()) == "git" {
		for _, why := range gitConfigChanges(c.Words[1:], c.Dir) {
			add(why)
		}
	}
	return out
}

// placers are the programs that put a file where an argument says: a
// target the analysis cannot know could be .git/hooks or .git/config,
// as a redirect to a computed path could.
var placers = nameSet("cp mv ln link install rsync tee dd")

// unknownTarget returns the word a placer writes to, or may take as an
// option, that cannot be known ("" when there is none): cp's last
// operand or -t value, any word of tee or dd, a computed word that may
// be an option. A file name find puts in an -exec command ({}) is never
// an option, so it matters only as the target.
func unknownTarget(c SimpleCommand) string {
	name := baseName(c.Name())
	if !placers.has(name) {
		return ""
	}
	args := c.Words[1:]
	var ops []Word
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.findName:
			if name == "tee" || name == "dd" {
				return a.Value
			}
			ops = append(ops, a)
		case !a.Known:
			return a.Value // the target, or an option such as -t DIR
		case a.Value == "--":
			for _, o := range args[i+1:] {
				if !o.Known {
					return o.Value
				}
			}
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case a.Value == "-t" && i+1 < len(args) && name != "tee":
			i++
			ops = nil
			if !args[i].Known {
				return args[i].Value
			}
			return "" // the target is the folder -t names, checked as a path
		case strings.HasPrefix(a.Value, "-") && a.Value != "-":
		default:
			ops = append(ops, a)
		}
	}
	if name != "tee" && name != "dd" && len(ops) > 0 && !ops[len(ops)-1].Known {
		return ops[len(ops)-1].Value
	}
	return ""
}

// argPaths are the paths a word may name: the word itself, the value of
// --opt=VALUE or key=VALUE (dd of=), and what a glob matches; false when
// a glob matches more than can be listed.
func (p *Policy) argPaths(w Word, dir string) ([]string, bool) {
	if !w.Known {
		return nil, true
	}
	vals := []string{w.Value}
	if _, v, ok := strings.Cut(w.Value, "="); ok && v != "" {
		vals = append(vals, v)
	}
	var out []string
	complete := true
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
		complete = p.globWalk(pattern, true, func(abs string) { out = append(out, abs) }) && complete
	}
	return out, complete
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
// configuration that can run programs or point the user's later fetches
// and pushes elsewhere. Other subcommands that write .git/config are
// harmless (docs/safety.md says why): branch -u, checkout --track,
// submodule add, worktree add, init in a repository.
func gitConfigChanges(args []Word, dir string) []string {
	var out []string
	sub, rest, globals, _ := gitSub(args)
	for _, g := range globals {
		switch {
		case g.opt.short == 'c' && g.has:
			if k, _, _ := strings.Cut(g.value.Value, "="); !g.value.Known || !gitKeySafe(k) {
				out = append(out, "git -c "+g.value.Value+" sets a git setting that can run a program")
			}
		case g.opt.long == "config-env":
			out = append(out, "git "+g.as+" sets a git setting from the environment")
		}
	}
	if !sub.Known {
		if sub.Value != "" || len(rest) > 0 {
			out = append(out, "runs git with a subcommand or option computed at run time, which could set a program to run")
		}
		return out
	}
	if sub.Value == "" {
		for _, a := range args {
			if !a.Known {
				return append(out, "runs git with an option computed at run time, which could set a program to run")
			}
		}
		return out
	}
	first := ""
	for _, a := range rest {
		if !strings.HasPrefix(a.Value, "-") {
			first = a.Value
			break
		}
	}
	switch sub.Value {
	case "config":
		out = append(out, gitConfigWrite(rest, dir)...)
	case "remote":
		if first == "add" || first == "set-url" {
			out = append(out, "git remote "+first+" points a remote at a place the user has not chosen, which the user's later fetches and pushes follow")
		}
	case "push", "fetch", "pull":
		if why := gitUpstreamURL(sub.Value, rest, dir); why != "" {
			out = append(out, why)
		}
	case "lfs":
		if first == "install" || first == "update" {
			out = append(out, "git lfs "+first+" writes git hooks and filter settings")
		}
	case "maintenance":
		if first == "start" || first == "register" {
			out = append(out, "git maintenance "+first+" schedules git to run later")
		}
	}
	switch sub.Value {
	case "init", "clone", "submodule":
		for k, a := range rest {
			v := a.Value
			switch {
			case strings.HasPrefix(v, "--template"):
				out = append(out, "git "+sub.Value+" "+v+" copies hooks from a template")
			case strings.HasPrefix(v, "--separate-git-dir") && sub.Value == "init":
				out = append(out, "git init "+v+" moves the repository's git folder where its hooks and config are not guarded")
			case (v == "-c" || v == "--config") && k+1 < len(rest):
				if key, _, _ := strings.Cut(rest[k+1].Value, "="); !gitKeySafe(key) {
					out = append(out, "git "+sub.Value+" "+v+" "+rest[k+1].Value+" sets a git setting that can run a program")
				}
			case strings.HasPrefix(v, "--config="):
				if key, _, _ := strings.Cut(strings.TrimPrefix(v, "--config="), "="); !gitKeySafe(key) {
					out = append(out, "git "+sub.Value+" "+v+" sets a git setting that can run a program")
				}
			}
		}
	}
	return out
}

// gitUpstreamURL: push, fetch or pull with -u/--set-upstream records
// the remote in branch.*.remote; a URL or path there, rather than a
// remote the repository has, points the user's later pulls elsewhere.
func gitUpstreamURL(sub string, rest []Word, dir string) string {
	set := false
	var ops []Word
	for _, a := range rest {
		v := a.Value
		switch {
		case v == "--set-upstream" || (v == "-u" && sub != "fetch" && sub != "pull") || strings.HasPrefix(v, "--set-up"):
			set = true
		case len(v) > 1 && v[0] == '-' && v[1] != '-' && sub == "push" && strings.ContainsRune(v[1:], 'u'):
			set = true // -fu
		case !strings.HasPrefix(v, "-"):
			ops = append(ops, a)
		}
	}
	if !set || len(ops) == 0 {
		return ""
	}
	r := ops[0]
	if r.Literal() && (r.Value == "." || slices.Contains(gitRemotes(dir), r.Value)) {
		return ""
	}
	return "git " + sub + " --set-upstream " + r.Value + " records a place that is not one of the repository's remotes as the branch's upstream"
}

// gitRemotes are the remotes named in the repository's config.
func gitRemotes(dir string) []string {
	gd := gitDirOf(dir)
	if gd == "" {
		return nil
	}
	settings, _ := gitconfig.ReadFile(filepath.Join(gd, "config")) // none when it does not parse: the remote asks
	var out []string
	for _, s := range settings {
		if strings.EqualFold(s.Section, "remote") && s.Subsection != "" && !slices.Contains(out, s.Subsection) {
			out = append(out, s.Subsection)
		}
	}
	return out
}

// gitConfigWrite: a write of git config (set, unset, --add, --edit,
// sections) asks in every mode unless it sets a harmless key of the
// repository's own configuration.
func gitConfigWrite(rest []Word, dir string) []string {
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
	if len(keys) > 1 && gitRemoteKey(keys[0]) && keys[1] != "." && !slices.Contains(gitRemotes(dir), keys[1]) {
		return []string{"git config " + keys[0] + " " + keys[1] + " names a place that is not one of the repository's remotes"}
	}
	return nil
}

// gitRemoteKey reports branch.NAME.remote, which may name a remote or a
// URL; only a remote the repository has is harmless.
func gitRemoteKey(key string) bool {
	k := strings.ToLower(key)
	return strings.HasPrefix(k, "branch.") && strings.HasSuffix(k, ".remote")
}
