package policy

import (
	"os"
	"path"
	"strings"
)

// Option tables are matched as GNU getopt_long matches them; an option
// the table does not know, or a computed word where one could be, is not
// trusted.

// effect is what an option does, as far as approval cares.
type effect uint16

const (
	effWrites    effect = 1 << iota // writes a file (sort -o)
	effRuns                         // runs a program (sort --compress-program, rg --pre)
	effNamesFile                    // reads the names of the files to read from a file (--files0-from)
	effSets                         // sets something outside the output (date -s, printf -v)
	effPath                         // its value is a file it reads (grep -f FILE)
	effRecurse                      // reads folders recursively (grep -r, diff -r)
	effFollow                       // follows symlinks while recursing (grep -R)
	effHidden                       // searches hidden files (rg --hidden)
	effPattern                      // gives the pattern, so every operand is a file (grep -e)
	// A wrapper's options (unwrap.go):
	effString // the value is a command string a shell runs (su -c)
	effSplit  // the value is split into the command's first words (env -S)
	effShell  // the operands are a shell's command string (sudo -s)
	effExec   // the operands are the command itself, not a string (watch -x)
	effNone   // nothing runs (command -v)
)

// bad are the effects that make a command not read-only.
const bad = effWrites | effRuns | effNamesFile | effSets

// risky are the effects a computed word could smuggle in: a program
// that has any of them cannot take computed words as options.
const risky = bad | effPath

func (e effect) reason() string {
	switch {
	case e&effWrites != 0:
		return "writes a file"
	case e&effRuns != 0:
		return "runs another program"
	case e&effNamesFile != 0:
		return "reads the names of the files to read from a file"
	case e&effSets != 0:
		return "changes the system or the shell"
	}
	return ""
}

type argMode uint8

const (
	argNone     argMode = iota
	argRequired         // --opt=v, --opt v, -ov, -o v
	argOptional         // --opt=v, -ov only
	argTwo              // --opt NAME v: a name, then the value (jq --arg)
)

// option is one option of a program; short is 0 for a long-only option,
// long "" for a short-only one.
type option struct {
	short byte
	long  string
	arg   argMode
	eff   effect
}

// getopt is a program's option table.
type getopt struct {
	opts []option
	// stop: options end at the first operand (POSIX, env, xargs);
	// otherwise, as GNU programs do, options may follow operands.
	stop bool
	// digits: -NUM is an option (head -5, grep -3).
	digits bool
	// exact: long options are not abbreviated (git's own options).
	exact bool
	// risky: some option has a risky effect.
	risky bool
}

// specMarks are the marks of parseSpec.
var specMarks = map[string]effect{"!w": effWrites, "!x": effRuns, "!n": effNamesFile, "!s": effSets,
	"@": effPath, "+r": effRecurse, "+L": effFollow, "+h": effHidden, "+p": effPattern,
	"!c": effString, "!S": effSplit, "+s": effShell, "+x": effExec, "+n": effNone}

// parseSpec builds a table from a compact spec: space-separated tokens,
// one per option form. A single character is a short option, anything
// longer a long one. After the name, ":" (short) or "=" (long) means a
// required value, "::" or "=?" an optional one, "==" (long) a name and
// then the value; then marks: "!w" writes,
// "!x" runs a program, "!n" reads file names from a file, "!s" sets
// something, "@" the value is a file read, "+r" recursive, "+L" follows
// symlinks, "+h" searches hidden files, "+p" gives the pattern; for
// wrappers, "!c", "!S", "+s", "+x" and "+n" (effString ... effNone). A token
// "#" makes -NUM an option (head -5).
func parseSpec(spec string) getopt {
	var g getopt
	for _, tok := range strings.Fields(spec) {
		if tok == "#" {
			g.digits = true
			continue
		}
		var o option
		name := tok
		if i := strings.IndexAny(tok[1:], ":=!@+"); i >= 0 {
			name, tok = tok[:i+1], tok[i+1:]
		} else {
			tok = ""
		}
		switch {
		case strings.HasPrefix(tok, "=="):
			o.arg, tok = argTwo, tok[2:]
		case strings.HasPrefix(tok, "::"), strings.HasPrefix(tok, "=?"):
			o.arg, tok = argOptional, tok[2:]
		case strings.HasPrefix(tok, ":"), strings.HasPrefix(tok, "="):
			o.arg, tok = argRequired, tok[1:]
		}
		for len(tok) > 0 {
			n := 1
			if tok[0] == '!' || tok[0] == '+' {
				n = 2
			}
			e, ok := specMarks[tok[:min(n, len(tok))]]
			if !ok {
				panic("policy: bad option spec mark " + tok + " in " + spec)
			}
			o.eff |= e
			tok = tok[min(n, len(tok)):]
		}
		if len(name) == 1 {
			o.short = name[0]
		} else {
			o.long = name
		}
		if o.eff&risky != 0 {
			g.risky = true
		}
		g.opts = append(g.opts, o)
	}
	return g
}

// used is one option as a command line used it.
type used struct {
	opt   *option
	as    string // as written: "--outp", "-o"
	value Word
	has   bool // a value was given
}

// parsed is a command line as its program reads it.
type parsed struct {
	used     []used
	operands []Word
	// why is set when the command is not read-only as far as the options
	// go: an unknown or ambiguous option, a bad one, or a computed word
	// where an option could be.
	why string
	eff effect // all effects used
}

