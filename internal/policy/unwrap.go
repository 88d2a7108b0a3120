package policy

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Deny and ask rules look through what runs another command; where what
// runs cannot be known, the line asks when a rule could be dodged.

// wrapper is a program that runs the command in its operands; what its
// options do is in its table's marks (effString ... effNone).
type wrapper struct {
	g getopt
	// skip is how many operands come before the command (timeout's
	// DURATION, chroot's NEWROOT, flock's lock file).
	skip int
	// skipAssigns passes over NAME=VALUE operands (env, sudo).
	skipAssigns bool
	// shell: the operands are joined and run by a shell (watch).
	shell bool
}

// wrappers are programs.txt's table.
var wrappers = sync.OnceValue(func() map[string]wrapper {
	w := map[string]wrapper{}
	for _, l := range table("wrappers") {
		f := strings.Fields(l)
		x := wrapper{g: parseSpec(strings.Join(f[2:], " ")), skip: -1, skipAssigns: f[0] == "env" || f[0] == "sudo", shell: f[0] == "watch"}
		x.g.stop = true
		if f[1] != "-" {
			x.skip, _ = strconv.Atoi(f[1])
		}
		w[f[0]] = x
	}
	return w
})

var shells = nameSet("bash sh dash zsh ksh mksh ash rbash")

// bashOpts are the options of bash (and, near enough, sh, dash, zsh):
// -o NAME and -O NAME take a value; the rest are flags.
var bashOpts = sync.OnceValue(func() getopt {
	g := specOf("bash")
	g.stop = true
	return g
})

// maxUnwrap bounds nested wrappers, shells and scripts.
const maxUnwrap = 4

// unwrapper looks into what one command line runs.
type unwrapper struct {
	p *Policy
	// writes are the files the line may change before the command being
	// unwrapped runs: a script or Makefile among them cannot be read now
	// for what it will hold then.
	writes lineWrites
	// fromFile: the commands come from a file (a script, a recipe),
	// where a program named by a variable asks rather than matching
	// every rule.
	fromFile bool
	// reads counts the files read for one command line, shared by the
	// unwrappers of what it runs (maxReads bounds them: a script that
	// sources another a thousand times, each of which does the same).
	reads *int
	// gitEnv is a variable the line (or a command string around it)
	// assigns that changes the config git reads (gitConfigVars), "" if none.
	gitEnv string
}

// maxReads bounds the scripts, Makefiles and programs read to judge one
// command line.
const maxReads = 64

// sub is an unwrapper for commands nested in u's, sharing its budget.
func (u *unwrapper) sub(w lineWrites, fromFile bool) *unwrapper {
	if u.reads == nil {
		u.reads = new(int)
	}
	return &unwrapper{p: u.p, writes: w, fromFile: fromFile, reads: u.reads, gitEnv: u.gitEnv}
}

// unwrapped is what deny and ask rules are matched against for one
// simple command: the command itself and what it runs; hidden says why
// some of what it runs cannot be known.
type unwrapped struct {
	variants [][]Word
	hidden   string
	// inner are the commands that run inside this one as if they were
	// typed in the same line (a shell's -c string or here-document,
	// eval, trap, a wrapper's command, find -exec, xargs): they are
	// judged with every rule, as the line's own commands are, and
	// redirects are their file redirections. What runs from a file (a
	// script, a Makefile) is judged by the deny and ask rules only.
	inner     []SimpleCommand
	redirects []Redirect
	// code are programs in other languages that the command runs (awk's
	// program, python -c, a Python file): a deny or ask rule whose words
	// all appear in one as words asks, as godwit cannot tell whether the
	// program runs it.
	code []codeText
}

// codeText is a program godwit does not parse, and what it is.
type codeText struct {
	what, text string
	// lang is the language (langOf), "" for one without a scanner;
	// interp the interpreter's name.
	lang, interp string
}

func (u *unwrapped) add(o unwrapped) {
	u.variants = append(u.variants, o.variants...)
	u.inner = append(u.inner, o.inner...)
	u.redirects = append(u.redirects, o.redirects...)
	u.code = append(u.code, o.code...)
	if u.hidden == "" {
		u.hidden = o.hidden
	}
}

// addInner adds c as a command that runs as if typed, with what it runs.
func (u *unwrapped) addInner(c SimpleCommand, o unwrapped) {
	u.inner = append(u.inner, c)
	u.add(o)
}

