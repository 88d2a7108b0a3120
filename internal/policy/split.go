package policy

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Word is one shell word as far as it can be known before the command
// runs.
type Word struct {
	// Value is the word with quotes removed and escapes applied. When
	// Known is false it is only a best-effort rendering for display.
	Value string
	// Known is false when the shell computes part of the word at run time
	// ($VAR not in ShellEnv.Vars, $(...), $'...', {a,b}, ~user).
	Known bool
	// Glob is true when the word holds an unquoted *, ? or [: the shell
	// replaces it with matching file names.
	Glob bool
	// findName marks find's {} in an -exec command: a file name under
	// find's starting points, unknown, but never an option.
	findName bool
}

// Literal reports whether the word reaches the program exactly as Value.
func (w Word) Literal() bool { return w.Known && !w.Glob }

// SimpleCommand is one command the shell would run on its own: a program
// with its arguments, a bare assignment (FOO=1) or a declaration (export
// FOO=1).
type SimpleCommand struct {
	// Words are the program and its arguments; empty for a bare
	// assignment.
	Words []Word
	// Assigns are the variables assigned: before the program (FOO=1 cmd),
	// alone (FOO=1), or by a declaration.
	Assigns []string
	// Decl is the declaration builtin ("export", "declare", "local",
	// "readonly", "typeset", "nameref"); its flags are in Words.
	Decl string
	// Dir is the absolute directory the command runs in, "" when the
	// analysis cannot tell (a cd to a computed or missing directory).
	Dir string
	// Func is true when the program is a function defined in the same
	// command line (its body is checked command by command).
	Func bool
	// Stdin is what the command reads as its standard input.
	Stdin Stdin
	// Alias is set on the commands an alias defined in the line expands
	// to, after the command that used it.
	Alias bool
	// Async: the command runs alongside others (a pipeline's member, in
	// the background, a coprocess). Loop: it is in a loop or a function
	// body, so it may run again after the commands that follow it.
	Async, Loop bool
}

// StdinKind says where a command's standard input comes from.
type StdinKind uint8

const (
	// StdinNone: nothing (godwit runs command lines with /dev/null).
	StdinNone StdinKind = iota
	// StdinText: a here-document or here-string, in Stdin.Text.
	StdinText
	// StdinFile: a file redirected in (< file).
	StdinFile
	// StdinPipe: the output of another command.
	StdinPipe
	// StdinUnknown: cannot be told (a function's body, <&3).
	StdinUnknown
)

// Stdin is a command's standard input.
type Stdin struct {
	Kind StdinKind
	Text Word // StdinText
}

// Name is the program as written, "" for assignments and declarations.
func (c SimpleCommand) Name() string {
	if len(c.Words) == 0 || c.Decl != "" {
		return ""
	}
	return c.Words[0].Value
}

// Redirect is one redirection to or from a file.
type Redirect struct {
	Op     string // ">", ">>", "<", "<>", "&>", ...
	Target Word
	Write  bool // opens Target for writing
	Read   bool // opens Target for reading
	Dir    string
	// Before is the index in Script.Commands of the first command that
	// runs after the file is opened; Async and Loop as for commands.
	Before      int
	Async, Loop bool
}

// Script is what Split finds in a command line: every simple command,
// wherever it sits (pipelines, && || ; lists, subshells, blocks, loops,
// conditionals, function bodies, command and process substitutions), and
// every redirection to a file.
type Script struct {
	Commands  []SimpleCommand
	Redirects []Redirect
	// Sets are variables assigned other than by NAME=value or a
	// declaration: ${NAME:=v}, arithmetic (( NAME=1 )), a for loop's
	// variable, {NAME}>file, coproc NAME.
	Sets []string
	// Arith are the variables arithmetic evaluates; bash evaluates their
	// values as expressions, which can assign any variable.
	Arith []string
	// Params are the variables expanded anywhere in the line; "!" stands
	// for an indirect expansion (${!name}) of a variable named at run
	// time.
	Params []string
}

