package policy

import (
	_ "embed"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The read-only list runs unasked in every mode, confined. The bar: with
// the options its table allows, the program can neither change a file
// nor start another (so no go test, make, sed, xargs, less, read).

type operandKind uint8

const (
	opsNone         operandKind = iota // operands are not file names
	opsPaths                           // operands are files read
	opsPatternPaths                    // the first operand is a pattern (unless an option gave it), the rest files
)

// program is a read-only program: its option table, what its operands
// are, and any check of its own.
type program struct {
	g        getopt
	operands operandKind
	// maxOps bounds operands (uniq IN OUT writes OUT); -1 is no bound.
	maxOps int
	// after, when set, checks what the table cannot: operands (date),
	// option values (grep -d recurse). It may set why and asks.
	after func(p parsed, r *roResult)
	// custom replaces the table (git, find, shell builtins).
	custom func(c SimpleCommand) roResult
	// lists: it walks folders and prints names, not contents (tree, du,
	// fd); only the links it follows out of the workspace matter.
	// search, skipsHidden: as roResult's.
	lists, search, skipsHidden bool
}

// roResult is what the read-only check found about one command.
type roResult struct {
	// why says why the command is not read-only; "" when it is.
	why string
	// paths are the words it reads as files or folders; names the words
	// that should merely not name a secret.
	paths, names []Word
	// eff are the effects of the options used (recursion, hidden files).
	eff effect
	// asks are reads that need approval even though nothing is written:
	// "prints the environment, whose values may hold keys".
	asks []string
	// search marks a program that reads folders recursively by itself
	// (rg, ag); skipsHidden that it passes over hidden files unless told
	// otherwise.
	search, skipsHidden bool
	// lists marks a walk of folders that prints names only (find, ls -R,
	// tree, du, fd).
	lists bool
	// history: it prints file contents from git's objects, whose paths
	// cannot be listed here; index: from the work tree or the index of
	// the repository at dir (its tracked paths are checked against path
	// rules); tree limits those to the paths given.
	history bool
	index   string
	tree    []Word
	// histFiles are the files a git read limited to named files prints
	// from the history: their former names are screened too.
	histFiles []histFile
}

func notRO(why string) roResult { return roResult{why: why} }

//go:embed programs.txt
var programsText string

// table is the entries of section name of programs.txt, each with its
// continuation lines joined.
func table(name string) []string {
	var out []string
	in := false
	for _, l := range strings.Split(programsText, "\n") {
		switch {
		case strings.HasPrefix(l, "["):
			in = l == "["+name+"]"
		case !in || l == "" || l[0] == '#':
		case l[0] == '\t':
			out[len(out)-1] += " " + l[1:]
		default:
			out = append(out, l)
		}
	}
	return out
}

// tableMap is section name as a map from each entry's first word
// (NAME[,NAME...]) to the words after it.
func tableMap(name string) map[string][]string {
	m := map[string][]string{}
	for _, l := range table(name) {
		f := strings.Fields(l)
		for _, k := range strings.Split(f[0], ",") {
			m[k] = append(m[k], f[1:]...)
		}
	}
	return m
}

// specOf is the option table of name in section getopt.
func specOf(name string) getopt {
	return parseSpec(strings.Join(tableMap("getopt")[name], " "))
}

// envDump is the reason an environment dump asks.
const envDump = "prints the environment, whose values may hold keys and tokens"

// programs is the read-only list: programs.txt's table, and the checks
// of programs a table cannot describe.
var programs = sync.OnceValue(func() map[string]program {
	m := map[string]program{}
	kinds := map[string]operandKind{"none": opsNone, "paths": opsPaths, "pattern": opsPatternPaths}
	for _, l := range table("readonly") {
		f := strings.Fields(l)
		pr := program{g: parseSpec(strings.Join(f[3:], " ")), operands: kinds[f[1]], maxOps: -1}
		if f[2] != "-" {
			pr.maxOps, _ = strconv.Atoi(f[2])
		}
		for _, n := range strings.Split(f[0], ",") {
			m[n] = pr
		}
	}
	set := func(f func(*program), names ...string) {
		for _, n := range names {
			x := m[n]
			f(&x)
			m[n] = x
		}
	}
	set(func(x *program) { x.lists = true }, "du", "tree", "fd")
	set(func(x *program) { x.search, x.skipsHidden = true, true }, "rg", "ag")
	set(func(x *program) { x.after = grepDirs }, "grep", "egrep", "fgrep")
	set(func(x *program) {
		x.after = func(p parsed, r *roResult) {
			for _, o := range p.operands {
				if !o.Literal() || !strings.HasPrefix(o.Value, "+") {
					r.why = "date " + o.Value + " sets the clock"
				}
			}
		}
	}, "date")
	set(func(x *program) {
		x.after = func(p parsed, r *roResult) {
			if p.eff&effRecurse != 0 {
				r.lists = true // ls -R walks; -L follows links as it goes
			}
		}
	}, "ls")
	for _, name := range []string{":", "true", "false", "echo", "pwd", "test", "[", "cd", "pushd", "popd", "dirs",
		"exit", "return", "break", "continue", "shift", "type"} {
		m[name] = program{custom: func(SimpleCommand) roResult { return roResult{} }}
	}
	set(func(x *program) { x.after, x.g.exact = jqFilter, true }, "jq")
	for name, f := range map[string]func(SimpleCommand) roResult{"find": findRO, "env": envRO, "ps": psRO,
		"command": commandRO, "git": gitRO, "go": goRO, "printf": printfRO, "unset": unsetRO, "set": setRO,
		"printenv": func(SimpleCommand) roResult { return roResult{asks: []string{envDump}} }} {
		m[name] = program{custom: f}
	}
	m["wait"] = builtin("n f p:!s")      // wait -p VAR assigns VAR
	m["jobs"] = builtin("l n p r s x!x") // jobs -x CMD runs CMD
	return m
})

// builtin is a shell builtin parsed with bash's internal getopt: options
// come first, no long options.
func builtin(spec string) program {
	g := parseSpec(spec)
	g.stop = true
	return program{g: g, operands: opsNone, maxOps: -1}
}

// grepDirs: -d ACTION takes any unique abbreviation of read, skip,
// recurse.
func grepDirs(pa parsed, r *roResult) {
	for _, u := range pa.used {
		if u.opt.short == 'd' || u.opt.long == "directories" {
			if v := u.value.Value; !u.value.Known || (len(v) >= 2 && strings.HasPrefix("recurse", v)) {
				r.eff |= effRecurse
			}
		}
	}
}

// checkReadOnly reports whether c is read-only and what it reads.
func checkReadOnly(c SimpleCommand) roResult {
	if c.Func || len(c.Words) == 0 || c.Decl != "" {
		// A function's body is checked command by command; assignments
		// and declarations are judged by the variables they set.
		return roResult{}
	}
	name := c.Words[0]
	switch {
	case !name.Literal():
		return notRO("the program is computed at run time")
	case strings.ContainsRune(name.Value, '/'):
		return notRO("it runs a program by path")
	case len(c.Assigns) > 0:
		return notRO("it sets " + c.Assigns[0] + " for the program")
	}
	pr, ok := programs()[name.Value]
	if !ok {
		return notRO("it is not a known read-only command")
	}
	if pr.custom != nil {
		return pr.custom(c)
	}
	return pr.check(c.Words[1:], c.Dir)
}

func (pr program) check(args []Word, dir string) roResult {
	p := pr.g.parse(args, dir)
	if p.why != "" {
		return notRO(p.why)
	}
	r := roResult{eff: p.eff, lists: pr.lists, search: pr.search, skipsHidden: pr.skipsHidden}
	for _, u := range p.used {
		switch {
		case !u.has:
		case u.opt.eff&effPath != 0:
			r.paths = append(r.paths, u.value)
		default:
			r.names = append(r.names, u.value)
		}
	}
	ops := p.operands
	if pr.maxOps >= 0 && len(ops) > pr.maxOps {
		return notRO("it takes an output file operand")
	}
	switch pr.operands {
	case opsNone:
	case opsPatternPaths:
		if p.eff&effPattern == 0 && len(ops) > 0 {
			r.names = append(r.names, ops[0])
			ops = ops[1:]
		}
		fallthrough
	case opsPaths:
		r.paths = append(r.paths, ops...)
	}
	if pr.after != nil {
		pr.after(p, &r)
	}
	return r
}

// commandRO: only `command -v NAME` and `command -V NAME` (lookups);
// `command NAME` runs NAME.
func commandRO(c SimpleCommand) roResult {
	args := c.Words[1:]
	if len(args) > 0 && args[0].Literal() && (args[0].Value == "-v" || args[0].Value == "-V") {
		return roResult{}
	}
	return notRO("command runs the program it names")
}

// printfRO: printf -v VAR assigns any variable (HOME, PATH), which
// changes what later commands run; printf takes no other option.
func printfRO(c SimpleCommand) roResult {
	args := c.Words[1:]
	if len(args) == 0 {
		return roResult{}
	}
	a := args[0]
	switch {
	case mayBeOption(a, c.Dir):
		return notRO("its first argument is computed at run time and could be -v, which assigns a variable")
	case a.Value != "--" && strings.HasPrefix(a.Value, "-"):
		return notRO("printf " + a.Value + " assigns a variable")
	}
	return roResult{}
}

// unsetRO: unsetting PATH, GIT_PAGER and the like changes what later
// commands run (an unset PATH searches the current folder).
func unsetRO(c SimpleCommand) roResult {
	for _, a := range c.Words[1:] {
		switch {
		case !a.Literal():
			return notRO("it unsets a variable named at run time")
		case strings.HasPrefix(a.Value, "-"):
		case dangerousVars().MatchString(a.Value):
			return notRO("it unsets " + a.Value + ", which changes what later commands run")
		}
	}
	return roResult{}
}

// setRO: set alone prints every variable; set with options changes the
// shell's behaviour, which the analysis does not depend on.
func setRO(c SimpleCommand) roResult {
	if len(c.Words) == 1 {
		return roResult{asks: []string{envDump}}
	}
	return roResult{}
}

// envRO: env alone prints the environment; with anything else it sets
// variables or runs a command.
func envRO(c SimpleCommand) roResult {
	for _, a := range c.Words[1:] {
		if !a.Literal() || !(a.Value == "-0" || a.Value == "--null") {
			return notRO("env runs a command or changes the environment")
		}
	}
	return roResult{asks: []string{envDump}}
}

// psRO: ps e (BSD syntax) prints every process's environment.
func psRO(c SimpleCommand) roResult {
	for _, a := range c.Words[1:] {
		if !a.Literal() {
			return notRO("an argument is computed at run time (" + a.Value + ")")
		}
		if !strings.HasPrefix(a.Value, "-") && strings.ContainsRune(a.Value, 'e') {
			return roResult{asks: []string{"ps " + a.Value + " prints the processes' environment, whose values may hold keys"}}
		}
	}
	return roResult{}
}

// goRO: go version, go env (not -w or -u), go doc, go help. Everything
// else compiles or runs code, or downloads it.
func goRO(c SimpleCommand) roResult {
	args := c.Words[1:]
	for _, a := range args {
		if !a.Literal() {
			return notRO("an argument is computed at run time")
		}
	}
	if len(args) == 0 {
		return roResult{}
	}
	switch args[0].Value {
	case "version":
		var r roResult
		for _, a := range args[1:] {
			if !strings.HasPrefix(a.Value, "-") {
				r.paths = append(r.paths, a) // go version -m FILE
			}
		}
		return r
	case "doc", "help":
		return roResult{}
	case "env":
		for _, a := range args[1:] {
			if a.Value == "-w" || a.Value == "-u" {
				return notRO("go env " + a.Value + " changes the Go configuration")
			}
		}
		return roResult{}
	}
	return notRO("go " + args[0].Value + " builds, runs or downloads code")
}

// jqEnv finds jq's ways to read the environment ($ENV, env) and to load
// modules from files.
var jqEnv = lazyRE(`\$ENV\b|\$__prog_args\b|(^|[^A-Za-z0-9_$.])env\b|\b(import|include|input_filename)\b`)

// jqFilter: jq reads its files and prints what its filter (the first
// operand, unless -f gives a program file) says; the filter can print
// the environment ($ENV, env) and load modules. Its options' values are
// strings, JSON and module folders, printed only as the filter says.
func jqFilter(p parsed, r *roResult) {
	ops := p.operands
	r.names = nil
	switch {
	case slices.ContainsFunc(p.used, func(u used) bool { return u.opt.short == 'f' || u.opt.long == "from-file" }):
		r.asks = append(r.asks, "it runs a jq program from a file, which may print the environment")
	case len(ops) > 0:
		if jqEnv().MatchString(ops[0].Value) {
			r.asks = append(r.asks, "its jq filter may print the environment or read other files")
		}
		ops = ops[1:]
	}
	r.paths = append(r.paths, ops...)
}

// findPred is one of find's expression words: how many words it takes
// and whether they are files it reads.
type findPred struct {
	n    int
	path bool
	eff  effect
}

var findPreds = sync.OnceValue(func() map[string]findPred {
	kinds := map[string]findPred{"0": {}, "1": {n: 1}, "path": {n: 1, path: true}, "runs": {eff: effRuns},
		"writes": {eff: effWrites}, "names-file": {n: 1, eff: effNamesFile}}
	m := map[string]findPred{}
	for kind, preds := range tableMap("find") {
		for _, p := range preds {
			m[p] = kinds[kind]
		}
	}
	return m
})

var findNewer = lazyRE(`^-newer[aBcm]([aBcmt])$`)

// findRO parses find's command line: options, starting points, then an
// expression of predicates, each taking a fixed number of words. An
// unknown predicate is not read-only.
func findRO(c SimpleCommand) roResult {
	r := roResult{lists: true}
	args := c.Words[1:]
	i := 0
	for ; i < len(args); i++ {
		v := args[i].Value
		if !args[i].Literal() {
			break
		}
		switch {
		case v == "-H" || v == "-P":
		case v == "-L":
			r.eff |= effFollow
		case v == "-D":
			i++
		case strings.HasPrefix(v, "-O"):
		default:
			goto points
		}
	}
points:
	for ; i < len(args); i++ {
		a := args[i]
		if mayBeOption(a, c.Dir) {
			return notRO("an argument is computed at run time (" + a.Value + ") and could be -exec or -delete")
		}
		if strings.HasPrefix(a.Value, "-") || a.Value == "(" || a.Value == "!" {
			break
		}
		r.paths = append(r.paths, a)
	}
	for ; i < len(args); i++ {
		a := args[i]
		v := a.Value
		if mayBeOption(a, c.Dir) {
			return notRO("an argument is computed at run time (" + v + ") and could be -exec or -delete")
		}
		switch v {
		case "(", ")", "!", ",":
			continue
		}
		pr, ok := findPreds()[v]
		if m := findNewer().FindStringSubmatch(v); m != nil {
			pr, ok = findPred{n: 1, path: m[1] != "t"}, true
		}
		if v == "-follow" {
			r.eff |= effFollow
		}
		switch {
		case !ok:
			return notRO("it uses " + v + ", which godwit does not know for find")
		case pr.eff != 0:
			return notRO("it uses " + v + ", which " + pr.eff.reason())
		}
		for k := 0; k < pr.n && i+1 < len(args); k++ {
			i++
			if mayBeOption(args[i], c.Dir) {
				return notRO("the value of " + v + " is computed at run time (" + args[i].Value + ") and could split into -exec or -delete")
			}
			if pr.path {
				r.paths = append(r.paths, args[i])
			} else {
				r.names = append(r.names, args[i])
			}
		}
	}
	return r
}
