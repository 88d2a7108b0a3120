package policy

import (
	"slices"
	"strings"
)

// The built-in read-only commands run without approval in every mode,
// read-only included. The bar for the list: the program cannot change a
// file or start another program, whatever its arguments, except through
// the flags listed as bad. Where a computed argument ($X, a glob) could
// turn into a bad flag, every argument must be literal.
//
// Left out on purpose:
//   - go test, go build, go vet, make, npm, cargo, pytest: they run or
//     compile the project's code, which can do anything.
//   - sed and awk (sed's w and e commands, awk's system() and print >),
//     xargs, env CMD, timeout, nice, nohup, command CMD, exec, eval,
//     source, bash -c: they write or run what their arguments say.
//   - less and more (they run an editor or shell on request), tee, read
//     (assigns any variable), hash, alias.
//
// A computed program name ($CMD), a path to a program (./ls) and a
// command with a variable set in front of it (GIT_PAGER=x git log) are
// never read-only. Paths a read-only command reads are still checked:
// secrets and files outside the workspace ask.
//
// In read-only mode the sandbox refuses every write anyway, so a mistake
// in this list cannot change the workspace where Landlock works.

type argKind int

const (
	argsNone         argKind = iota // arguments are not file names
	argsPaths                       // operands are files read
	argsPatternPaths                // first operand is a pattern, the rest files (unless -e/-f gives it)
	argsFind                        // files until the first expression
)

type roSpec struct {
	args argKind
	// bad are flags that make the command write or run programs: "-o"
	// also matches clusters such as -uo; "--output" also "--output=x";
	// "-exec" (one dash, longer) matches exactly.
	bad []string
	// literal requires every argument to be literal.
	literal bool
	// maxOps bounds operands (uniq IN OUT writes OUT); -1 is no bound.
	maxOps int
	// custom replaces the generic check.
	custom func(args []Word) (paths, names []Word, why string)
}

var (
	roNone  = roSpec{args: argsNone, maxOps: -1}
	roPaths = roSpec{args: argsPaths, maxOps: -1}
)