// ShellEnv is what Split may assume about the shell a command starts in.
type ShellEnv struct {
	// Dir is the absolute directory the command starts in (the workspace
	// root).
	Dir string
	// Home expands ~; empty leaves ~ unknown.
	Home string
	// Vars are variables whose value is known ($TMPDIR, $HOME); any other
	// $VAR makes its word unknown.
	Vars map[string]string
	// DirExists reports whether an absolute path is an existing
	// directory; it decides whether a cd is followed. Nil means none is.
	DirExists func(abs string) bool
}

// Split parses line as bash and returns its simple commands and file
// redirections. A line that does not parse returns an error; callers
// should then ask.
func Split(line string, env ShellEnv) (sc Script, err error) {
	defer func() {
		// The parser is fuzzed upstream, but a panic here would take the
		// whole approval down; a line we cannot read is only "unparsed".
		if v := recover(); v != nil {
			sc, err = Script{}, fmt.Errorf("policy: parsing the command failed: %v", v)
		}
	}()
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		return Script{}, fmt.Errorf("policy: the command does not parse as bash: %w", err)
	}
	s := &splitter{env: env, funcs: map[string]bool{}, aliases: map[string]Word{}}
	s.findAliases(f)
	dir := env.Dir
	s.stmts(f.Stmts, &dir)
	s.vars(f)
	if s.err != nil {
		return Script{}, s.err
	}
	return s.out, nil
}

// splitter walks the syntax tree in execution order, tracking the
// directory commands run in.
//
// Directory rules: a cd (or pushd) to a known, existing directory moves
// the tracked directory; any other cd, popd, or a cd in a part that may
// not run (the right of && or ||, a branch, a loop, a function body)
// makes it unknown afterwards. Subshells, pipeline members, background
// commands and substitutions work on a copy.
type splitter struct {
	env     ShellEnv
	out     Script
	funcs   map[string]bool
	aliases map[string]Word
	stdin   Stdin
	err     error
	depth   int
	// async and loop count the pipelines, background commands, loops
	// and function bodies the walk is in.
	async, loop int
	// keyword: set -k (set -o keyword) may be on, so a NAME=value word
	// after the program is an assignment, as bash reads it.
	keyword bool
	// anyAlias: an alias was defined whose name is computed at run
	// time, so any command may be one.
	anyAlias bool
}

// maxDepth bounds nesting, so a pathological line cannot exhaust the
// stack: bash itself would refuse long before.
const maxDepth = 200

func (s *splitter) stmts(list []*syntax.Stmt, dir *string) {
	for _, st := range list {
		s.stmt(st, dir)
	}
}

func (s *splitter) stmt(st *syntax.Stmt, dir *string) {
	if st == nil || s.err != nil {
		return
	}
	s.depth++
	defer func() { s.depth-- }()
	if s.depth > maxDepth {
		s.err = fmt.Errorf("policy: the command nests deeper than %d levels", maxDepth)
		return
	}
	// Redirections open before the command runs, in the directory it
	// starts in.
	saved := s.stdin
	defer func() { s.stdin = saved }()
	for _, r := range st.Redirs {
		s.redirect(r, *dir)
		s.input(r, *dir)
	}
	if st.Background || st.Coprocess || st.Disown {
		// A background command of a non-interactive shell reads
		// /dev/null unless redirected.
		if s.stdin == saved {
			s.stdin = Stdin{}
		}
		d := *dir
		s.async++
		s.command(st.Cmd, &d)
		s.async--
		return
	}
	s.command(st.Cmd, dir)
}

// input notes what a redirection makes the standard input.
func (s *splitter) input(r *syntax.Redirect, dir string) {
	if r.N != nil && r.N.Value != "0" {
		return
	}
	switch r.Op {
	case syntax.RdrIn, syntax.RdrInOut:
		s.stdin = Stdin{Kind: StdinFile}
	case syntax.Hdoc, syntax.DashHdoc:
		s.stdin = Stdin{Kind: StdinText, Text: s.word(r.Hdoc, dir)}
	case syntax.WordHdoc:
		w := s.word(r.Word, dir)
		w.Value += "\n"
		s.stdin = Stdin{Kind: StdinText, Text: w}
	case syntax.DplIn:
		s.stdin = Stdin{Kind: StdinUnknown}
	}
}

