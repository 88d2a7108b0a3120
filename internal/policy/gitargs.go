package policy

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/godwit/godwit/internal/gitconfig"
)

// Deny and ask rules match git without its own options and through its
// aliases; an option the table does not know asks where a rule exists.

// gitGlobals is git's own option table (git(1), OPTIONS).
var gitGlobals = sync.OnceValue(func() getopt {
	g := specOf("git")
	g.stop, g.exact = true, true
	return g
})

var gitSubPrograms = sync.OnceValue(func() map[string][]string { return tableMap("git-runs") })

// gitRuns are the commands a git command line runs or stands for: git
// without its own options, an alias's expansion, the program a setting
// given with -c names (a pager, an editor), and the commands of rebase
// --exec, bisect run, submodule foreach and the like.
func (u *unwrapper) gitRuns(c SimpleCommand, args []Word, depth int) unwrapped {
	var out unwrapped
	sub, rest, globals, why := gitSub(args)
	if why != "" {
		out.hide("git: " + why)
		return out
	}
	for _, n := range append(slices.Clip(c.Assigns), u.gitEnv) {
		if n != "" && gitConfigVars().MatchString(n) {
			out.hide("it sets " + n + ", which changes the config git reads (its aliases, its hooks folder) or the git-<name> programs it finds")
			break
		}
	}
	dir := c.Dir
	aliases := map[string]string{}
	for _, o := range globals {
		switch {
		case o.opt.short == 'C' && o.has:
			if o.value.Literal() && dir != "" {
				dir = resolveIn(dir, o.value.Value)
			} else {
				dir = ""
			}
		case o.opt.short == 'c' && o.has:
			if !o.value.Known {
				out.hide("git -c sets a setting computed at run time")
				continue
			}
			key, val, ok := strings.Cut(o.value.Value, "=")
			if !ok || gitKeySafe(key) {
				continue
			}
			sec, name, _ := strings.Cut(key, ".")
			if strings.EqualFold(sec, "remote") || strings.EqualFold(sec, "url") {
				out.hide("git -c " + key + " sets where a remote is, which may be another repository on disk")
				continue
			}
			if strings.EqualFold(sec, "alias") {
				aliases[strings.ToLower(name)] = val
				if !strings.HasPrefix(val, "!") {
					continue // a git alias, expanded below
				}
			}
			// The value is a program or a shell command (a pager, an
			// editor, a shell alias).
			out.add(u.inner(Word{Value: strings.TrimPrefix(val, "!"), Known: true}, c, depth))
		case o.opt.long == "config-env":
			out.hide("git --config-env sets a setting from the environment")
		case o.opt.long == "git-dir":
			out.hide("git --git-dir names a repository whose config (its aliases, its hooks folder) is not read")
		case o.opt.long == "exec-path" && o.has:
			out.hide("git --exec-path names the folder git runs a git-<command> program from")
		}
	}
	if dir == "" {
		out.hide("git runs in a folder known only at run time, whose repository's config (its aliases) is not known")
	} else if why := u.p.gitRepoWhy(dir); why != "" {
		out.hide(why)
	} else if r, ok := gitconfig.FindRepo(dir); u.writes.any && (!ok || dir != r.WorkTree) {
		// git takes the first folder going up that holds a .git or is a
		// git dir: one the line makes before git runs is not read now.
		out.hide("the line may make a repository in " + dir + " or a folder above it before git runs there")
	}
	if sub == (Word{}) {
		return out
	}
	if len(rest)+1 < len(args) {
		out.variants = append(out.variants, append([]Word{c.Words[0], sub}, rest...))
	}
	if !sub.Literal() {
		return out
	}
	settings, files, err := gitSettings(dir, u.p.env)
	if err != nil {
		out.hide("git's config cannot be read for its aliases (" + oneLine(err.Error(), 80) + ")")
	}
	out.hide(u.gitReach(dir, sub.Value, rest, settings))
	if d := u.p.pathDir; d != "" && !gitCommands.has(sub.Value) {
		// Git runs git-<name> from PATH before it looks for an alias.
		out.hide("PATH holds " + d + ", a folder of the workspace, where git may find a git-" + sub.Value + " program to run")
	}
	val, fromLine := aliases[strings.ToLower(sub.Value)]
	if !fromLine {
		for _, s := range settings {
			if s.Subsection == "" && s.Is("alias", sub.Value) {
				val = s.Value // the last value wins, as in git
			}
		}
		for _, f := range files {
			// The repository's own .git is the sandbox's to keep; a file
			// it includes, or a nested repository's, the line may write.
			if u.writes.may(f) && within(u.p.root, f) && !within(filepath.Join(u.p.root, ".git"), f) {
				out.hide("the line may change " + f + ", a config file git reads (its aliases), before git runs")
				break
			}
		}
	}
	switch {
	case val == "":
	case strings.HasPrefix(val, "!"):
		if !fromLine { // a -c alias was looked into above
			out.add(u.inner(joinWords(append([]Word{{Value: val[1:], Known: true}}, rest...)), c, depth))
		}
	case depth+1 >= maxUnwrap:
		out.hide("git aliases nest deeper than godwit follows")
	default:
		words := u.splitWords(Word{Value: val, Known: true})
		if words == nil {
			out.hide("git alias " + sub.Value + " cannot be read")
			break
		}
		nc := SimpleCommand{Words: append(append([]Word{c.Words[0]}, words...), rest...), Dir: c.Dir, Stdin: c.Stdin}
		out.add(u.variants(nc, depth+1))
	}
	switch sub.Value {
	case "bisect":
		if len(rest) > 1 && rest[0].Value == "run" {
			ic := SimpleCommand{Words: rest[1:], Dir: c.Dir, Stdin: c.Stdin}
			out.addInner(ic, u.variants(ic, depth+1))
		}
	case "submodule":
		for i, a := range rest {
			if a.Value != "foreach" {
				continue
			}
			cmd := rest[i+1:]
			for len(cmd) > 0 && strings.HasPrefix(cmd[0].Value, "-") {
				cmd = cmd[1:]
			}
			if len(cmd) > 0 {
				each := c
				each.Dir = "" // each submodule's folder, with its own config
				out.add(u.inner(joinWords(cmd), each, depth))
			}
			break
		}
	}
	if opts := gitSubPrograms()[sub.Value]; opts != nil {
		out.add(u.programOptions(c, rest, depth, opts...))
	}
	return out
}

