package fs

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/godwit/godwit/tool"
)

// maxGrepCol cuts long result lines (minified files) at this many bytes.
const maxGrepCol = 300

// maxLiterals bounds the alternatives of a prefilter.
const maxLiterals = 16

// matcher finds the lines of a buffer that match a pattern: only lines
// holding a literal every match must contain, when there is one
// (bytes.Index is vectorized; without the case-folded literals, an
// ignore_case grep over GOROOT/src took 27-37% more CPU), each tried by
// the lazy DFA, or the regexp where the DFA gives up.
type matcher struct {
	re *regexp.Regexp
	// dfas holds *lineDFA, one per concurrent search (each caches the
	// states it built); empty New when the pattern has no DFA.
	dfas sync.Pool
	// lits: every match contains at least one of these; empty when the
	// pattern has no such literal and every line must be tried.
	lits []literal
	// exact: the pattern is lits[0] itself, so a hit needs no regexp.
	exact bool
}

type literal struct {
	b    []byte
	fold bool // b is ASCII lower case, matched ignoring case
}

func newMatcher(pattern string, ignoreCase bool) (*matcher, error) {
	expr := pattern
	if ignoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, tool.Errorf(tool.CodeBadArgs, `Send a Go RE2 regexp: escape ( ) [ ] { } . * + ? | \ with a backslash to match them literally; no lookaround or backreferences.`,
			"bad pattern: %v", err)
	}
	m := &matcher{re: re}
	if proto := newLineDFA(expr); proto != nil {
		m.dfas.New = func() any { return proto.clone() }
	}
	if syn, err := syntax.Parse(expr, syntax.Perl); err == nil {
		syn = syn.Simplify()
		if lits, ok := required(syn); ok {
			m.lits = lits
			m.exact = syn.Op == syntax.OpLiteral && !lits[0].fold
		}
	}
	return m, nil
}

// required returns literals at least one of which occurs in every match
// of re, or false when it cannot tell.
func required(re *syntax.Regexp) ([]literal, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		s := string(re.Rune)
		if re.Flags&syntax.FoldCase == 0 {
			return []literal{{b: []byte(s)}}, true
		}
		// Folding is done on ASCII only (Go would also fold "k" with the
		// Kelvin sign; such text is not worth a slow path).
		for i := range len(s) {
			if s[i] >= utf8.RuneSelf {
				return nil, false
			}
		}
		return []literal{{b: []byte(strings.ToLower(s)), fold: true}}, true
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		var best []literal
		for _, sub := range re.Sub {
			if l, ok := required(sub); ok && better(l, best) {
				best = l
			}
		}
		return best, best != nil
	case syntax.OpAlternate:
		var all []literal
		for _, sub := range re.Sub {
			l, ok := required(sub)
			if !ok || len(all)+len(l) > maxLiterals {
				return nil, false
			}
			all = append(all, l...)
		}
		return all, true
	}
	return nil, false
}

// better prefers the set whose shortest literal is longest (fewer false
// hits), then the smaller set.
func better(a, b []literal) bool {
	if b == nil {
		return true
	}
	sa, sb := shortest(a), shortest(b)
	return sa > sb || sa == sb && len(a) < len(b)
}

func shortest(ls []literal) int {
	n := -1
	for _, l := range ls {
		if n < 0 || len(l.b) < n {
			n = len(l.b)
		}
	}
	return n
}

// index returns the offset of the literal in b, or -1.
func (l *literal) index(b []byte) int {
	if !l.fold {
		return bytes.Index(b, l.b)
	}
	return indexFold(b, l.b)
}

// indexFold finds lit (ASCII lower case) in b ignoring ASCII case: it
// jumps between occurrences of lit's first byte in either case with
// bytes.IndexByte, then compares.
func indexFold(b, lit []byte) int {
	if len(lit) == 0 {
		return 0
	}
	lo, up := lit[0], lit[0]
	if 'a' <= lo && lo <= 'z' {
		up = lo - 'a' + 'A'
	}
	nextLo, nextUp := -2, -2 // -2: not looked up yet
	for at := 0; at+len(lit) <= len(b); {
		if nextLo != -1 && nextLo < at {
			nextLo = indexFrom(b, lo, at)
		}
		if nextUp != -1 && nextUp < at {
			nextUp = indexFrom(b, up, at)
		}
		i := nextLo
		if i < 0 || nextUp >= 0 && nextUp < i {
			i = nextUp
		}
		if i < 0 || i+len(lit) > len(b) {
			return -1
		}
		if asciiEqualFold(b[i:i+len(lit)], lit) {
			return i
		}
		at = i + 1
	}
	return -1
}

func indexFrom(b []byte, c byte, from int) int {
	i := bytes.IndexByte(b[from:], c)
	if i < 0 {
		return -1
	}
	return from + i
}