func (u *unwrapped) hide(why string) {
	if u.hidden == "" {
		u.hidden = why
	}
}

// variants returns the commands deny and ask rules are matched against.
func (u *unwrapper) variants(c SimpleCommand, depth int) unwrapped {
	words := c.Words
	out := unwrapped{variants: [][]Word{words}}
	if depth >= maxUnwrap {
		out.hide("commands nest deeper than godwit follows")
		return out
	}
	if len(words) == 0 {
		return out
	}
	if !words[0].Known {
		if u.fromFile {
			return unwrapped{hidden: "a script or recipe runs a program named at run time (" + oneLine(words[0].Value, 40) + ")"}
		}
		return out // a computed program matches every rule already
	}
	name := baseName(words[0].Value)
	args := words[1:]
	if strings.ContainsRune(words[0].Value, '/') && !words[0].Glob {
		out.add(u.programPath(c, depth))
	} else if u.p.pathDir != "" {
		// A folder of the workspace on PATH: name may be a program there.
		abs, why := u.pathProgram(c.Dir, words[0].Value)
		out.hide(why)
		if abs != "" {
			out.add(u.programPath(SimpleCommand{Words: append([]Word{{Value: abs, Known: true}}, args...), Dir: c.Dir, Stdin: c.Stdin}, depth))
		}
	}
	switch {
	case shells.has(name):
		out.add(u.shellRuns(c, args, depth))
	case name == "eval":
		out.add(u.inner(joinWords(args), c, depth))
	case (name == "source" || name == ".") && len(args) > 0:
		out.add(u.fileRuns(c, args[0], depth))
	case name == "trap":
		for _, a := range args {
			if a.Value == "--" || strings.HasPrefix(a.Value, "-") && a.Known {
				continue
			}
			out.add(u.inner(a, c, depth)) // the action string
			break
		}
	case name == "find":
		out.add(u.execArgs(c, args, depth, "-exec", "-execdir", "-ok", "-okdir"))
	case name == "fd":
		out.add(u.execArgs(c, args, depth, "-x", "--exec", "-X", "--exec-batch"))
	case name == "rg":
		out.add(u.programOptions(c, args, depth, "--pre"))
	case name == "sort":
		out.add(u.programOptions(c, args, depth, "--compress-program"))
	case name == "tar":
		out.add(u.programOptions(c, args, depth, "--use-compress-program", "--to-command", "--info-script", "--new-volume-script", "-I", "-F"))
	case name == "git":
		out.add(u.gitRuns(c, args, depth))
	case name == "make" || name == "gmake":
		out.add(u.makeRuns(c, args, depth))
	case name == "npm" || name == "yarn" || name == "pnpm" || name == "bun":
		out.add(u.packageScripts(c, name, args, depth))
	case isInterpreter(name):
		out.add(u.interpreted(c, name, args))
	default:
		if w, ok := wrappers()[name]; ok {
			out.add(u.wrapped(c, w, args, depth))
		} else if !knownProgram(name) {
			out.add(u.namedInArgs(name, args))
		}
	}
	return out
}

// notRunners are programs, besides the read-only list, known not to run
// their arguments as commands (git rm, man rm, npm rm, cp rm x).
var notRunners = nameSet("git go gofmt cargo rustc rustup pip pip3 uv poetry apt apt-get dpkg brew man info whatis apropos " +
	"hash alias unalias complete help mkdir rmdir touch cp mv ln chmod chown tee kill pkill killall gcc " +
	"cc clang tar zip unzip gzip curl wget rm unlink truncate install")

func knownProgram(name string) bool {
	if notRunners.has(name) || shells.has(name) || isInterpreter(name) {
		return true
	}
	_, ro := programs()[name]
	return ro
}

// namedInArgs: a program godwit does not know, given a denied or asked
// program's name as an argument (parallel rm ::: x, docker run img rm
// x, ssh host 'rm x', nix-shell --run 'rm x'), may run it: it asks.
func (u *unwrapper) namedInArgs(name string, args []Word) unwrapped {
	var out unwrapped
	progs := u.p.rulePrograms()
	if len(progs) == 0 {
		return out
	}
	for _, a := range args {
		if !a.Known {
			continue
		}
		vals := []string{a.Value}
		if _, v, ok := strings.Cut(a.Value, "="); ok {
			vals = append(vals, v)
		}
		for _, v := range vals {
			f := strings.Fields(v)
			if len(f) == 0 {
				continue
			}
			if b := baseName(f[0]); slices.Contains(progs, b) {
				out.hide("it passes " + b + " to " + name + ", a program godwit does not know, which may run it")
				return out
			}
		}
	}
	return out
}

