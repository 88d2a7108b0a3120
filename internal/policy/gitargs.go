package policy

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Git's own options come before its subcommand (git -C dir -c k=v
// --no-pager commit). Deny and ask rules are matched against the command
// with them removed as well, so `deny: git commit *` holds for
// `git -C . commit`, and against what an alias stands for (git -c
// alias.ci=commit ci, or an alias in the repository's or the user's git
// config). Git does not abbreviate its own options and stops at one it
// does not know; one this table does not know asks where a rule could
// be dodged, in case git is newer than the table.

// gitGlobals is git's own option table (git(1), OPTIONS).
var gitGlobals = sync.OnceValue(func() getopt {
	g := parseSpec("v version h help C: c: config-env= exec-path=? html-path man-path info-path p paginate P no-pager " +
		"no-replace-objects no-lazy-fetch no-optional-locks no-advice bare git-dir= work-tree= namespace= super-prefix= " +
		"literal-pathspecs glob-pathspecs noglob-pathspecs icase-pathspecs list-cmds= attr-source=")
	g.stop, g.exact = true, true
	return g
})

// gitSubPrograms are the options of git subcommands whose value is a
// command git runs.
var gitSubPrograms = map[string][]string{
	"rebase":        {"-x", "--exec"},
	"difftool":      {"-x", "--extcmd"},
	"grep":          {"-O", "--open-files-in-pager"},
	"fetch":         {"--upload-pack"},
	"pull":          {"--upload-pack"},
	"ls-remote":     {"--upload-pack"},
	"clone":         {"-u", "--upload-pack"},
	"push":          {"--receive-pack", "--exec"},
	"send-pack":     {"--receive-pack", "--exec"},
	"archive":       {"--exec"},
	"filter-branch": {"--env-filter", "--tree-filter", "--index-filter", "--parent-filter", "--msg-filter", "--commit-filter", "--tag-name-filter"},
	"send-email":    {"--to-cmd", "--cc-cmd", "--header-cmd", "--sendmail-cmd"},
}

// gitRuns are the commands a git command line runs or stands for: git
// without its own options, an alias's expansion, the program a setting
// given with -c names (a pager, an editor), and the commands of rebase
// --exec, bisect run, submodule foreach and the like.
func (u *unwrapper) gitRuns(c SimpleCommand, args []Word, depth int) unwrapped {
	var out unwrapped
	g := gitGlobals()
	pa := g.parse(args, c.Dir)
	if pa.why != "" {
		out.hide("git: " + pa.why)
		return out
	}
	dir := c.Dir
	aliases := map[string]string{}
	for _, o := range pa.used {
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
		}
	}
	if len(pa.operands) == 0 {
		return out
	}
	sub, rest := pa.operands[0], pa.operands[1:]
	if len(pa.used) > 0 {
		out.variants = append(out.variants, append([]Word{c.Words[0]}, pa.operands...))
	}
	if !sub.Literal() {
		return out
	}
	val, fromLine := aliases[strings.ToLower(sub.Value)]
	if !fromLine {
		val, _ = gitAlias(dir, u.p.home, sub.Value)
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
				out.add(u.inner(joinWords(cmd), c, depth))
			}
			break
		}
	}
	if opts := gitSubPrograms[sub.Value]; opts != nil {
		out.add(u.programOptions(c, rest, depth, opts...))
	}
	return out
}

// gitSub splits a git command line (the words after git) into its
// subcommand and the subcommand's arguments; sub is "" when there is
// none or the options cannot be read.
func gitSub(args []Word) (sub Word, rest []Word, globals []used) {
	g := gitGlobals()
	pa := g.parse(args, "")
	if pa.why == "" {
		if len(pa.operands) == 0 {
			return Word{}, nil, pa.used
		}
		return pa.operands[0], pa.operands[1:], pa.used
	}
	// An option the table does not know (a newer git's): take the first
	// word that is not an option, as git would if the option took no
	// value, so the subcommand is still judged.
	globals = nil
	for i := 0; i < len(args); i++ {
		v := args[i].Value
		switch {
		case !args[i].Known:
			return args[i], args[i+1:], globals
		case v == "-c" && i+1 < len(args):
			i++
			globals = append(globals, used{opt: g.short('c'), as: "-c", value: args[i], has: true})
		case strings.HasPrefix(v, "--config-env"):
			globals = append(globals, used{opt: &option{long: "config-env"}, as: v})
		case v == "-C" || v == "--git-dir" || v == "--work-tree" || v == "--namespace" || v == "--super-prefix" || v == "--attr-source":
			i++
		case strings.HasPrefix(v, "-"):
		default:
			return args[i], args[i+1:], globals
		}
	}
	return Word{}, nil, globals
}

