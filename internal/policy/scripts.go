package policy

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/godwit/godwit/internal/regfile"
)

// Code that runs from a file is read and judged by the deny and ask
// rules; what cannot be read as it will run asks. The project's own
// programs (go test, a built binary) are left to the sandbox.

// maxScript bounds the size of a file read to judge the code in it.
const maxScript = 2 << 20

// readRun reads a file a command runs, for judging. why says why it
// cannot be.
func (u *unwrapper) readRun(dir string, w Word, what string) (text, abs, why string) {
	switch {
	case !w.Known:
		return "", "", "it runs a " + what + " named at run time (" + w.Value + ")"
	case w.Glob:
		return "", "", "it runs a " + what + " named by a glob (" + w.Value + ")"
	}
	abs = resolveIn(dir, w.Value)
	if abs == "" {
		return "", "", "it runs a " + what + " in a folder computed at run time"
	}
	if !u.budget() {
		return "", abs, tooManyReads
	}
	switch pl := u.p.where(abs); {
	case u.writes.may(abs):
		return "", abs, "the line may change " + w.Value + " before it runs"
	case pl != placeInside && pl != placeScratch:
		return "", abs, "it runs " + w.Value + ", a " + what + " outside the workspace, which godwit does not read"
	}
	b, err := readBounded(abs)
	switch {
	case errors.Is(err, regfile.ErrTooLarge):
		return "", abs, "it runs " + w.Value + ", a " + what + " too big to check"
	case err != nil:
		return "", abs, "it runs " + w.Value + ", a " + what + " that does not exist yet or cannot be read"
	}
	return string(b), abs, ""
}

const tooManyReads = "it runs more scripts than godwit reads to check one command"

// budget counts one more file read for the line; false past maxReads.
func (u *unwrapper) budget() bool {
	if u.reads == nil {
		u.reads = new(int)
	}
	*u.reads++
	return *u.reads <= maxReads
}

// readBounded reads a regular file of at most maxScript bytes. The open
// does not wait: the line's own earlier command may have made the script
// a FIFO (mkfifo run.sh; sh run.sh), whose open would hold godwit until
// a writer came.
func readBounded(abs string) ([]byte, error) { return regfile.Read(abs, maxScript) }

// scriptText judges shell code from a file (abs; "" for a script inside
// another file, such as package.json) by the deny and ask rules. A
// program named by a variable asks rather than matching every rule ("$@"
// is everywhere in scripts), and so does a script that may write to
// itself: bash reads it as it runs.
func (u *unwrapper) scriptText(c SimpleCommand, text, name, abs string, depth int) unwrapped {
	var out unwrapped
	sc, err := Split(text, ShellEnv{Dir: c.Dir, Home: u.p.home, Vars: u.p.vars, DirExists: isDir})
	if err != nil {
		out.hide(name + " does not parse as a shell script")
		return out
	}
	if abs != "" && rewritesItself(sc, abs) {
		out.hide(name + " may write to itself as it runs")
	}
	gitEnv := gitEnvSet(sc)
	for k, ic := range sc.Commands {
		if len(ic.Words) == 0 || ic.Decl != "" {
			continue
		}
		if ic.Stdin.Kind == StdinNone {
			ic.Stdin = c.Stdin
		}
		sub := u.sub(u.writes.and(writesBefore(sc, k)), true)
		sub.gitEnv = cmp.Or(sub.gitEnv, gitEnv)
		o := sub.variants(ic, depth+1)
		o.inner, o.redirects = nil, nil // rules only, see unwrapped.inner
		out.add(o)
	}
	return out
}

// rewritesItself reports whether a script may write to its own file abs:
// a redirect or a file-placing program whose target is abs or computed.
func rewritesItself(sc Script, abs string) bool {
	for _, r := range sc.Redirects {
		if r.Write && (!r.Target.Literal() || resolveIn(r.Dir, r.Target.Value) == abs) {
			return true
		}
	}
	for _, c := range sc.Commands {
		if len(c.Words) == 0 || !placers.has(baseName(c.Name())) {
			continue
		}
		if unknownTarget(c) != "" {
			return true
		}
		for _, w := range c.Words[1:] {
			if w.Literal() && resolveIn(c.Dir, w.Value) == abs {
				return true
			}
		}
	}
	return false
}