// findAliases records the aliases the line defines (alias r=rm), so that
// a command using one is also judged as what it expands to. Bash
// expands an alias only on a later line, and only with expand_aliases
// set; the analysis assumes the worst.
func (s *splitter) findAliases(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		c, ok := n.(*syntax.CallExpr)
		if !ok {
			return true
		}
		// BASH_ALIASES[name]=text defines an alias as alias does, and
		// BASH_CMDS[name]=path (the hash table) makes name run path.
		for _, a := range c.Assigns {
			if a.Name == nil || (a.Name.Value != "BASH_ALIASES" && a.Name.Value != "BASH_CMDS") {
				continue
			}
			s.tableAssign(a)
		}
		switch {
		case len(c.Args) >= 3 && c.Args[0].Lit() == "hash":
			// hash -p PATH NAME...: each NAME runs PATH.
			for i := 1; i+1 < len(c.Args); i++ {
				if c.Args[i].Lit() == "-p" {
					path := s.word(c.Args[i+1], "")
					for _, nw := range c.Args[i+2:] {
						if name := s.word(nw, ""); name.Known {
							s.aliases[name.Value] = path
						}
					}
					break
				}
			}
			return true
		case len(c.Args) < 2 || c.Args[0].Lit() != "alias":
			return true
		}
		for _, a := range c.Args[1:] {
			w := s.word(a, "")
			if name, val, ok := strings.Cut(w.Value, "="); ok && !strings.HasPrefix(name, "-") {
				s.aliases[name] = Word{Value: val, Known: w.Known}
			}
		}
		return true
	})
}

// tableAssign records BASH_ALIASES[k]=v, BASH_CMDS[k]=v and the
// array forms =([k]=v ...) as aliases; a key or value computed at run
// time is an alias of unknown text for every name ("*").
func (s *splitter) tableAssign(a *syntax.Assign) {
	set := func(k *syntax.ArithmExpr, v *syntax.Word) {
		key := ""
		if k != nil {
			if w, ok := (*k).(*syntax.Word); ok {
				if kw := s.word(w, ""); kw.Known {
					key = kw.Value
				}
			}
		}
		val := Word{}
		if v != nil {
			val = s.word(v, "")
		}
		if key == "" {
			s.anyAlias = true
			return
		}
		s.aliases[key] = val
	}
	if a.Index != nil || a.Value != nil {
		set(&a.Index, a.Value)
	}
	if a.Array != nil {
		for _, e := range a.Array.Elems {
			if e.Index == nil {
				s.anyAlias = true
				continue
			}
			set(&e.Index, e.Value)
		}
	}
}

// uncertain walks f on a copy of dir; if f moved it, the directory after
// is unknown, since f may not have run.
func (s *splitter) uncertain(dir *string, f func(d *string)) {
	d := *dir
	f(&d)
	if d != *dir {
		*dir = ""
	}
}

