package policy

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// make's recipes are judged by the deny and ask rules. GNU make is read
// well enough to find commands, not to build: conditionals take both
// branches; what cannot be read ($(eval), SHELL) asks.

// makeOpts is GNU make's option table.
var makeOpts = sync.OnceValue(func() getopt { return specOf("make") })

// makeDefaults are make's built-in variables that name programs.
var makeDefaults = map[string]string{"AR": "ar", "AS": "as", "CC": "cc", "CXX": "g++", "CPP": "$(CC) -E", "FC": "f77",
	"LD": "ld", "LEX": "lex", "YACC": "yacc", "M2C": "m2c", "PC": "pc", "MAKEINFO": "makeinfo", "TEX": "tex",
	"RM": "rm -f", "MAKE": "make", "SHELL": "/bin/sh", "CO": "co", "GET": "get"}

// maxMakeFiles bounds the Makefiles one make command is read from.
const maxMakeFiles = 16

// mkRule is one rule of a Makefile.
type mkRule struct {
	targets, prereqs []string
	recipe           []string
	pattern          bool // %.o: %.c, .c.o:, .DEFAULT: may run for any target
}

// makefile is what make would read.
type makefile struct {
	u      *unwrapper
	dir    string
	vars   map[string][]string // every definition, in order
	rules  []*mkRule
	shell  []string // commands run while the Makefile is read: $(shell ...), !=
	goal   string   // the default target
	hidden string
	files  int
	steps  int // references expanded, bounded by maxMakeSteps
}

// maxMakeSteps bounds the references one make command's expansion
// follows: x = $(x)$(x)$(x) doubles at each level.
const maxMakeSteps = 20000

func (m *makefile) hide(why string) {
	if m.hidden == "" {
		m.hidden = why
	}
}

// makeRuns is what a make command runs.
func (u *unwrapper) makeRuns(c SimpleCommand, args []Word, depth int) unwrapped {
	var out unwrapped
	g := makeOpts()
	pa := g.parse(args, c.Dir)
	if pa.why != "" {
		out.hide("make: " + pa.why)
		return out
	}
	m := &makefile{u: u, dir: c.Dir, vars: map[string][]string{}}
	var files []Word
	var evals []string
	for _, o := range pa.used {
		switch {
		case !o.has:
		case o.opt.short == 'C' || o.opt.long == "directory":
			if o.value.Literal() && m.dir != "" {
				m.dir = resolveIn(m.dir, o.value.Value)
			} else {
				m.dir = ""
			}
		case o.opt.short == 'f' || o.opt.long == "file" || o.opt.long == "makefile":
			files = append(files, o.value)
		case o.opt.short == 'E' || o.opt.long == "eval":
			if !o.value.Known {
				out.hide("make --eval is given code computed at run time")
			}
			evals = append(evals, o.value.Value)
		}
	}
	overrides := map[string]string{}
	var targets []string
	for _, op := range pa.operands {
		if !op.Known {
			out.hide("make is given an argument computed at run time (" + op.Value + ")")
			continue
		}
		if name, val, ok := strings.Cut(op.Value, "="); ok && makeVarName().MatchString(strings.TrimRight(name, ":+?!")) {
			overrides[strings.TrimRight(name, ":+?!")] = val
			continue
		}
		targets = append(targets, op.Value)
	}
	for _, a := range c.Assigns {
		overrides[a] = "$__MAKE_VALUE" // NAME=value make: make takes the environment's variables
	}
	if m.dir == "" {
		out.hide("make runs in a folder computed at run time")
		return out
	}
	if len(files) == 0 {
		for _, n := range []string{"GNUmakefile", "makefile", "Makefile"} {
			if isFile(filepath.Join(m.dir, n)) {
				files = []Word{{Value: n, Known: true}}
				break
			}
		}
	}
	for _, f := range files {
		m.read(f, depth)
	}
	for _, e := range evals {
		m.parse(e, depth)
	}
	for k, v := range overrides {
		m.vars[k] = []string{v} // the command line beats the Makefile
	}
	if sh := m.value("SHELL"); sh != "" && !shells.has(baseName(strings.TrimSpace(sh))) {
		m.hide("the Makefile runs its recipes with SHELL=" + sh)
	}
	if len(m.vars[".SHELLFLAGS"]) > 0 {
		m.hide("the Makefile sets .SHELLFLAGS")
	}
	if g := strings.TrimSpace(m.value(".DEFAULT_GOAL")); g != "" {
		m.goal = g
	}
	if len(targets) == 0 && m.goal != "" {
		targets = []string{m.goal}
	}
	// The recipes and $(shell ...) calls are judged as one script whose
	// lines may run in any order and again (make orders them by
	// prerequisites, not by text): written in a loop, any file a recipe
	// may write counts as written before a script another one runs.
	var lines []string
	for _, s := range m.shell {
		lines = append(lines, m.expand(s, 0, nil))
	}
	for _, r := range m.selected(targets) {
		for _, line := range r.recipe {
			line = strings.TrimLeft(line, " \t@+-") // make's prefixes: silent, always, ignore errors
			var alts []string
			lines = append(lines, m.expand(line, 0, &alts))
			lines = append(lines, alts...)
		}
	}
	text := "while :; do\n" + strings.ReplaceAll(strings.Join(lines, "\n"), "\x00", "$") + "\ndone\n"
	if len(text) > maxScript {
		m.hide("the Makefile's recipes expand to more than godwit reads")
	} else if len(lines) > 0 {
		out.add(u.scriptText(SimpleCommand{Dir: m.dir, Stdin: c.Stdin}, text, "a recipe of the Makefile", "", depth))
	}
	out.hide(m.hidden)
	return out
}