// gitConfigVars are the variables that change the config a git command
// reads: where its files are (gitconfig.Files), which repository's,
// and settings of their own; and PATH, where git finds the git-<name>
// program it runs for a command it does not have.
var gitConfigVars = lazyRE(`^(HOME|XDG_CONFIG_HOME|GIT_CONFIG.*|GIT_DIR|GIT_COMMON_DIR|PATH)$`)

// gitEnvSet is a variable of gitConfigVars that sc assigns, "" if none: a
// git command after it (or in a loop with it) may read other config.
func gitEnvSet(sc Script) string {
	names := slices.Clone(sc.Sets)
	for _, c := range sc.Commands {
		if len(c.Words) == 0 || c.Decl != "" {
			names = append(names, c.Assigns...)
		}
	}
	for _, n := range names {
		if gitConfigVars().MatchString(n) {
			return n
		}
	}
	return ""
}

// gitSub splits a git command line (the words after git) into git's own
// options, its subcommand (the zero Word when there is none) and the
// subcommand's arguments; why says why git's options cannot be read.
func gitSub(args []Word) (sub Word, rest []Word, globals []used, why string) {
	g := gitGlobals()
	pa := g.parse(args, "")
	if pa.why == "" {
		if len(pa.operands) == 0 {
			return Word{}, nil, pa.used, ""
		}
		return pa.operands[0], pa.operands[1:], pa.used, ""
	}
	// An option the table does not know (a newer git's): take the first
	// word that is not an option, as git would if the option took no
	// value, so the subcommand is still judged.
	globals = nil
	for i := 0; i < len(args); i++ {
		v := args[i].Value
		switch {
		case !args[i].Known:
			return args[i], args[i+1:], globals, pa.why
		case v == "-c" && i+1 < len(args):
			i++
			globals = append(globals, used{opt: g.short('c'), as: "-c", value: args[i], has: true})
		case strings.HasPrefix(v, "--config-env"):
			globals = append(globals, used{opt: &option{long: "config-env"}, as: v})
		case v == "-C" || v == "--git-dir" || v == "--work-tree" || v == "--namespace" || v == "--super-prefix" || v == "--attr-source":
			i++
		case strings.HasPrefix(v, "-"):
		default:
			return args[i], args[i+1:], globals, pa.why
		}
	}
	return Word{}, nil, globals, pa.why
}

// gitSettings are the settings a git command in dir reads, in git's
// order (a later value wins): those of the config files
// gitconfig.Files lists for the environment env, each file's includes
// where they stand (include.path, and includeIf.*.path whatever its
// condition), then those of GIT_CONFIG_COUNT. An error when the files
// are not certain or one does not parse (git refuses it too): what they
// set is not known. read are the files, includes among them.
func gitSettings(dir string, env func(string) (string, bool)) (settings []gitconfig.Setting, read []string, err error) {
	files, err := gitconfig.Files(dir, env)
	if err != nil {
		return nil, nil, err
	}
	home, _ := env("HOME")
	var out []gitconfig.Setting
	for _, f := range files {
		s, err := gitIncluded(f.Path, home, 0, &read)
		if err != nil {
			return nil, read, err
		}
		out = append(out, s...)
	}
	s, err := gitconfig.EnvSettings(env)
	if err != nil {
		return nil, read, err
	}
	return append(out, s...), read, nil
}

