package policy

import (
	"path/filepath"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// word evaluates w as far as it can be known before the command runs.
func (s *splitter) word(w *syntax.Word, dir string) Word {
	if w == nil {
		return Word{Known: true}
	}
	if len(w.Parts) == 1 {
		if _, ok := w.Parts[0].(*syntax.ProcSubst); ok {
			// <(cmd) becomes a pipe's path (/dev/fd/63), never an
			// option; cmd is walked as a command of its own. Value keeps
			// the source, for display and for isProcSubst.
			return Word{Value: source(w), Known: true}
		}
	}
	var b strings.Builder
	out := Word{Known: true}
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			v := p.Value
			if i == 0 && strings.HasPrefix(v, "~") {
				var ok bool
				v, ok = s.tilde(v, dir)
				if !ok {
					out.Known = false
				}
			}
			if hasGlob(v) {
				out.Glob = true
			}
			if hasBraces(v) {
				out.Known = false
			}
			b.WriteString(unescape(v))
		case *syntax.SglQuoted:
			if p.Dollar { // $'\x2d...' escapes could spell anything
				out.Known = false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				out.Known = false
			}
			for _, in := range p.Parts {
				switch q := in.(type) {
				case *syntax.Lit:
					b.WriteString(unescapeDouble(q.Value))
				case *syntax.ParamExp:
					v, ok := s.param(q)
					if !ok {
						out.Known = false
					}
					b.WriteString(v)
				default:
					out.Known = false
					b.WriteString(source(q))
				}
			}
		case *syntax.ParamExp:
			v, ok := s.param(p)
			// Unquoted, the value is split on spaces and globbed.
			if !ok || strings.ContainsAny(v, " \t\n*?[") {
				out.Known = false
			}
			b.WriteString(v)
		default:
			out.Known = false
			b.WriteString(source(part))
		}
	}
	out.Value = b.String()
	return out
}

// source prints a node as shell source, for display.
func source(n syntax.Node) string {
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, n); err != nil {
		return "…"
	}
	return b.String()
}

// param returns the value of a plain $NAME or ${NAME} whose value is
// known.
func (s *splitter) param(p *syntax.ParamExp) (string, bool) {
	if p.Param == nil || p.Excl || p.Length || p.Width || p.IsSet || p.Index != nil ||
		p.Slice != nil || p.Repl != nil || p.Exp != nil || p.Names != 0 || len(p.Modifiers) > 0 || p.NestedParam != nil {
		return "$" + paramName(p), false
	}
	name := p.Param.Value
	if name == "PWD" && s.env.Dir != "" {
		return "$PWD", false // moves with cd; not worth tracking
	}
	v, ok := s.env.Vars[name]
	if !ok {
		return "$" + name, false
	}
	return v, true
}

func paramName(p *syntax.ParamExp) string {
	if p.Param == nil {
		return "{…}"
	}
	return p.Param.Value
}

// tilde expands a leading ~ or ~/ to the home folder and ~+ to dir; ~user
// and ~- stay unknown.
func (s *splitter) tilde(v, dir string) (string, bool) {
	head, rest, _ := strings.Cut(v, "/")
	if rest != "" || strings.Contains(v, "/") {
		rest = "/" + rest
	}
	switch head {
	case "~":
		if s.env.Home == "" {
			return v, false
		}
		return s.env.Home + rest, true
	case "~+":
		if dir == "" {
			return v, false
		}
		return dir + rest, true
	}
	return v, false
}

// hasGlob reports an unescaped *, ? or [ in an unquoted literal.
func hasGlob(v string) bool { return globChar().MatchString(v) }

var globChar = lazyRE(`(?s)^(?:[^\\*?\[]|\\.)*[*?\[]`)

// hasBraces reports a brace expansion ({a,b} or {1..3}) in an unquoted
// literal: bash turns it into several words.
func hasBraces(v string) bool {
	open := -1
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '\\':
			i++
		case '{':
			open = i
		case '}':
			if open >= 0 {
				in := v[open+1 : i]
				if strings.Contains(in, ",") || strings.Contains(in, "..") {
					return true
				}
			}
		}
	}
	return false
}

// unescape applies backslash escapes of unquoted text.
func unescape(v string) string { return unescapeBy(escaped(), v) }

// unescapeDouble applies the escapes bash honours inside double quotes.
func unescapeDouble(v string) string { return unescapeBy(dquoteEscaped(), v) }

var (
	escaped       = lazyRE(`(?s)\\.`)
	dquoteEscaped = lazyRE("\\\\[$`\"\\\\\n]")
)

// unescapeBy drops the backslash of each escape re matches, and an
// escaped newline whole.
func unescapeBy(re *regexp.Regexp, v string) string {
	return re.ReplaceAllStringFunc(v, func(m string) string { return strings.TrimPrefix(m[1:], "\n") })
}

// isProcSubst reports a word that is a process substitution's pipe.
func isProcSubst(w Word) bool {
	return w.Known && (strings.HasPrefix(w.Value, "<(") || strings.HasPrefix(w.Value, ">(")) && strings.HasSuffix(w.Value, ")")
}

// resolveIn joins p to dir the way the kernel would walk it: symlinks are
// followed before "..", so "link/../x" goes where the link points. It
// returns "" when p is relative and dir unknown.
func resolveIn(dir, p string) string {
	if p == "" {
		return ""
	}
	if strings.HasPrefix(p, "/dev/fd/") {
		// The command's own descriptors (a process substitution's
		// pipe); resolved here they would name godwit's.
		return filepath.Clean(p)
	}
	if !filepath.IsAbs(p) {
		if dir == "" {
			return ""
		}
		p = dir + string(filepath.Separator) + p
	}
	return kernelPath(p)
}