// programPath is what a program run by its path is: a symlink's target,
// a program a rule names if it is the same file or a copy, and for a
// script in the workspace, what it runs.
func (u *unwrapper) programPath(c SimpleCommand, depth int) unwrapped {
	var out unwrapped
	w := c.Words[0]
	abs := resolveIn(c.Dir, w.Value)
	if abs == "" {
		out.hide("it runs a program in a folder computed at run time")
		return out
	}
	pl := u.p.where(abs)
	mine := pl == placeInside || pl == placeScratch
	if u.writes.may(abs) && mine {
		out.hide("the line may create or change " + w.Value + " before it runs")
		return out
	}
	args := c.Words[1:]
	as := func(prog string) {
		out.variants = append(out.variants, append([]Word{{Value: prog, Known: true}}, args...))
	}
	if baseName(abs) != baseName(w.Value) {
		as(abs) // a symlink: ./del -> /bin/rm is rm
	}
	fi, err := os.Stat(abs)
	if err != nil || !fi.Mode().IsRegular() {
		if mine {
			out.hide("it runs " + w.Value + ", which does not exist yet")
		}
		return out
	}
	for _, prog := range u.p.rulePrograms() {
		if path, err := exec.LookPath(prog); err == nil && sameProgram(abs, path) {
			as(prog) // a hard link or a copy of a program a rule names
		}
	}
	if !mine {
		return out // the system's programs are what their names say
	}
	if !u.budget() {
		out.hide(tooManyReads)
		return out
	}
	b, err := readBounded(abs)
	if err != nil {
		out.hide("it runs " + w.Value + ", which is too big to check")
		return out
	}
	interp, iargs := shebang(b)
	switch {
	case interp == "" && bytes.IndexByte(b[:min(len(b), 512)], 0) >= 0:
		// A compiled program: the project's own code, not followed.
	case interp == "" || shells.has(baseName(interp)):
		// No #! line: the shell runs the file itself (ENOEXEC).
		out.add(u.scriptText(c, string(b), w.Value, abs, depth))
	default:
		out.variants = append(out.variants, append(append([]Word{{Value: interp, Known: true}}, iargs...), c.Words...))
		out.code = append(out.code, codeText{what: w.Value, text: string(b), lang: langOf(interp), interp: baseName(interp)})
	}
	return out
}

// shebang reads a #! line: the interpreter, and its argument (env's
// program is taken as the interpreter).
func shebang(b []byte) (string, []Word) {
	if !bytes.HasPrefix(b, []byte("#!")) {
		return "", nil
	}
	line, _, _ := bytes.Cut(b[2:], []byte("\n"))
	f := strings.Fields(string(line))
	if len(f) == 0 {
		return "", nil
	}
	var args []Word
	for _, a := range f[1:] {
		args = append(args, Word{Value: a, Known: true})
	}
	if baseName(f[0]) == "env" {
		for len(args) > 0 && strings.HasPrefix(args[0].Value, "-") {
			args = args[1:]
		}
		if len(args) > 0 {
			return args[0].Value, args[1:]
		}
	}
	return f[0], args
}

// sameProgram reports whether a and b are the same program: the same
// file, or files with the same content.
func sameProgram(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	if err1 != nil || err2 != nil {
		return false
	}
	if os.SameFile(fa, fb) {
		return true
	}
	if fa.Size() != fb.Size() || fa.Size() > 64<<20 {
		return false
	}
	ba, err1 := os.ReadFile(a)
	bb, err2 := os.ReadFile(b)
	return err1 == nil && err2 == nil && bytes.Equal(ba, bb)
}

// rulePrograms are the programs deny and ask command rules name.
func (p *Policy) rulePrograms() []string {
	var out []string
	for _, r := range p.guards() {
		f := strings.Fields(r.Command)
		if len(f) > 0 && !strings.ContainsAny(f[0], "*?[/") && r.matchTool("shell_exec") {
			out = append(out, f[0])
		}
	}
	return dedupe(out)
}

// interpreterName matches the programs that run code in another
// language given in their arguments or in a file.
var interpreterName = lazyRE(`^(awk|gawk|mawk|nawk|sed|gsed|python[0-9.]*|pypy[0-9.]*|perl[0-9.]*|ruby[0-9.]*|irb|node|nodejs|deno|` +
	`php[0-9.]*|lua[0-9.]*|luajit|Rscript|R|tclsh[0-9.]*|wish[0-9.]*|expect|osascript|pwsh|powershell|julia|guile|racket|sbcl|` +
	`clisp|ghci|runghc|runhaskell|groovy|scala|jshell|elixir|iex|erl|escript|swift|vim|nvim|vi|ex|emacs|gdb|lldb)$`)