var makeVarName = lazyRE(`^[A-Za-z0-9_.-]+$`)

// makeAssign matches a variable assignment.
var makeAssign = lazyRE(`^((?:override|export|private|unexport)\s+)*([^:#=\s]+)\s*(:::=|::=|:=|\+=|\?=|!=|=)\s*(.*)$`)

// read reads one Makefile (or included file) relative to make's folder.
func (m *makefile) read(f Word, depth int) {
	if m.files++; m.files > maxMakeFiles {
		m.hide("the Makefile includes more files than godwit reads")
		return
	}
	text, _, why := m.u.readRun(m.dir, f, "Makefile")
	if why != "" {
		m.hide(why)
		return
	}
	m.parse(text, depth)
}

// parse reads Makefile text: variables, rules and their recipes,
// includes, and the commands run while reading.
func (m *makefile) parse(text string, depth int) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var cur *mkRule
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		for strings.HasSuffix(line, "\\") && i+1 < len(lines) {
			i++
			line = strings.TrimSuffix(line, "\\") + " " + strings.TrimLeft(lines[i], " \t")
		}
		if strings.HasPrefix(line, "\t") && cur != nil {
			cur.recipe = append(cur.recipe, line[1:])
			m.shellCalls(line)
			continue
		}
		line = strings.TrimSpace(stripMakeComment(line))
		if line == "" {
			continue
		}
		word, rest, _ := strings.Cut(line, " ")
		switch word {
		case "define":
			name := strings.Fields(rest)
			var body []string
			for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "endef"; i++ {
				body = append(body, lines[i])
			}
			if len(name) > 0 {
				m.vars[name[0]] = append(m.vars[name[0]], strings.Join(body, "\n"))
			}
			m.shellCalls(strings.Join(body, "\n"))
			continue
		case "include", "-include", "sinclude":
			for _, f := range strings.Fields(m.expand(rest, 0, nil)) {
				if strings.Contains(f, "$") || strings.ContainsAny(f, "*?[") {
					m.hide("the Makefile includes a file named at run time (" + f + ")")
					continue
				}
				if word != "include" && !isFile(resolveIn(m.dir, f)) {
					continue // -include skips a missing file
				}
				m.read(Word{Value: f, Known: true}, depth)
			}
			continue
		case "ifeq", "ifneq", "ifdef", "ifndef", "else", "endif", "vpath", "unexport":
			continue // both branches are read; a conditional may sit inside a recipe
		}
		if strings.Contains(line, "$(eval") || strings.Contains(line, "${eval") {
			m.hide("the Makefile uses $(eval), which makes rules godwit cannot read")
		}
		m.shellCalls(line)
		if a := makeAssign().FindStringSubmatch(line); a != nil && !strings.Contains(a[2], "%") {
			switch v := a[4]; a[3] {
			case "!=":
				m.shell = append(m.shell, v)
				m.vars[a[2]] = append(m.vars[a[2]], "$__MAKE_VALUE")
			case "+=":
				m.vars[a[2]] = append(m.vars[a[2]], strings.TrimSpace(m.value(a[2])+" "+v))
			default:
				m.vars[a[2]] = append(m.vars[a[2]], v)
			}
			cur = nil
			continue
		}
		cur = m.rule(line)
	}
}