func (s *splitter) command(cmd syntax.Command, dir *string) {
	switch c := cmd.(type) {
	case nil:
	case *syntax.CallExpr:
		s.call(c, dir)
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.Pipe, syntax.PipeAll:
			x, y := *dir, *dir
			s.async++
			defer func() { s.async-- }()
			s.stmt(c.X, &x)
			saved := s.stdin
			s.stdin = Stdin{Kind: StdinPipe}
			s.stmt(c.Y, &y)
			s.stdin = saved
		default: // && ||
			s.stmt(c.X, dir)
			s.uncertain(dir, func(d *string) { s.stmt(c.Y, d) })
		}
	case *syntax.Subshell:
		d := *dir
		s.stmts(c.Stmts, &d)
	case *syntax.Block:
		s.stmts(c.Stmts, dir)
	case *syntax.IfClause:
		s.uncertain(dir, func(d *string) {
			for ic := c; ic != nil; ic = ic.Else {
				s.stmts(ic.Cond, d)
				s.stmts(ic.Then, d)
			}
		})
	case *syntax.WhileClause:
		s.loop++
		s.uncertain(dir, func(d *string) {
			s.stmts(c.Cond, d)
			s.stmts(c.Do, d)
		})
		s.loop--
	case *syntax.ForClause:
		if c.Loop != nil {
			s.nested(c.Loop, *dir)
		}
		s.loop++
		s.uncertain(dir, func(d *string) { s.stmts(c.Do, d) })
		s.loop--
	case *syntax.CaseClause:
		if c.Word != nil {
			s.nested(c.Word, *dir)
		}
		s.uncertain(dir, func(d *string) {
			for _, item := range c.Items {
				for _, p := range item.Patterns {
					s.nested(p, *d)
				}
				s.stmts(item.Stmts, d)
			}
		})
	case *syntax.FuncDecl:
		if c.Name != nil {
			s.funcs[c.Name.Value] = true
		}
		for _, n := range c.Names {
			s.funcs[n.Value] = true
		}
		// The body runs wherever the function is called, reading
		// whatever the call's input is: check it as if it ran here, and
		// forget the directory if it moves it.
		saved := s.stdin
		s.stdin = Stdin{Kind: StdinUnknown}
		s.loop++
		s.uncertain(dir, func(d *string) { s.stmt(c.Body, d) })
		s.loop--
		s.stdin = saved
	case *syntax.TimeClause:
		s.stmt(c.Stmt, dir)
	case *syntax.CoprocClause:
		d := *dir
		s.async++
		s.stmt(c.Stmt, &d)
		s.async--
	case *syntax.DeclClause:
		s.decl(c, *dir)
	case *syntax.TestClause:
		if c.X != nil {
			s.nested(c.X, *dir)
		}
	case *syntax.ArithmCmd:
		if c.X != nil {
			s.nested(c.X, *dir)
		}
	case *syntax.LetClause:
		for _, e := range c.Exprs {
			if e != nil {
				s.nested(e, *dir)
			}
		}
	default:
		// Anything else (zsh or mksh forms, test declarations): unknown
		// to the analysis, so the whole line asks.
		s.err = fmt.Errorf("policy: unsupported shell construct %T", cmd)
	}
}

// nested finds the commands inside a word or expression (command and
// process substitutions) and walks them as subshells in dir.
func (s *splitter) nested(n syntax.Node, dir string) {
	if n == nil {
		return
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		switch c := n.(type) {
		case *syntax.CmdSubst:
			d := dir
			s.stmts(c.Stmts, &d)
			return false
		case *syntax.ProcSubst:
			d := dir
			s.async++
			s.stmts(c.Stmts, &d)
			s.async--
			return false
		}
		return s.err == nil
	})
}

func (s *splitter) call(c *syntax.CallExpr, dir *string) {
	var names []string
	for _, a := range c.Assigns {
		s.nested(a, *dir)
		if a.Name != nil {
			names = append(names, a.Name.Value)
		}
	}
	words := make([]Word, 0, len(c.Args))
	for i, w := range c.Args {
		s.nested(w, *dir)
		wd := s.word(w, *dir)
		if m := assignWord().FindStringSubmatch(wd.Value); i > 0 && s.keyword && m != nil {
			names = append(names, m[1]) // set -k: an assignment for the program
			continue
		}
		words = append(words, wd)
	}
	if keywordOn(words) {
		s.keyword = true // from here on, whatever the branch: the analysis errs towards assignments
	}
	sc := SimpleCommand{Words: words, Assigns: names, Dir: *dir, Stdin: s.stdin, Async: s.async > 0, Loop: s.loop > 0}
	if len(words) > 0 && words[0].Literal() && s.funcs[words[0].Value] {
		sc.Func = true
	}
	s.out.Commands = append(s.out.Commands, sc)
	if len(words) > 0 && words[0].Literal() && !sc.Func {
		s.expandAlias(words[0].Value, words[1:], *dir, 0)
		if s.anyAlias {
			// Any name may be an alias of unknown text.
			s.out.Commands = append(s.out.Commands, SimpleCommand{Words: append([]Word{{Value: words[0].Value}}, words[1:]...),
				Dir: *dir, Stdin: s.stdin, Alias: true})
		}
	}
	if len(words) > 0 && words[0].Literal() {
		s.chdir(words[0].Value, words[1:], dir)
	}
}

// assignWord matches a word bash takes for an assignment under set -k.
var assignWord = lazyRE(`^([A-Za-z_][A-Za-z0-9_]*)(\[[^]]*\])?\+?=`)