// gitAlias looks an alias up in the repository's config and the user's
// (~/.gitconfig, ~/.config/git/config), and in the files they include
// (include.path, and includeIf.*.path whatever its condition).
func gitAlias(dir, home, name string) (string, bool) {
	for _, f := range gitConfigFiles(dir, home, false) {
		if v, ok := gitConfigValues(f, "alias")[strings.ToLower(name)]; ok {
			return v, true
		}
	}
	return "", false
}

// gitConfigFiles are the git config files a git command in dir reads,
// the repository's first (and its worktrees' common one), then the
// user's, each followed by what it includes; with system, /etc/gitconfig
// last.
func gitConfigFiles(dir, home string, system bool) []string {
	var files []string
	if gd := gitDirOf(dir); gd != "" {
		files = append(files, filepath.Join(gd, "config"))
		if b, err := os.ReadFile(filepath.Join(gd, "commondir")); err == nil {
			files = append(files, filepath.Join(absIn(gd, strings.TrimSpace(string(b))), "config"))
		}
	}
	if home != "" {
		files = append(files, filepath.Join(home, ".gitconfig"), filepath.Join(home, ".config", "git", "config"))
	}
	if system {
		files = append(files, "/etc/gitconfig")
	}
	seen := map[string]bool{}
	var all []string
	for _, f := range files {
		all = append(all, gitIncluded(f, home, seen, 0)...)
	}
	return all
}

func absIn(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// maxIncludes bounds how deep git config includes are followed (git's
// own limit is 10).
const maxIncludes = 10

// gitIncluded is file followed by the files it includes, depth first.
// Git reads an included file where the include stands; for finding an
// alias, where a later value wins, the order only matters between
// files that both define it, and the including file is searched first.
func gitIncluded(file, home string, seen map[string]bool, depth int) []string {
	if seen[file] || depth > maxIncludes {
		return nil
	}
	seen[file] = true
	out := []string{file}
	for _, sec := range []string{"include", "includeif"} {
		for _, v := range gitConfigAll(file, sec, "path") {
			switch {
			case v == "":
				continue
			case v == "~" || strings.HasPrefix(v, "~/"):
				if home == "" {
					continue
				}
				v = filepath.Join(home, v[1:])
			case !filepath.IsAbs(v):
				v = filepath.Join(filepath.Dir(file), v)
			}
			out = append(out, gitIncluded(v, home, seen, depth+1)...)
		}
	}
	return out
}

// gitConfigAll is every value of key in the sections of file named
// section, subsections included ([includeIf "gitdir:..."]).
func gitConfigAll(file, section, key string) []string {
	var out []string
	gitConfigEach(file, section, true, func(_, k, v string) {
		if strings.EqualFold(k, key) {
			out = append(out, v)
		}
	})
	return out
}

// gitConfigValues reads the keys of one section of a git config file
// (names lowercased; the last value wins), not its subsections.
func gitConfigValues(file, section string) map[string]string {
	out := map[string]string{}
	gitConfigEach(file, section, false, func(_, k, v string) { out[strings.ToLower(k)] = v })
	return out
}

// maxConfigRead bounds how much of a git config file is read.
const maxConfigRead = 1 << 20

// gitConfigEach calls fn with the subsection, each key and unquoted
// value of file's sections named section (and their subsections when
// sub: [section "sub"], or the old [section.sub]). It reads the file
// format well enough for aliases, includes, hooksPath and remotes:
// headers, key = value, quotes, escapes and comments; a header's
// subsection is reported even when no key follows it (key ""). A file
// it cannot open has no keys. This is policy's one reader of git's
// config files.
func gitConfigEach(file, section string, sub bool, fn func(subsection, key, val string)) {
	f, err := os.Open(file)
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxConfigRead)
	in, cur := false, ""
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			head, _, _ := strings.Cut(strings.TrimPrefix(line, "["), "]")
			name, rest := strings.TrimSpace(head), ""
			if i := strings.IndexAny(name, " \t\""); i >= 0 {
				name, rest = name[:i], strings.Trim(strings.TrimSpace(name[i:]), `"`)
			} else if n, r, ok := strings.Cut(name, "."); ok {
				name, rest = n, r
			}
			in, cur = strings.EqualFold(name, section) && (sub || rest == ""), rest
			if in && cur != "" {
				fn(cur, "", "")
			}
			continue
		}
		if !in || line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		k, val, _ := strings.Cut(line, "=")
		fn(cur, strings.TrimSpace(k), gitConfigUnquote(strings.TrimSpace(val)))
	}
}

// gitConfigUnquote applies git config's quoting: "..." groups, \" \\ \n
// \t escapes, and # or ; outside quotes starts a comment.
func gitConfigUnquote(v string) string {
	var b strings.Builder
	quoted := false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '"':
			quoted = !quoted
		case c == '\\' && i+1 < len(v):
			i++
			switch v[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(v[i])
			}
		case (c == '#' || c == ';') && !quoted:
			return strings.TrimSpace(b.String())
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