func isInterpreter(name string) bool { return interpreterName().MatchString(name) }

// scriptExt are the file endings of programs interpreters run.
var scriptExt = nameSet(".py .pyw .pl .pm .rb .js .mjs .cjs .ts .mts .php .lua .r .tcl .awk .sed .jl .exp .ps1 .scpt " +
	".applescript .groovy .scala .ex .exs .erl .swift .vim .el .scm .rkt .lisp .hs")

// interpreted is the code an interpreter runs: its arguments (python -c
// CODE, awk's program), and the files among them that hold code (the
// first operand, and files ending as scripts do; not data files).
func (u *unwrapper) interpreted(c SimpleCommand, name string, args []Word) unwrapped {
	var out unwrapped
	lang := langOf(name)
	var inline []string
	first, module := true, false
	for _, a := range args {
		if !a.Known {
			out.hide(name + " is given an argument computed at run time (" + oneLine(a.Value, 40) + "), which may be code")
			continue
		}
		inline = append(inline, a.Value)
		if strings.HasPrefix(a.Value, "-") {
			// python -m NAME runs the module NAME (the current folder's
			// first): -m last in a cluster, its value the next word.
			module = lang == langPython && !strings.HasPrefix(a.Value, "--") && strings.HasSuffix(a.Value, "m")
			continue
		}
		if module {
			module = false
			if f := pyModuleFile(c.Dir, a.Value, true); f != "" {
				out.add(u.codeFile(c.Dir, f, name+" -m "+a.Value, lang, 0))
			}
			first = false
			continue
		}
		operand := first
		first = false
		if !operand && !scriptExt.has(strings.ToLower(filepath.Ext(a.Value))) {
			continue
		}
		abs := resolveIn(c.Dir, a.Value)
		if fi, err := os.Stat(abs); abs == "" || err != nil || !fi.Mode().IsRegular() {
			continue // inline code, or a file that is not there (an error when it runs)
		}
		out.add(u.codeFile(c.Dir, abs, name+" "+a.Value, lang, 0))
	}
	code := strings.Join(inline, " ")
	if stdinProgram(lang, args) {
		switch c.Stdin.Kind {
		case StdinNone:
		case StdinText:
			if !c.Stdin.Text.Known {
				out.hide(name + " reads its program from a here-document computed at run time")
			}
			code += "\n" + c.Stdin.Text.Value
		default:
			out.hide(name + " reads its program from standard input, which cannot be known here")
		}
	}
	out.code = append(out.code, codeText{what: name + "'s code", text: code, lang: lang, interp: name})
	if lang == langPython {
		for _, f := range pyLocalImports(c.Dir, code) {
			out.add(u.codeFile(c.Dir, f, name+" (importing "+u.p.rel(f)+")", lang, 0))
		}
	}
	return out
}

// maxImports bounds how deep the workspace modules a program imports
// are followed.
const maxImports = 3

// codeFile adds the code of a program file an interpreter runs, and for
// Python the workspace modules it imports (from the file's own folder).
func (u *unwrapper) codeFile(dir, abs, what, lang string, depth int) unwrapped {
	var out unwrapped
	text, _, why := u.readRun(dir, Word{Value: abs, Known: true}, "program")
	if why != "" {
		if pl := u.p.where(abs); pl == placeInside || pl == placeScratch {
			out.hide(why)
		}
		return out // a program of the system's: not the repository's to change
	}
	out.code = append(out.code, codeText{what: what, text: text, lang: lang, interp: baseName(strings.Fields(what)[0])})
	if lang == langPython && depth < maxImports {
		for _, f := range pyLocalImports(filepath.Dir(abs), text) {
			if f != abs {
				out.add(u.codeFile(dir, f, what+" (importing "+u.p.rel(f)+")", lang, depth+1))
			}
		}
	}
	return out
}