// mayBeOption reports whether the shell could turn w into a word that
// starts with "-": a computed word, or a glob whose first component may
// match a file named -x in dir ("" when unknown).
func mayBeOption(w Word, dir string) bool {
	if !w.Known {
		return true
	}
	if !w.Glob {
		return false
	}
	first, _, _ := strings.Cut(w.Value, "/")
	switch {
	case first == "": // an absolute path starts with /
		return false
	case !strings.ContainsAny(first[:1], "*?["):
		return strings.HasPrefix(first, "-")
	case dir == "":
		return true
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false // nothing there to match
	}
	for _, e := range ents {
		if n := e.Name(); strings.HasPrefix(n, "-") {
			if ok, _ := path.Match(first, n); ok {
				return true
			}
		}
	}
	return false
}

// parse reads args (the words after the program name) as the program
// would. dir is where the command runs, for globs.
func (g *getopt) parse(args []Word, dir string) parsed {
	var p parsed
	fail := func(why string) parsed {
		p.why = why
		return p
	}
	i := 0
	// value takes the next word as u's value; why it is not to be trusted.
	value := func(u *used) string {
		i++
		u.value, u.has = args[i], true
		return g.badValue(args[i], u.as, dir)
	}
	options := true
	for ; i < len(args); i++ {
		a := args[i]
		v := a.Value
		maybe := options && mayBeOption(a, dir)
		switch {
		case maybe && g.risky:
			return fail("an argument computed at run time (" + a.Value + ") could be an option")
		case !options || maybe || len(v) < 2 || v[0] != '-':
			p.operands = append(p.operands, a)
			options = options && !g.stop
		case v == "--":
			options = false
		case strings.HasPrefix(v, "--"):
			name, val, eq := strings.Cut(v[2:], "=")
			o, why := g.long(name)
			if o == nil {
				return fail(why)
			}
			u := used{opt: o, as: "--" + name}
			switch {
			case eq && o.arg == argNone:
				return fail("--" + o.long + " takes no value")
			case eq:
				u.value, u.has = Word{Value: val, Known: true}, true
			case o.arg == argTwo && i+2 < len(args), o.arg == argRequired && i+1 < len(args):
				if o.arg == argTwo {
					i++ // the name
				}
				if why := value(&u); why != "" {
					return fail(why)
				}
			}
			p.use(u)
		default:
		cluster:
			for j := 1; j < len(v); j++ {
				c := v[j]
				o := g.short(c)
				if o == nil {
					if g.digits && c >= '0' && c <= '9' {
						continue
					}
					return fail("it uses -" + string(c) + ", an option godwit does not know for this program")
				}
				u := used{opt: o, as: "-" + string(c)}
				if o.arg != argNone {
					switch rest := v[j+1:]; {
					case rest != "":
						u.value, u.has = Word{Value: rest, Known: true}, true
					case o.arg == argRequired && i+1 < len(args):
						if why := value(&u); why != "" {
							return fail(why)
						}
					}
					p.use(u)
					break cluster
				}
				p.use(u)
			}
		}
	}
	if p.why == "" && p.eff&bad != 0 {
		for _, u := range p.used {
			if u.opt.eff&bad != 0 {
				p.why = "it uses " + u.as + ", which " + u.opt.eff.reason()
				break
			}
		}
	}
	return p
}

// badValue says why w cannot be trusted as the value of option as: a
// computed word may split into several (sort -k $X), the first of
// which would be the value and the rest options.
func (g *getopt) badValue(w Word, as, dir string) string {
	switch {
	case g.risky && mayBeOption(w, dir):
		return "the value of " + as + " is computed at run time (" + w.Value + ") and could split into options"
	case g.badWord(w):
		return "the value of " + as + " (" + w.Value + ") reads like an option that writes or runs a program"
	}
	return ""
}

// badWord reports whether w, taken as an option's value, would be a bad
// option if the program did not take it as a value after all: a guard
// against a table that is wrong about which options take values.
func (g *getopt) badWord(w Word) bool {
	v := w.Value
	if !w.Known || len(v) < 2 || v[0] != '-' || v == "--" {
		return false
	}
	if strings.HasPrefix(v, "--") {
		name, _, _ := strings.Cut(v[2:], "=")
		o, _ := g.long(name)
		return o != nil && o.eff&bad != 0
	}
	for j := 1; j < len(v); j++ {
		if o := g.short(v[j]); o != nil && o.eff&bad != 0 {
			return true
		}
	}
	return false
}

// use records u.
func (p *parsed) use(u used) {
	p.used = append(p.used, u)
	p.eff |= u.opt.eff
}

// long resolves a long option name the way getopt_long does: an exact
// match, else the only option it is a prefix of. Several candidates are
// resolved to a bad one if any is bad (the program would refuse an
// ambiguity, but only if its table is the one we know).
func (g *getopt) long(name string) (*option, string) {
	if name == "" {
		return nil, "it uses --, an empty option"
	}
	var cands []*option
	for i := range g.opts {
		o := &g.opts[i]
		if o.long == "" {
			continue
		}
		if o.long == name {
			return o, ""
		}
		if strings.HasPrefix(o.long, name) && !g.exact {
			cands = append(cands, o)
		}
	}
	switch len(cands) {
	case 0:
		return nil, "it uses --" + name + ", an option godwit does not know for this program"
	case 1:
		return cands[0], ""
	}
	for _, o := range cands {
		if o.eff&bad != 0 {
			return o, ""
		}
	}
	// getopt_long accepts an ambiguous prefix when every candidate is
	// the same option; otherwise the program stops with an error.
	return nil, "--" + name + " is an ambiguous abbreviation"
}

func (g *getopt) short(c byte) *option {
	for i := range g.opts {
		if g.opts[i].short == c {
			return &g.opts[i]
		}
	}
	return nil
}