// keywordOn reports whether a command may turn on bash's keyword option
// (set -k, set -o keyword, shopt -so keyword, or set with a computed
// argument).
func keywordOn(words []Word) bool {
	if len(words) < 2 || !words[0].Literal() || (words[0].Value != "set" && words[0].Value != "shopt") {
		return false
	}
	for _, a := range words[1:] {
		v := a.Value
		switch {
		case !a.Known:
			return true
		case v == "keyword":
			return true
		case v == "--":
			return false
		case words[0].Value == "set" && strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.Contains(v, "k"):
			return true
		}
	}
	return false
}

// maxAlias bounds aliases expanding to aliases.
const maxAlias = 4

// expandAlias adds the commands an alias use expands to: the alias's
// text, its last command taking the arguments.
func (s *splitter) expandAlias(name string, args []Word, dir string, depth int) {
	a, ok := s.aliases[name]
	if !ok || depth >= maxAlias {
		return
	}
	if !a.Known {
		s.out.Commands = append(s.out.Commands, SimpleCommand{Words: append([]Word{a}, args...), Dir: dir, Stdin: s.stdin, Alias: true})
		return
	}
	sub, err := Split(a.Value, ShellEnv{Dir: dir, Home: s.env.Home, Vars: s.env.Vars, DirExists: s.env.DirExists})
	if err != nil || len(sub.Commands) == 0 {
		s.out.Commands = append(s.out.Commands, SimpleCommand{Words: append([]Word{{Value: a.Value}}, args...), Dir: dir, Stdin: s.stdin, Alias: true})
		return
	}
	for i, c := range sub.Commands {
		c.Alias, c.Stdin = true, s.stdin
		if i == len(sub.Commands)-1 {
			c.Words = append(c.Words, args...)
		}
		s.out.Commands = append(s.out.Commands, c)
		if len(c.Words) > 0 && c.Words[0].Literal() && c.Words[0].Value != name {
			s.expandAlias(c.Words[0].Value, c.Words[1:], dir, depth+1)
		}
	}
	s.out.Redirects = append(s.out.Redirects, sub.Redirects...)
}

// chdir follows cd and pushd to a known, existing directory; any other
// change of directory makes it unknown.
func (s *splitter) chdir(name string, args []Word, dir *string) {
	switch name {
	case "cd", "pushd":
	case "popd":
		*dir = ""
		return
	default:
		return
	}
	var ops []Word
	for _, a := range args {
		if a.Known && (a.Value == "-L" || a.Value == "-P" || a.Value == "-e" || a.Value == "-n") {
			continue
		}
		ops = append(ops, a)
	}
	target := s.env.Home
	switch {
	case len(ops) == 0 && name == "cd":
	case len(ops) == 1 && ops[0].Literal() && ops[0].Value != "-" && !strings.HasPrefix(ops[0].Value, "+"):
		target = ops[0].Value
	default:
		*dir = ""
		return
	}
	if target == "" {
		*dir = ""
		return
	}
	abs := resolveIn(*dir, target)
	if abs == "" || s.env.DirExists == nil || !s.env.DirExists(abs) {
		*dir = ""
		return
	}
	*dir = abs
}

func (s *splitter) decl(c *syntax.DeclClause, dir string) {
	sc := SimpleCommand{Decl: c.Variant.Value, Dir: dir}
	for _, a := range c.Args {
		s.nested(a, dir)
		switch {
		case a.Naked && a.Name == nil && a.Value != nil:
			sc.Words = append(sc.Words, s.word(a.Value, dir)) // a flag such as -n
		case a.Name != nil:
			sc.Assigns = append(sc.Assigns, a.Name.Value)
		}
	}
	s.out.Commands = append(s.out.Commands, sc)
}

func (s *splitter) redirect(r *syntax.Redirect, dir string) {
	if r.Word != nil {
		s.nested(r.Word, dir)
	}
	if r.Hdoc != nil {
		s.nested(r.Hdoc, dir)
	}
	rd := Redirect{Op: r.Op.String(), Dir: dir, Before: len(s.out.Commands), Async: s.async > 0, Loop: s.loop > 0}
	if r.N != nil {
		rd.Op = r.N.Value + rd.Op
	}
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob,
		syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob:
		rd.Write = true
	case syntax.RdrInOut:
		rd.Write, rd.Read = true, true
	case syntax.RdrIn:
		rd.Read = true
	case syntax.DplOut, syntax.DplIn:
		// >&2, <&0, >&- duplicate or close descriptors; `>& file` is
		// bash's "both streams to file".
		w := s.word(r.Word, dir)
		if w.Literal() && fdWord().MatchString(w.Value) {
			return
		}
		rd.Write = r.Op == syntax.DplOut
		rd.Read = r.Op == syntax.DplIn
	default: // here-documents and here-strings read no file
		return
	}
	rd.Target = s.word(r.Word, dir)
	s.out.Redirects = append(s.out.Redirects, rd)
}