// maxIncludes bounds how deep git config includes are followed (git's
// own limit, beyond which it refuses the file), and maxConfigFiles how
// many files are read in all.
const (
	maxIncludes    = 10
	maxConfigFiles = 100
)

// gitIncluded is file's settings with those of the files it includes in
// their place.
func gitIncluded(file, home string, depth int, read *[]string) ([]gitconfig.Setting, error) {
	if *read = append(*read, file); depth > maxIncludes || len(*read) > maxConfigFiles {
		return nil, fmt.Errorf("%s: includes nest deeper than %d or name over %d files", file, maxIncludes, maxConfigFiles)
	}
	settings, err := gitconfig.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var out []gitconfig.Setting
	for _, s := range settings {
		out = append(out, s)
		for _, inc := range gitconfig.Includes([]gitconfig.Setting{s}, file, home) {
			more, err := gitIncluded(inc, home, depth+1, read)
			if err != nil {
				return nil, err
			}
			out = append(out, more...)
		}
	}
	return out, nil
}

// gitCommands are git's own commands (programs.txt).
var gitCommands = wordSet{sync.OnceValue(func() map[string]bool { return nameSet(strings.Join(table("git-commands"), " ")).set() })}

// gitRepoVars point git at a repository, an index or a work tree other
// than the one it finds where it runs.
var gitRepoVars = []string{"GIT_DIR", "GIT_COMMON_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
	"GIT_ALTERNATE_OBJECT_DIRECTORIES"}

// gitEnvironment reads what godwit's own environment tells git: the
// repository it works in at the workspace's top (GIT_DIR's, when set,
// whose hooks and config are then protected as .git's are), a variable
// that moves what git reads, and a folder of the workspace on PATH or
// GIT_EXEC_PATH, where git finds git-<name> programs.
func (p *Policy) gitEnvironment() {
	for _, k := range gitRepoVars {
		if v, _ := p.env(k); v != "" && p.gitVar == "" {
			p.gitVar = k
		}
	}
	gd, _ := p.env("GIT_DIR")
	common, _ := p.env("GIT_COMMON_DIR")
	if own, ok, _ := gitconfig.Discover(p.root, p.env); ok && gd+common != "" {
		p.gitDirs = append(p.gitDirs, kernelPath(own.GitDir), kernelPath(own.Common))
	}
	path, _ := p.env("PATH")
	dirs := filepath.SplitList(path)
	if v, _ := p.env("GIT_EXEC_PATH"); v != "" {
		dirs = append(dirs, v)
	}
	for _, d := range dirs {
		if !filepath.IsAbs(d) || within(p.root, kernelPath(d)) {
			p.pathDir = cmp.Or(d, ".") // an empty entry is the folder a command runs in
			break
		}
	}
}

// gitRepoWhy says why a git command in dir may run hooks or programs its
// config names that godwit does not follow: it works in a repository
// other than the workspace's (a nested or bare one, one elsewhere, a
// linked worktree of another), or which one is not certain. "" for the
// workspace's own (its submodules and worktrees too, one git init made
// since godwit started), whose hooks and config gitguard keeps, or none.
func (p *Policy) gitRepoWhy(dir string) string {
	r, ok, err := gitconfig.Discover(dir, p.env)
	own, ownOK, _ := gitconfig.Discover(p.root, p.env)
	switch {
	case err != nil:
		return "the repository git works in is not certain (" + oneLine(err.Error(), 80) + ")"
	case !ok:
		return ""
	case ownOK && (kernelPath(r.Common) == kernelPath(own.Common) || within(kernelPath(filepath.Join(own.Common, "modules")), kernelPath(r.Common))):
		return "" // the same common git dir (a linked worktree), or a submodule's in it
	}
	return "git works in " + p.rel(r.GitDir) + ", a repository other than the workspace's, whose hooks and config godwit does not follow"
}

// gitNetSchemes are the URL schemes git reaches over the network, where
// the other repository's hooks run on another machine.
var gitNetSchemes = nameSet("https http ssh git git+ssh ssh+git ftp ftps")

var gitScheme = lazyRE(`^([A-Za-z][A-Za-z0-9+.-]*)(://|::)`)