var readOnly = map[string]roSpec{
	// Shell builtins and keywords that change nothing outside the shell.
	":": roNone, "true": roNone, "false": roNone, "echo": roNone, "printf": roNone, "pwd": roNone,
	"test": roNone, "[": roNone, "cd": roNone, "pushd": roNone, "popd": roNone, "dirs": roNone,
	"exit": roNone, "return": roNone, "break": roNone, "continue": roNone, "wait": roNone, "jobs": roNone,
	"shift": roNone, "unset": roNone, "set": roNone, "type": roNone, "which": roNone,

	// Facts about the system.
	"whoami": roNone, "id": roNone, "uname": roNone, "nproc": roNone, "arch": roNone, "uptime": roNone,
	"locale": roNone, "printenv": roNone, "ps": roNone, "sleep": roNone, "seq": roNone,
	"basename": roNone, "dirname": roNone, "realpath": roNone, "readlink": roNone,
	"date":     {args: argsNone, maxOps: -1, bad: []string{"-s", "--set"}, literal: true},
	"hostname": {args: argsNone, maxOps: 0, bad: []string{"-F", "--file", "-b", "--boot"}, literal: true},
	"env":      {args: argsNone, maxOps: 0, bad: []string{"-"}, literal: true}, // env alone prints; env CMD runs CMD

	// Readers.
	"cat": roPaths, "head": roPaths, "tail": roPaths, "wc": roPaths, "ls": roPaths, "stat": roPaths,
	"diff": roPaths, "cmp": roPaths, "nl": roPaths, "tac": roPaths, "rev": roPaths, "fold": roPaths,
	"expand": roPaths, "unexpand": roPaths, "paste": roPaths, "join": roPaths, "comm": roPaths,
	"strings": roPaths, "od": roPaths, "hexdump": roPaths, "cut": roPaths, "column": roPaths, "tr": roNone,
	"md5sum": roPaths, "sha1sum": roPaths, "sha224sum": roPaths, "sha256sum": roPaths, "sha384sum": roPaths,
	"sha512sum": roPaths, "b2sum": roPaths, "cksum": roPaths, "du": roPaths, "df": roPaths,
	"file":  {args: argsPaths, maxOps: -1, bad: []string{"-C", "--compile"}, literal: true},
	"tree":  {args: argsPaths, maxOps: -1, bad: []string{"-o"}, literal: true},
	"sort":  {args: argsPaths, maxOps: -1, bad: []string{"-o", "--output", "--compress-program"}, literal: true},
	"uniq":  {args: argsPaths, maxOps: 1, literal: true},
	"xxd":   {args: argsPaths, maxOps: 1, literal: true},
	"grep":  {args: argsPatternPaths, maxOps: -1},
	"egrep": {args: argsPatternPaths, maxOps: -1},
	"fgrep": {args: argsPatternPaths, maxOps: -1},
	"rg":    {args: argsPatternPaths, maxOps: -1, bad: []string{"--pre"}, literal: true},
	"ag":    {args: argsPatternPaths, maxOps: -1, bad: []string{"--pager"}, literal: true},
	"fd":    {args: argsPatternPaths, maxOps: -1, bad: []string{"-x", "-X", "--exec", "--exec-batch"}, literal: true},
	"jq":    {args: argsPatternPaths, maxOps: -1},
	"find": {args: argsFind, maxOps: -1, literal: true, bad: []string{
		"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}},

	"command": {custom: commandRO},
	"git":     {custom: gitRO},
	"go":      {custom: goRO},
}

// checkReadOnly reports why c is not read-only ("" when it is), and the
// words it reads as files (paths) or that should merely not name a
// secret (names).
func checkReadOnly(c SimpleCommand) (paths, names []Word, why string) {
	if c.Func || len(c.Words) == 0 || c.Decl != "" {
		// A function's body is checked command by command; assignments
		// and declarations are judged by the variables they set.
		return nil, nil, ""
	}
	name := c.Words[0]
	switch {
	case !name.Literal():
		return nil, nil, "the program is computed at run time"
	case strings.ContainsRune(name.Value, '/'):
		return nil, nil, "it runs a program by path"
	case len(c.Assigns) > 0:
		return nil, nil, "it sets " + c.Assigns[0] + " for the program"
	}
	spec, ok := readOnly[name.Value]
	if !ok {
		return nil, nil, "it is not a known read-only command"
	}
	if spec.custom != nil {
		return spec.custom(c.Words[1:])
	}
	return spec.check(c.Words[1:])
}

func (sp roSpec) check(args []Word) (paths, names []Word, why string) {
	if sp.literal {
		for _, a := range args {
			if !a.Literal() {
				return nil, nil, "an argument is computed at run time (" + a.Value + ")"
			}
		}
	}
	patternByFlag := sp.args == argsPatternPaths && slices.ContainsFunc(args, isPatternFlag)
	ops, dashdash, expr := 0, false, false
	for _, a := range args {
		v := a.Value
		if !dashdash && a.Known && v == "--" {
			dashdash = true
			continue
		}
		if !dashdash && a.Known && len(v) > 1 && (v[0] == '-' || (sp.args == argsFind && (v == "(" || v == "!"))) {
			if b := sp.badFlag(v); b != "" {
				return nil, nil, "it uses " + b
			}
			if _, val, ok := strings.Cut(v, "="); ok {
				names = append(names, Word{Value: val, Known: true})
			}
			expr = true
			continue
		}
		if sp.args == argsFind && a.Known && (v == "(" || v == ")" || v == "!") {
			expr = true
			continue
		}
		switch {
		case sp.args == argsNone:
		case sp.args == argsFind && expr:
			names = append(names, a)
		case sp.args == argsPatternPaths && ops == 0 && !patternByFlag:
			names = append(names, a)
		default:
			paths = append(paths, a)
		}
		ops++
	}
	if sp.maxOps >= 0 && ops > sp.maxOps {
		return nil, nil, "it takes an output file operand"
	}
	return paths, names, ""
}

func (sp roSpec) badFlag(v string) string {
	for _, b := range sp.bad {
		switch {
		case b == "-": // env -: any flag at all
			return v
		case strings.HasPrefix(b, "--"):
			if v == b || strings.HasPrefix(v, b+"=") {
				return b
			}
		case len(b) == 2:
			if !strings.HasPrefix(v, "--") && strings.ContainsRune(v[1:], rune(b[1])) {
				return b
			}
		case v == b:
			return b
		}
	}
	return ""
}

func isPatternFlag(a Word) bool {
	v := a.Value
	switch {
	case !a.Known:
		return false
	case v == "-e" || v == "-f" || strings.HasPrefix(v, "--regexp") || strings.HasPrefix(v, "--file"):
		return true
	case len(v) > 2 && v[0] == '-' && v[1] != '-':
		last := v[len(v)-1]
		return last == 'e' || last == 'f'
	}
	return false
}

// commandRO: only `command -v NAME` and `command -V NAME` (lookups);
// `command NAME` runs NAME.
func commandRO(args []Word) (paths, names []Word, why string) {
	if len(args) > 0 && args[0].Known && (args[0].Value == "-v" || args[0].Value == "-V") {
		return nil, nil, ""
	}
	return nil, nil, "command runs the program it names"
}

// goRO: go version, go env (not -w or -u), go doc, go help. Everything
// else compiles or runs code, or downloads it.
func goRO(args []Word) (paths, names []Word, why string) {
	for _, a := range args {
		if !a.Literal() {
			return nil, nil, "an argument is computed at run time"
		}
	}
	if len(args) == 0 {
		return nil, nil, ""
	}
	switch args[0].Value {
	case "version", "doc", "help":
		return nil, nil, ""
	case "env":
		for _, a := range args[1:] {
			if a.Value == "-w" || a.Value == "-u" {
				return nil, nil, "go env " + a.Value + " changes the Go configuration"
			}
		}
		return nil, nil, ""
	}
	return nil, nil, "go " + args[0].Value + " builds, runs or downloads code"
}