// wrapped unwraps a wrapper by its option table.
func (u *unwrapper) wrapped(c SimpleCommand, w wrapper, args []Word, depth int) unwrapped {
	var out unwrapped
	pa := w.g.parse(args, c.Dir)
	if pa.why != "" {
		// An option the table does not know, or a computed word where
		// one could be: what runs cannot be told.
		out.hide(baseName(c.Words[0].Value) + ": " + pa.why)
		return out
	}
	shell, exec := w.shell, false
	prog := baseName(c.Words[0].Value)
	xargs := prog == "xargs"
	replace := ""
	for _, o := range pa.used {
		switch e := o.opt.eff; {
		case o.has && (o.opt.long == "chdir" || prog == "env" && o.opt.short == 'C' || prog == "sudo" && o.opt.short == 'D'):
			// env -C, sudo -D: the command runs in that folder.
			if c.Dir = resolveIn(c.Dir, o.value.Value); !o.value.Literal() {
				c.Dir = ""
			}
		case e&effNone != 0:
			return out
		case e&effString != 0 && o.has:
			out.add(u.inner(o.value, c, depth))
		case e&effSplit != 0 && o.has:
			sub := u.splitWords(o.value)
			if sub == nil {
				out.hide("env -S splits a string computed at run time")
				continue
			}
			ic := SimpleCommand{Words: append(sub, pa.operands...), Dir: c.Dir, Stdin: c.Stdin}
			out.addInner(ic, u.variants(ic, depth+1))
		case e&effShell != 0:
			shell = true
		case e&effExec != 0:
			exec = true
		case xargs && (o.opt.short == 'I' || o.opt.short == 'i' || o.opt.long == "replace"):
			// xargs -I STR puts each input line where STR is.
			replace = "{}"
			if o.has && o.value.Value != "" {
				replace = o.value.Value
			}
		}
	}
	ops := pa.operands
	if w.skip < 0 {
		return out
	}
	if len(ops) >= w.skip {
		ops = ops[w.skip:]
	} else {
		ops = nil
	}
	var assigns []string // those git reads, for gitRuns
	for w.skipAssigns && len(ops) > 0 && ops[0].Known && strings.Contains(ops[0].Value, "=") && !strings.HasPrefix(ops[0].Value, "=") {
		if n, _, _ := strings.Cut(ops[0].Value, "="); gitConfigVars().MatchString(n) {
			assigns = append(assigns, n)
		}
		ops = ops[1:]
	}
	if len(ops) == 0 {
		return out
	}
	if shell && !exec {
		out.add(u.inner(joinWords(ops), c, depth))
		return out
	}
	if xargs {
		// xargs adds the words it reads to the command, or puts them
		// where -I's string is: words the analysis cannot know.
		ops = slices.Clone(ops)
		for i, o := range ops {
			if replace != "" && strings.Contains(o.Value, replace) {
				ops[i] = Word{Value: o.Value}
			}
		}
		if replace == "" {
			ops = append(ops, Word{Value: "(arguments read from standard input)"})
		}
	}
	ic := SimpleCommand{Words: ops, Dir: c.Dir, Stdin: c.Stdin, Assigns: assigns}
	out.addInner(ic, u.variants(ic, depth+1))
	return out
}

// shellRuns is what a shell runs: its -c string, its script, or its
// standard input.
func (u *unwrapper) shellRuns(c SimpleCommand, args []Word, depth int) unwrapped {
	var out unwrapped
	g := bashOpts()
	pa := g.parse(args, c.Dir)
	if pa.why != "" {
		out.hide("the shell's options cannot be read (" + pa.why + ")")
		return out
	}
	str, stdin := false, false
	for _, o := range pa.used {
		switch o.opt.short {
		case 'c':
			str = true
		case 's':
			stdin = true
		}
	}
	switch {
	case str:
		if len(pa.operands) == 0 {
			return out
		}
		out.add(u.inner(pa.operands[0], c, depth))
	case stdin || len(pa.operands) == 0:
		out.add(u.stdinRuns(c, depth))
	default:
		out.add(u.fileRuns(c, pa.operands[0], depth))
	}
	return out
}