// rule reads a rule line: targets, prerequisites, an inline recipe.
func (m *makefile) rule(line string) *mkRule {
	i := makeColon(line)
	if i < 0 {
		return nil
	}
	r := &mkRule{targets: strings.Fields(line[:i])}
	rest := strings.TrimLeft(line[i+1:], ":")
	if a := makeAssign().FindStringSubmatch(strings.TrimSpace(rest)); a != nil && !strings.Contains(a[2], "%") {
		// A target-specific variable: it may be used by any recipe.
		m.vars[a[2]] = append(m.vars[a[2]], a[4])
		return nil
	}
	if pre, recipe, ok := strings.Cut(rest, ";"); ok {
		rest = pre
		r.recipe = append(r.recipe, recipe)
	}
	if j := makeColon(rest); j >= 0 { // static pattern: targets: %.o: %.c
		rest = rest[j+1:]
	}
	for _, p := range strings.Fields(rest) {
		if p != "|" {
			r.prereqs = append(r.prereqs, p)
		}
	}
	for _, t := range r.targets {
		suffix := strings.HasPrefix(t, ".") && strings.Count(t, ".") >= 1 && !strings.Contains(t, "/") && len(t) > 1 && strings.IndexByte(t[1:], '.') >= 0
		switch {
		case strings.Contains(t, "%") || suffix || t == ".DEFAULT":
			r.pattern = true
		case m.goal == "" && !strings.HasPrefix(t, "."):
			m.goal = t
		}
	}
	m.rules = append(m.rules, r)
	return r
}

// makeColon finds the colon that ends a rule's targets (not := or one
// inside $(...)).
func makeColon(line string) int {
	depth := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '(', '{':
			depth++
		case ')', '}':
			depth--
		case ':':
			if depth == 0 && !(i+1 < len(line) && line[i+1] == '=') {
				return i
			}
		}
	}
	return -1
}

func stripMakeComment(line string) string {
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '#':
			return line[:i]
		}
	}
	return line
}

// shellCalls records the $(shell ...) calls in text.
func (m *makefile) shellCalls(text string) {
	for _, pre := range []string{"$(shell ", "${shell "} {
		for i := 0; ; {
			j := strings.Index(text[i:], pre)
			if j < 0 {
				break
			}
			start := i + j + len(pre)
			end := matchParen(text, i+j+1)
			if end < 0 {
				m.hide("the Makefile has a $(shell ...) godwit cannot read")
				return
			}
			m.shell = append(m.shell, text[start:end])
			i = end
		}
	}
}

// matchParen returns the index of the bracket closing the one at i.
func matchParen(s string, i int) int {
	open, close := s[i], byte(')')
	if open == '{' {
		close = '}'
	}
	depth := 0
	for k := i; k < len(s); k++ {
		switch s[k] {
		case open:
			depth++
		case close:
			if depth--; depth == 0 {
				return k
			}
		}
	}
	return -1
}

// value is a variable's last definition ("" when none).
func (m *makefile) value(name string) string {
	if d := m.vars[name]; len(d) > 0 {
		return d[len(d)-1]
	}
	return ""
}

// maxMakeExpand bounds nested variable references.
const maxMakeExpand = 10

