package policy

import (
	"fmt"
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
			if sec, name, ok := strings.Cut(key, "."); ok && strings.EqualFold(sec, "alias") {
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
	val, fromLine := aliases[strings.ToLower(sub.Value)]
	if !fromLine {
		var err error
		var files []string
		if val, files, err = gitAlias(dir, u.p.env, sub.Value); err != nil {
			out.hide("git's config cannot be read for its aliases (" + oneLine(err.Error(), 80) + ")")
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

// gitAlias looks an alias up in the config files a git command in dir
// reads (the last value wins, as in git), and names those files; an
// error when one of them does not parse, so what the name stands for is
// not known.
func gitAlias(dir string, env func(string) (string, bool), name string) (string, []string, error) {
	settings, files, err := gitSettings(dir, env)
	v := ""
	for _, s := range settings {
		if s.Subsection == "" && s.Is("alias", name) {
			v = s.Value
		}
	}
	return v, files, err
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