func asciiEqualFold(s, lower []byte) bool {
	for i, c := range s {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// outLine is one line of grep output: a match (kind ':'), a context line
// (kind '-'), or a "--" separator between blocks (kind 0).
type outLine struct {
	num  int
	kind byte
	text string
}

// search returns the matching lines of buf with ctx lines of context,
// stopping after limit matches. A line is what lies between newlines,
// without a final "\r"; the regexp sees each line as a whole text.
func (m *matcher) search(buf []byte, ctx, limit int) (lines []outLine, matches int) {
	s := scan{buf: buf, ctx: ctx, line: 1}
	var d *lineDFA
	if v := m.dfas.Get(); v != nil {
		d = v.(*lineDFA)
		defer m.dfas.Put(d)
	}
	if len(m.lits) == 0 {
		pos := 0
		// The DFA runs over the whole buffer, lines and all, until it
		// gives up (if it does); the regexp does the rest line by line.
		for d != nil && pos < len(buf) && matches < limit {
			ls, le, found, ok := d.find(buf, pos)
			if !ok {
				pos = ls
				break
			}
			if !found {
				pos = len(buf)
				break
			}
			s.match(ls, le)
			matches++
			pos = le + 1
		}
		for pos < len(buf) && matches < limit {
			le := len(buf)
			if j := bytes.IndexByte(buf[pos:], '\n'); j >= 0 {
				le = pos + j
			}
			if m.re.Match(trimCR(buf[pos:le])) {
				s.match(pos, le)
				matches++
			}
			pos = le + 1
		}
		s.flush()
		return s.out, matches
	}
	next := make([]int, len(m.lits)) // cached next hit of each literal
	for i := range next {
		next[i] = -2
	}
	for pos := 0; pos < len(buf) && matches < limit; {
		off := -1 // the first literal's hit
		for i := range m.lits {
			if next[i] != -1 && next[i] < pos {
				next[i] = -1
				if j := m.lits[i].index(buf[pos:]); j >= 0 {
					next[i] = pos + j
				}
			}
			if next[i] >= 0 && (off < 0 || next[i] < off) {
				off = next[i]
			}
		}
		if off < 0 {
			break
		}
		ls := pos + bytes.LastIndexByte(buf[pos:off], '\n') + 1
		le := len(buf)
		if j := bytes.IndexByte(buf[off:], '\n'); j >= 0 {
			le = off + j
		}
		if m.exact || m.matchLine(d, trimCR(buf[ls:le])) {
			s.match(ls, le)
			matches++
		}
		pos = le + 1
	}
	s.flush()
	return s.out, matches
}

// matchLine reports whether line (no newline in it) holds a match: by
// the DFA d when there is one and it has not given up, else the regexp.
func (m *matcher) matchLine(d *lineDFA, line []byte) bool {
	if d != nil {
		if ok, known := d.match(line); known {
			return ok
		}
	}
	return m.re.Match(line)
}

// scan tracks line numbers and context while search reports matches in
// order.
type scan struct {
	buf       []byte
	ctx       int
	out       []outLine
	counted   int // offset up to which newlines are counted
	line      int // line number at counted
	emitted   int // offset just past the last line output
	lastNum   int // its line number
	afterLeft int // context lines still owed after the last match
}

func (s *scan) lineAt(off int) int {
	s.line += bytes.Count(s.buf[s.counted:off], []byte{'\n'})
	s.counted = off
	return s.line
}

func (s *scan) emit(num int, kind byte, start, end int) {
	s.out = append(s.out, outLine{num: num, kind: kind, text: clip(trimCR(s.buf[start:end]))})
	s.emitted, s.lastNum = min(end+1, len(s.buf)), num
}

// after outputs owed context lines up to (not including) offset limit.
func (s *scan) after(limit int) {
	for s.afterLeft > 0 && s.emitted < limit && s.emitted < len(s.buf) {
		end := lineEnd(s.buf, s.emitted)
		e := end
		if e > 0 && s.buf[e-1] == '\n' {
			e--
		}
		s.emit(s.lastNum+1, '-', s.emitted, e)
		s.afterLeft--
	}
	s.afterLeft = 0
}

func (s *scan) match(ls, le int) {
	num := s.lineAt(ls)
	s.after(ls)
	// Before-context: walk back up to ctx lines, not into output lines.
	start := ls
	for k := 0; k < s.ctx && start > s.emitted; k++ {
		start = lineStart(s.buf, start-1)
	}
	if s.ctx > 0 && len(s.out) > 0 && start > s.emitted {
		s.out = append(s.out, outLine{})
	}
	for n := num - countNL(s.buf[start:ls]); start < ls; n++ {
		end := start + bytes.IndexByte(s.buf[start:ls], '\n')
		s.emit(n, '-', start, end)
		start = end + 1
	}
	s.emit(num, ':', ls, le)
	s.afterLeft = s.ctx
}

func (s *scan) flush() { s.after(len(s.buf)) }

func countNL(b []byte) int { return bytes.Count(b, []byte{'\n'}) }

// clip copies a result line, cut at maxGrepCol bytes on a rune boundary.
func clip(b []byte) string {
	if len(b) <= maxGrepCol {
		return string(b)
	}
	cut := maxGrepCol
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return string(b[:cut]) + "…[+" + strconv.Itoa(len(b)-cut) + " bytes]"
}