// vars finds what the line does with variables beyond what its simple
// commands show (Script.Sets, Arith, Params).
func (s *splitter) vars(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.ParamExp:
			if x.Param != nil {
				s.out.Params = append(s.out.Params, x.Param.Value)
			}
			if x.Excl && x.Names == 0 {
				s.out.Params = append(s.out.Params, "!")
			}
			if x.Exp != nil && x.Param != nil && (x.Exp.Op == syntax.AssignUnset || x.Exp.Op == syntax.AssignUnsetOrNull) {
				s.out.Sets = append(s.out.Sets, x.Param.Value)
			}
			if x.Slice != nil {
				s.arith(x.Slice.Offset)
				s.arith(x.Slice.Length)
			}
			if x.Index != nil {
				s.arith(x.Index)
			}
		case *syntax.Assign:
			if x.Index != nil {
				s.arith(x.Index)
			}
		case *syntax.ArithmExp:
			s.arith(x.X)
		case *syntax.ArithmCmd:
			s.arith(x.X)
		case *syntax.LetClause:
			for _, e := range x.Exprs {
				s.arith(e)
			}
		case *syntax.CStyleLoop:
			s.arith(x.Init)
			s.arith(x.Cond)
			s.arith(x.Post)
		case *syntax.WordIter:
			if x.Name != nil {
				s.out.Sets = append(s.out.Sets, x.Name.Value)
			}
		case *syntax.CoprocClause:
			if x.Name != nil {
				s.out.Sets = append(s.out.Sets, x.Name.Lit())
			}
		case *syntax.Redirect:
			if x.N != nil && strings.HasPrefix(x.N.Value, "{") {
				s.out.Sets = append(s.out.Sets, strings.Trim(x.N.Value, "{}"))
			}
		case *syntax.BinaryTest:
			switch x.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLss, syntax.TsGtr, syntax.TsLeq, syntax.TsGeq:
				// [[ a -eq b ]] evaluates both sides as arithmetic.
				for _, side := range []syntax.TestExpr{x.X, x.Y} {
					if w, ok := side.(*syntax.Word); ok && !arithNumber().MatchString(w.Lit()) {
						s.out.Arith = append(s.out.Arith, source(w))
					}
				}
			}
		}
		return true
	})
}

// arith records what an arithmetic expression assigns and evaluates.
func (s *splitter) arith(e syntax.ArithmExpr) {
	if e == nil {
		return
	}
	syntax.Walk(e, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.BinaryArithm:
			switch x.Op {
			case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn,
				syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn,
				syntax.AndBoolAssgn, syntax.OrBoolAssgn, syntax.XorBoolAssgn, syntax.PowAssgn:
				if w, ok := x.X.(*syntax.Word); ok {
					s.out.Sets = append(s.out.Sets, w.Lit())
				}
			}
		case *syntax.UnaryArithm:
			if x.Op == syntax.Inc || x.Op == syntax.Dec {
				if w, ok := x.X.(*syntax.Word); ok {
					s.out.Sets = append(s.out.Sets, w.Lit())
				}
			}
		case *syntax.Word:
			if l := x.Lit(); l == "" || !arithNumber().MatchString(l) {
				s.out.Arith = append(s.out.Arith, source(x))
			}
			return false
		}
		return true
	})
}

// arithNumber matches an arithmetic constant: 42, 0x2a, 16#2a.
var arithNumber = lazyRE(`^[0-9][0-9xXa-fA-F#]*$`)

// fdWord matches the descriptor of >&N, >&N- (moves) or >&- (closes).
var fdWord = lazyRE(`^[0-9]*-?$`)