// expand replaces make's references in s: $$ becomes $ (as \x00 until
// the line is judged), a variable its last definition (and alts gets
// the line with each earlier one), an automatic variable a placeholder
// file name, and a function or an unknown variable a word the shell
// analysis cannot know.
func (m *makefile) expand(s string, depth int, alts *[]string) string {
	if depth > maxMakeExpand {
		return "$__MAKE_VALUE"
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		c := s[i]
		var ref string
		switch c {
		case '$':
			b.WriteByte(0)
			continue
		case '(', '{':
			end := matchParen(s, i)
			if end < 0 {
				b.WriteString("$__MAKE_VALUE")
				i = len(s)
				continue
			}
			ref = s[i+1 : end]
			i = end
		default:
			ref = string(c)
		}
		b.WriteString(m.ref(ref, depth, alts))
	}
	return b.String()
}

// ref expands one $(ref).
func (m *makefile) ref(ref string, depth int, alts *[]string) string {
	if m.steps++; m.steps > maxMakeSteps {
		m.hide("the Makefile's variables expand further than godwit follows")
		return "$__MAKE_VALUE"
	}
	if strings.ContainsAny(ref, "@<^*?+|%") && len(ref) <= 2 {
		return "make-target" // $@, $<, $(@D): file names
	}
	fn, args, isFn := strings.Cut(ref, " ")
	if isFn {
		switch fn {
		case "call":
			name, _, _ := strings.Cut(args, ",")
			return m.expand(m.value(strings.TrimSpace(name)), depth+1, alts)
		case "shell":
			return "$__MAKE_VALUE" // judged as a line of its own (shellCalls)
		}
		return "$__MAKE_VALUE"
	}
	ref = m.expand(ref, depth+1, nil) // $($(X)_CMD)
	defs := m.vars[ref]
	if len(defs) == 0 {
		if v, ok := makeDefaults[ref]; ok {
			return m.expand(v, depth+1, alts)
		}
		if v, ok := m.u.p.vars[ref]; ok {
			return v
		}
		if ref == "CURDIR" && m.dir != "" {
			return m.dir
		}
		return "$__MAKE_VALUE" // the environment's, or unset
	}
	if alts != nil && len(defs) > 1 {
		for _, d := range defs[:len(defs)-1] {
			*alts = append(*alts, m.expand(d, depth+1, nil))
		}
	}
	return m.expand(defs[len(defs)-1], depth+1, alts)
}

// selected are the rules whose recipes may run for targets: the rules
// of the targets and of their prerequisites, and every pattern rule. A
// target named by a variable selects every rule.
func (m *makefile) selected(targets []string) []*mkRule {
	var out []*mkRule
	picked := map[*mkRule]bool{}
	pick := func(r *mkRule) {
		if !picked[r] {
			picked[r] = true
			out = append(out, r)
		}
	}
	for _, r := range m.rules {
		if r.pattern {
			pick(r)
		}
	}
	seen := map[string]bool{}
	work := append([]string(nil), targets...)
	for len(work) > 0 {
		t := work[0]
		work = work[1:]
		if seen[t] {
			continue
		}
		seen[t] = true
		if strings.Contains(t, "$") {
			t = m.expand(t, 0, nil)
		}
		if strings.Contains(t, "$") || strings.Contains(t, "\x00") {
			for _, r := range m.rules {
				pick(r)
			}
			return out
		}
		for _, r := range m.rules {
			if slices.ContainsFunc(r.targets, func(rt string) bool { return m.names(rt, t) }) {
				pick(r)
				work = append(work, r.prereqs...)
			}
		}
	}
	return out
}

// names reports whether a rule's target word rt may name target t.
func (m *makefile) names(rt, t string) bool {
	if rt == t {
		return true
	}
	if !strings.Contains(rt, "$") {
		return false
	}
	e := m.expand(rt, 0, nil)
	if strings.Contains(e, "$") {
		return true // unknown: it may be t
	}
	return slices.Contains(strings.Fields(e), t)
}

func isFile(abs string) bool {
	if abs == "" {
		return false
	}
	fi, err := os.Stat(abs)
	return err == nil && fi.Mode().IsRegular()
}