// fileRuns is what a shell runs from its script operand w (sh FILE,
// source FILE).
func (u *unwrapper) fileRuns(c SimpleCommand, w Word, depth int) unwrapped {
	var out unwrapped
	switch {
	case isStdinPath(w):
		out.add(u.stdinRuns(c, depth))
	case !w.Known || isProcSubst(w) || strings.HasPrefix(w.Value, "/dev/fd/"):
		out.hide("it runs a script that is computed at run time or another command's output")
	default:
		text, abs, why := u.readRun(c.Dir, w, "script")
		if why != "" {
			out.hide(why)
			return out
		}
		out.add(u.scriptText(c, text, w.Value, abs, depth))
	}
	return out
}

// isStdinPath reports a script operand that is the standard input.
func isStdinPath(w Word) bool {
	return w.Known && slices.Contains([]string{"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"}, w.Value)
}

// stdinRuns is what a shell reading its standard input runs.
func (u *unwrapper) stdinRuns(c SimpleCommand, depth int) unwrapped {
	var out unwrapped
	switch c.Stdin.Kind {
	case StdinNone:
	case StdinText:
		out.add(u.inner(c.Stdin.Text, c, depth))
	case StdinPipe:
		out.hide("a shell runs what another command writes into it (| sh)")
	case StdinFile:
		out.hide("a shell runs a file redirected into it (sh < file)")
	default:
		out.hide("a shell runs its standard input, which cannot be known here")
	}
	return out
}

// execArgs are the commands of find -exec ... ; and fd -x ...
func (u *unwrapper) execArgs(c SimpleCommand, args []Word, depth int, opts ...string) unwrapped {
	var out unwrapped
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.Known {
			continue
		}
		name, val, eq := strings.Cut(a.Value, "=")
		if !slices.Contains(opts, name) {
			continue
		}
		var cmd []Word
		if eq {
			cmd = append(cmd, Word{Value: val, Known: true})
		}
		for i++; i < len(args); i++ {
			if args[i].Known && (args[i].Value == ";" || args[i].Value == "+") {
				break
			}
			w := args[i]
			if strings.Contains(w.Value, "{}") {
				w = Word{Value: w.Value, findName: !strings.HasPrefix(w.Value, "-")} // replaced by file names
			}
			cmd = append(cmd, w)
		}
		if len(cmd) > 0 {
			ic := SimpleCommand{Words: cmd, Dir: c.Dir, Stdin: Stdin{Kind: StdinUnknown}}
			if strings.HasSuffix(name, "dir") {
				ic.Dir = "" // -execdir and -okdir run in each found file's folder
			}
			out.addInner(ic, u.variants(ic, depth+1))
		}
	}
	return out
}

// programOptions are the programs named by options that run one: rg
// --pre, sort --compress-program, tar -I / --use-compress-program /
// --to-command.
func (u *unwrapper) programOptions(c SimpleCommand, args []Word, depth int, runs ...string) unwrapped {
	var out unwrapped
	for i, a := range args {
		if !a.Known {
			continue
		}
		name, val, eq := strings.Cut(a.Value, "=")
		for _, r := range runs {
			short := len(r) == 2
			switch {
			case name == r:
			case short && strings.HasPrefix(a.Value, r) && !strings.HasPrefix(a.Value, "--"):
				// -Ovim, -xCMD: the value attached.
				val, eq = a.Value[2:], true
			case strings.HasPrefix(r, "--") && len(name) > 3 && strings.HasPrefix(r, name):
				// A long option's unique-prefix abbreviation.
			default:
				continue
			}
			v := Word{Value: val, Known: true}
			if !eq {
				if i+1 >= len(args) {
					continue
				}
				v = args[i+1]
			}
			out.add(u.inner(v, c, depth))
		}
	}
	return out
}