// packageScripts are what npm, yarn, pnpm and bun run from package.json:
// the named script with its pre and post scripts, or the lifecycle
// scripts. npm exec, npx and bun test run code no file shows.
func (u *unwrapper) packageScripts(c SimpleCommand, name string, args []Word, depth int) unwrapped {
	var out unwrapped
	var ops []Word
	for i := 0; i < len(args); i++ {
		v := args[i].Value
		switch {
		case !args[i].Known:
			out.hide(name + " is given an argument computed at run time (" + v + ")")
			return out
		case v == "--":
			i = len(args)
		case v == "--prefix" || v == "-C" || v == "--dir" || v == "--cwd" || v == "-w" || v == "--workspace" || v == "--filter":
			out.hide(name + " " + v + " runs another package's scripts")
			return out
		case strings.HasPrefix(v, "-"):
		default:
			ops = append(ops, args[i])
		}
	}
	if len(ops) == 0 {
		if name == "yarn" {
			return u.pkgRun(c, name, npmLifecycle()["install"], depth)
		}
		return out
	}
	sub := ops[0].Value
	script := ""
	switch {
	case sub == "run" || sub == "run-script" || sub == "rum" || sub == "urn":
		if len(ops) < 2 {
			return out
		}
		script = ops[1].Value
	case sub == "test" || sub == "t" || sub == "tst":
		script = "test"
	case sub == "start" || sub == "stop":
		script = sub
	case npmLifecycle()[sub] != nil:
		// npm restart with no restart script runs stop and start.
		return u.pkgRun(c, name, npmLifecycle()[sub], depth)
	case name == "bun":
		return u.interpreted(c, name, args)
	case name == "yarn" || name == "pnpm":
		script = sub // yarn NAME runs the script NAME
	default:
		return out
	}
	return u.pkgRun(c, name, []string{"pre" + script, script, "post" + script}, depth)
}

// npmLifecycle are the scripts npm subcommands other than run, test,
// start and stop run.
var npmLifecycle = sync.OnceValue(func() map[string][]string { return tableMap("npm") })

// pkgRun judges the scripts of the package.json nearest c.Dir.
func (u *unwrapper) pkgRun(c SimpleCommand, name string, scripts []string, depth int) unwrapped {
	var out unwrapped
	file := ""
	for d := c.Dir; d != "" && u.p.where(d) == placeInside; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "package.json")); err == nil {
			file = filepath.Join(d, "package.json")
			break
		}
		if d == u.p.root {
			break
		}
	}
	if file == "" {
		if c.Dir == "" || u.p.where(c.Dir) != placeInside {
			out.hide(name + " runs the scripts of a package.json outside the workspace")
		}
		return out
	}
	text, _, why := u.readRun(filepath.Dir(file), Word{Value: file, Known: true}, "package.json")
	if why != "" {
		out.hide(why)
		return out
	}
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if err := json.Unmarshal([]byte(text), &pkg); err != nil {
		out.hide("its package.json cannot be read (" + err.Error() + ")")
		return out
	}
	for _, s := range scripts {
		if line, ok := pkg.Scripts[s]; ok {
			out.add(u.scriptText(SimpleCommand{Dir: filepath.Dir(file), Stdin: c.Stdin}, line, "the "+s+" script of package.json", "", depth))
		}
	}
	return out
}

// spawnAPI matches the ways code in a language without a scanner of its
// own starts a program, and the escape hatches that reach them
// (__import__, getattr, ctypes).
var spawnAPI = lazyRE(`(?:^|[^A-Za-z0-9_$])(system|popen|spawn|spawnSync|execSync|execFile|execFileSync|exec|execv|execvp|execvpe|` +
	`execve|execl|execlp|execle|subprocess|child_process|Popen|fork|shell_exec|passthru|proc_open|pcntl_exec|Open3|startfile|` +
	`ProcessBuilder|getRuntime|__import__|importlib|getattr|ctypes|qx|getline|Command|run_command)(?:[^A-Za-z0-9_]|$)` +
	"|`" + `|\|\s*"|"\s*\|&?|\|&`)

// mentions reports whether every literal word of a command rule's
// pattern occurs in text as a word; a pattern whose program is a glob
// counts as mentioned.
func (r Rule) mentionedIn(text string) bool {
	f := strings.Fields(r.Command)
	if len(f) == 0 {
		return false
	}
	if strings.ContainsAny(f[0], "*?[") {
		return true
	}
	for _, w := range f {
		if strings.ContainsAny(w, "*?[") {
			continue
		}
		if !hasCodeWord(text, w) {
			return false
		}
	}
	return true
}

// literalWords are the words of a command rule that code must mention.
func (r Rule) literalWords() string {
	var out []string
	for _, w := range strings.Fields(r.Command) {
		if !strings.ContainsAny(w, "*?[") {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

// hasCodeWord reports whether w occurs in text as a word: rm in
// system("rm x") and /bin/rm, not in rm.txt, format or rm_rf.
func hasCodeWord(text, w string) bool {
	ok, _ := regexp.MatchString(`(?:^|[^A-Za-z0-9_.-])`+regexp.QuoteMeta(w)+`(?:$|[^A-Za-z0-9_./-])`, text)
	return ok
}