// gitReach says why a git command may reach another repository on this
// machine, whose hooks and config then run (git push ./b runs b's
// pre-receive hook): a word naming a repository on disk, a URL git does
// not fetch over the network (file://, ext::, a helper's), a remote whose
// URL is one, and for the commands that talk to a remote, one named at
// run time, one not there yet when the line writes first, or the
// configured remotes when none is named. Only network URLs (after
// url.*.insteadOf) and scp-like host:path pass: the unknown asks.
func (u *unwrapper) gitReach(dir, sub string, rest []Word, settings []gitconfig.Setting) string {
	remotes := map[string][]string{}
	for _, s := range settings {
		if strings.EqualFold(s.Section, "remote") && s.Subsection != "" && (s.Is("remote", "url") || s.Is("remote", "pushurl")) {
			remotes[s.Subsection] = append(remotes[s.Subsection], s.Value)
		} else if s.Is("remote", "vcs") && s.Subsection != "" {
			remotes[s.Subsection] = append(remotes[s.Subsection], s.Value+"::")
		}
	}
	top := cmp.Or(repoRoot(dir), dir)
	place := func(v string) string {
		urls, isRemote := remotes[v]
		if !isRemote {
			urls = []string{v}
		}
		for _, url := range urls {
			url = gitInsteadOf(settings, url)
			if m := gitScheme().FindStringSubmatch(url); m != nil {
				if m[2] == "::" || !gitNetSchemes.has(strings.ToLower(m[1])) {
					return "it reaches " + oneLine(url, 60) + ", which git opens on this machine or through a helper program"
				}
				continue
			}
			if i := strings.IndexByte(url, ':'); i > 0 && !strings.ContainsRune(url[:i], '/') {
				continue // host:path, over ssh
			}
			// From where git runs, or from the top of the work tree,
			// where most commands move first.
			for _, cand := range []string{url, url + ".git", filepath.Join(top, url), filepath.Join(top, url+".git")} {
				abs := resolveIn(dir, cand)
				if fi, err := os.Stat(abs); abs != "" && err == nil && fi.IsDir() {
					if why := u.p.gitRepoWhy(abs); why != "" {
						return "it reaches " + oneLine(url, 60) + ": " + why
					}
				}
			}
			if isRemote && url != "" {
				return "it reaches remote " + v + " at " + oneLine(url, 60) + ", a path on this machine"
			}
		}
		return ""
	}
	talks := gitTalks.has(sub)
	if sub == "remote" && len(rest) > 0 && gitRemoteTalks.has(rest[0].Value) {
		talks, rest = true, rest[1:]
	}
	named := false
	for _, a := range rest {
		v := a.Value
		switch {
		case !a.Literal():
			if talks {
				return "it names a remote computed at run time (" + oneLine(v, 40) + ")"
			}
			continue
		case strings.HasPrefix(v, "--"):
			_, val, eq := strings.Cut(v, "=")
			if !eq {
				continue
			}
			v = val
		case strings.HasPrefix(v, "-") || strings.ContainsAny(v, " \t\n") && !gitScheme().MatchString(v):
			continue // a message, not a place (but ext::sh -c CMD)
		}
		if why := place(v); why != "" {
			return why
		}
		if talks && !named && !strings.HasPrefix(a.Value, "-") {
			named = true // the repository: one the line may make first is not known now
			if _, isRemote := remotes[v]; !isRemote && u.writes.any && !strings.Contains(v, "://") {
				if abs := resolveIn(dir, v); abs != "" {
					if _, err := os.Stat(abs); err != nil {
						return "the line may make " + v + ", a repository it reaches, before git runs"
					}
				}
			}
		}
	}
	if talks && !named {
		for name := range remotes {
			if why := place(name); why != "" {
				return why
			}
		}
	}
	return ""
}

// gitTalks are the commands that talk to the repository their first
// operand names, or else to the configured remotes; gitRemoteTalks are
// git remote's.
var (
	gitTalks       = nameSet("push fetch pull ls-remote clone send-pack fetch-pack request-pull")
	gitRemoteTalks = nameSet("update prune show set-head")
)

// gitInsteadOf is url as url.<base>.insteadOf (and pushInsteadOf)
// rewrite it: the longest prefix wins.
func gitInsteadOf(settings []gitconfig.Setting, url string) string {
	base, prefix := "", ""
	for _, s := range settings {
		if (s.Is("url", "insteadof") || s.Is("url", "pushinsteadof")) && s.Subsection != "" &&
			strings.HasPrefix(url, s.Value) && len(s.Value) >= len(prefix) {
			base, prefix = s.Subsection, s.Value
		}
	}
	if base == "" {
		return url
	}
	return base + url[len(prefix):]
}