// inner splits a command string a shell or eval would run. A string
// with parts computed at run time is split as written (rm $X is still
// rm), and what those parts hold is unknown: they could add commands.
// The string's commands and redirections are judged as if typed in the
// line (unwrapped.inner).
func (u *unwrapper) inner(w Word, c SimpleCommand, depth int) unwrapped {
	var out unwrapped
	if !w.Known {
		out.hide("it runs a command string computed at run time (" + oneLine(w.Value, 40) + ")")
	}
	sc, err := Split(w.Value, ShellEnv{Dir: c.Dir, Home: u.p.home, Vars: u.p.vars, DirExists: isDir})
	if err != nil {
		out.hide("it runs a command string that does not parse")
		return out
	}
	out.redirects = append(out.redirects, sc.Redirects...)
	gitEnv := gitEnvSet(sc)
	for k, ic := range sc.Commands {
		if ic.Stdin.Kind == StdinNone {
			ic.Stdin = c.Stdin // the inner shell reads what the outer one does
		}
		if len(ic.Words) == 0 || ic.Decl != "" {
			out.inner = append(out.inner, ic)
			continue
		}
		sub := u.sub(u.writes.and(writesBefore(sc, k)), u.fromFile)
		sub.gitEnv = cmp.Or(sub.gitEnv, gitEnv)
		out.addInner(ic, sub.variants(ic, depth+1))
	}
	return out
}

// lineWrites are the files a line may change before a command runs.
type lineWrites struct {
	// any: a command that is not read-only, or a redirect to a path
	// computed at run time, may change any file.
	any   bool
	paths []string
}

// may reports whether abs may have changed.
func (w lineWrites) may(abs string) bool {
	return w.any || slices.Contains(w.paths, abs)
}

func (w lineWrites) and(o lineWrites) lineWrites {
	return lineWrites{any: w.any || o.any, paths: append(slices.Clip(w.paths), o.paths...)}
}

// writesBefore are the files sc may change before its command i runs:
// what the commands before it write (all of them, for a command in a
// pipeline or the background, which runs alongside the rest, or in a
// loop, which runs again after the rest), and the redirects opened
// before it, its own included (sh t.sh > t.sh empties t.sh first).
func writesBefore(sc Script, i int) lineWrites {
	var w lineWrites
	c := sc.Commands[i]
	for j, o := range sc.Commands {
		if j == i || len(o.Words) == 0 || o.Decl != "" {
			continue
		}
		if (j < i || c.Async || o.Async || (c.Loop && o.Loop)) && checkReadOnly(o).why != "" {
			w.any = true
			return w
		}
	}
	for _, r := range sc.Redirects {
		if !r.Write || !(r.Before <= i || c.Async || r.Async || (c.Loop && r.Loop)) {
			continue
		}
		abs := ""
		if r.Target.Literal() {
			abs = resolveIn(r.Dir, r.Target.Value)
		}
		if abs == "" {
			w.any = true
			return w
		}
		w.paths = append(w.paths, abs)
	}
	return w
}

// splitWords splits env -S's string into words, as a shell would.
func (u *unwrapper) splitWords(w Word) []Word {
	if !w.Known {
		return nil
	}
	sc, err := Split(w.Value, ShellEnv{Dir: u.p.root, Home: u.p.home, Vars: u.p.vars})
	if err != nil || len(sc.Commands) == 0 {
		return nil
	}
	return sc.Commands[0].Words
}

func joinWords(ws []Word) Word {
	out := Word{Known: true}
	var parts []string
	for _, w := range ws {
		parts = append(parts, w.Value)
		out.Known = out.Known && w.Known
	}
	out.Value = strings.Join(parts, " ")
	return out
}

func baseName(v string) string {
	if i := strings.LastIndexAny(v, `/\`); i >= 0 {
		return v[i+1:]
	}
	return v
}

// pathProgram is the program PATH finds for name when it is in the
// workspace (abs), or why one the line writes first may be found there
// before the one found now: a folder of the workspace comes first.
func (u *unwrapper) pathProgram(dir, name string) (abs, why string) {
	path, _ := u.p.env("PATH")
	for _, d := range filepath.SplitList(path) {
		d = resolveIn(dir, cmp.Or(d, ".")) // an empty entry is the folder the command runs in
		if d == "" {
			return "", "PATH holds a relative folder, and the command runs in a folder known only at run time"
		}
		mine := within(u.p.root, kernelPath(d))
		if fi, err := os.Stat(filepath.Join(d, name)); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			if mine {
				return filepath.Join(d, name), ""
			}
			return "", ""
		}
		if mine && u.writes.any {
			return "", "the line may put a program " + name + " in " + u.p.rel(d) + ", which comes first on PATH, before it runs"
		}
	}
	return "", ""
}
