package tui

// Inline markup of the markdown renderer (markdown.go): code spans,
// emphasis by CommonMark's delimiter rules, links and autolinks.

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// inode is a piece of a paragraph: text, a code span, a link already
// rendered, a hard break, or a run of emphasis delimiters.
type inode struct {
	text   string
	st     mdStyle
	ticks  int    // a code span's backticks
	spans  []span // a link's text and address
	br     bool
	delim  byte // '*', '_' or '~'
	n      int  // delimiters left unmatched
	orig   int
	open   bool
	close  bool
	active bool
	opens  []mdStyle // styles opened after the run's unmatched delimiters, innermost first
	closes []mdStyle // styles closed before them, innermost first
}

// inline parses inline markup into spans. depth counts links: a link's
// text holds no link (CommonMark's rule) but may hold an image.
func (m *markdown) inline(s string, depth int) []span {
	var (
		nodes    []inode
		buf      []byte
		brackets map[int]int
		ticks    tickSearch
	)
	flush := func() {
		if len(buf) > 0 {
			nodes = append(nodes, inode{text: string(buf)})
			buf = buf[:0]
		}
	}
	if depth < 2 && strings.IndexByte(s, '[') >= 0 {
		brackets = matchBrackets(s)
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch c {
		case '\\':
			if i+1 < len(s) && isASCIIPunct(s[i+1]) {
				buf = append(buf, s[i+1])
				i += 2
				continue
			}
			if i+1 < len(s) && s[i+1] == '\n' {
				flush()
				nodes = append(nodes, inode{br: true})
				i += 2
				continue
			}
			buf = append(buf, c)
			i++
		case '`':
			n := runOf(s, i, '`')
			end := ticks.find(s, i+n, n)
			if end < 0 {
				buf = append(buf, s[i:i+n]...)
				i += n
				continue
			}
			flush()
			code := strings.ReplaceAll(s[i+n:end], "\n", " ")
			if len(code) >= 2 && code[0] == ' ' && code[len(code)-1] == ' ' && strings.Trim(code, " ") != "" {
				code = code[1 : len(code)-1]
			}
			nodes = append(nodes, inode{text: code, st: stCode, ticks: n})
			i = end + n
		case '*', '_', '~':
			n := runOf(s, i, c)
			flush()
			before, _ := utf8.DecodeLastRuneInString(s[:i])
			after, _ := utf8.DecodeRuneInString(s[i+n:])
			if i == 0 {
				before = ' '
			}
			if i+n == len(s) {
				after = ' '
			}
			left := !unicode.IsSpace(after) && (!isPunct(after) || unicode.IsSpace(before) || isPunct(before))
			right := !unicode.IsSpace(before) && (!isPunct(before) || unicode.IsSpace(after) || isPunct(after))
			open, close := left, right
			switch {
			case c == '_':
				open = left && (!right || isPunct(before))
				close = right && (!left || isPunct(after))
			case c == '~' && n > 2:
				open, close = false, false
			}
			nodes = append(nodes, inode{delim: c, n: n, orig: n, open: open, close: close, active: open || close})
			i += n
		case '[', '!':
			if sp, end, ok := m.link(s, i, depth, brackets); ok {
				flush()
				nodes = append(nodes, inode{spans: sp})
				i = end
				continue
			}
			buf = append(buf, c)
			i++
		case '<':
			if u, end, ok := autolink(s, i); ok {
				flush()
				nodes = append(nodes, inode{text: u, st: stLink})
				i = end
				continue
			}
			buf = append(buf, c)
			i++
		case '\n':
			k := len(buf)
			for k > 0 && buf[k-1] == ' ' {
				k--
			}
			hard := len(buf)-k >= 2
			buf = buf[:k]
			if hard {
				flush()
				nodes = append(nodes, inode{br: true})
			} else {
				buf = append(buf, ' ')
			}
			i++
			for i < len(s) && s[i] == ' ' {
				i++
			}
		default:
			j := i + 1
			for j < len(s) && !special(s[j]) {
				j++
			}
			buf = append(buf, s[i:j]...)
			i = j
		}
	}
	flush()
	emphasis(nodes)
	return m.flatten(nodes)
}

func special(c byte) bool {
	switch c {
	case '\\', '`', '*', '_', '~', '[', '!', '<', '\n':
		return true
	}
	return false
}

func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

func isPunct(r rune) bool {
	if r < 0x80 {
		return isASCIIPunct(byte(r))
	}
	return unicode.IsPunct(r) || unicode.IsSymbol(r)
}

func runOf(s string, i int, c byte) int {
	n := 0
	for i+n < len(s) && s[i+n] == c {
		n++
	}
	return n
}

// tickSearch finds the backtick run closing a code span. A search that
// found none from one point finds none from any later one: remembering
// it keeps many unmatched runs linear.
type tickSearch struct{ none map[int]bool }

func (t *tickSearch) find(s string, from, n int) int {
	if t.none[n] {
		return -1
	}
	for j := from; j < len(s); {
		k := strings.IndexByte(s[j:], '`')
		if k < 0 {
			break
		}
		j += k
		r := runOf(s, j, '`')
		if r == n {
			return j
		}
		j += r
	}
	if t.none == nil {
		t.none = map[int]bool{}
	}
	t.none[n] = true
	return -1
}

// matchBrackets pairs each [ with its ], skipping escapes and code spans.
func matchBrackets(s string) map[int]int {
	pairs := map[int]int{}
	var open []int
	var ticks tickSearch
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '`':
			n := runOf(s, i, '`')
			if end := ticks.find(s, i+n, n); end >= 0 {
				i = end + n - 1
			} else {
				i += n - 1
			}
		case '[':
			open = append(open, i)
		case ']':
			if len(open) > 0 {
				pairs[open[len(open)-1]] = i
				open = open[:len(open)-1]
			}
		}
	}
	return pairs
}

// link parses [text](dest "title") or ![alt](src) at s[i]: the text,
// then the address dim in parentheses unless it says the same.
func (m *markdown) link(s string, i, depth int, brackets map[int]int) ([]span, int, bool) {
	image := s[i] == '!'
	if image {
		if i+1 >= len(s) || s[i+1] != '[' {
			return nil, 0, false
		}
		i++
	}
	if depth >= 2 || depth == 1 && !image {
		return nil, 0, false
	}
	close, ok := brackets[i]
	if !ok {
		return nil, 0, false
	}
	var dest string
	var end int
	ok = false
	if close+1 < len(s) && s[close+1] == '(' {
		dest, end, ok = linkDest(s, close+2)
	}
	if !ok {
		dest, end, ok = m.reference(s, i, close, brackets)
	}
	if !ok {
		return nil, 0, false
	}
	text := m.inline(s[i+1:close], depth+1)
	if image {
		// An image's description is plain text, as in HTML's alt: its
		// emphasis, and the addresses of links and images inside it, go.
		text = plainDescription(text)
	}
	for k := range text {
		text[k].st |= stLink
	}
	label := plainText(text)
	if dest != "" && dest != label && dest != "mailto:"+label {
		text = append(text, span{" ", 0}, span{"(" + dest + ")", stURL})
	}
	if len(text) > 0 && text[0].text == " " {
		text = text[1:] // an image without alt text
	}
	return text, end, true
}

func plainDescription(sp []span) []span {
	var b strings.Builder
	for k, s := range sp {
		switch {
		case s.st&stURL != 0:
		case k+1 < len(sp) && sp[k+1].st&stURL != 0 && s.text == " ":
		case s.text == "\n":
			b.WriteByte(' ')
		default:
			b.WriteString(s.text)
		}
	}
	if b.Len() == 0 {
		return nil
	}
	return []span{{b.String(), 0}}
}

func plainText(sp []span) string {
	var b strings.Builder
	for _, s := range sp {
		b.WriteString(s.text)
	}
	return b.String()
}

const maxTitle = 1000

// reference resolves [text][label], [text][] and [text] at s[open:]
// against the document's link reference definitions: the destination
// and the end of the reference.
func (m *markdown) reference(s string, open, close int, brackets map[int]int) (string, int, bool) {
	if len(m.refs) == 0 {
		return "", 0, false
	}
	label, end := s[open+1:close], close+1
	if end < len(s) && s[end] == '[' {
		if c, ok := brackets[end]; ok {
			if c > end+1 {
				label = s[end+1 : c]
			}
			end = c + 1
		}
	}
	if !isLabel(label) {
		return "", 0, false
	}
	dest, ok := m.refs[normLabel(label)]
	return dest, end, ok
}

// isLabel: a link label holds at most 999 characters, not all blank, and
// no unescaped bracket.
func isLabel(s string) bool {
	if len(s) > 999 || strings.TrimSpace(s) == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '[', ']':
			return false
		}
	}
	return true
}

// normLabel is how labels match: case-folded, inner blanks collapsed
// (ß folds to ss, as in Unicode's full folding).
func normLabel(s string) string {
	return strings.ReplaceAll(strings.ToLower(strings.Join(strings.Fields(s), " ")), "ß", "ss")
}

// refDef parses a link reference definition, [label]: dest "title", at
// the start of s (a paragraph's text, lines joined), up to the end of its
// line: the definition and how much of s it takes.
func refDef(s string) (label, dest string, n int, ok bool) {
	if s == "" || s[0] != '[' {
		return "", "", 0, false
	}
	q := 1
	for ; q < len(s) && s[q] != ']'; q++ {
		if s[q] == '\\' {
			q++
		}
	}
	if q+1 >= len(s) || s[q+1] != ':' || !isLabel(s[1:q]) {
		return "", "", 0, false
	}
	label = s[1:q]
	p := skipSpaces(s, q+2)
	if p >= len(s) {
		return "", "", 0, false
	}
	dest, p, ok = parseDest(s, p)
	if !ok || dest == "" && s[p-1] != '>' {
		return "", "", 0, false
	}
	// The definition ends at the end of a line: after its title, or, if
	// no title ends that way, after its destination.
	lineEnd := func(p int) (int, bool) {
		for p < len(s) && s[p] == ' ' {
			p++
		}
		if p == len(s) {
			return p, true
		}
		return p + 1, s[p] == '\n'
	}
	if t := skipSpaces(s, p); t > p && t < len(s) && strings.IndexByte(`"'(`, s[t]) >= 0 {
		if e, ok := parseTitle(s, t); ok {
			if end, ok := lineEnd(e); ok {
				return label, unescape(dest), end, true
			}
		}
	}
	if end, ok := lineEnd(p); ok {
		return label, unescape(dest), end, true
	}
	return "", "", 0, false
}

// linkDest parses "(dest "title")" from after its "(" to after its ")".
func linkDest(s string, p int) (dest string, end int, ok bool) {
	p = skipSpaces(s, p)
	if dest, p, ok = parseDest(s, p); !ok {
		return "", 0, false
	}
	p = skipSpaces(s, p)
	if p < len(s) && (s[p] == '"' || s[p] == '\'' || s[p] == '(') {
		if p, ok = parseTitle(s, p); !ok {
			return "", 0, false
		}
		p = skipSpaces(s, p)
	}
	if p >= len(s) || s[p] != ')' {
		return "", 0, false
	}
	return unescape(dest), p + 1, true
}

// parseDest parses a link destination at s[p], <bracketed> or bare with
// balanced parentheses: it and the index after it.
func parseDest(s string, p int) (dest string, end int, ok bool) {
	if p < len(s) && s[p] == '<' {
		q := p + 1
		for ; q < len(s) && s[q] != '>' && s[q] != '\n' && s[q] != '<'; q++ {
			if s[q] == '\\' {
				q++
			}
		}
		if q >= len(s) || s[q] != '>' {
			return "", 0, false
		}
		return s[p+1 : q], q + 1, true
	} else {
		depth, q := 0, p
	scan:
		for ; q < len(s); q++ {
			switch c := s[q]; {
			case c == '\\' && q+1 < len(s) && isASCIIPunct(s[q+1]):
				q++
			case c == '(':
				// cmark's limit; it also keeps "[a]([a]([a](..." linear.
				if depth++; depth > 32 {
					return "", 0, false
				}
			case c == ')':
				if depth == 0 {
					break scan
				}
				depth--
			case c <= ' ':
				break scan
			}
		}
		if depth != 0 || q > len(s) {
			return "", 0, false
		}
		return s[p:q], q, true
	}
}

// parseTitle parses a link title, "…", '…' or (…), at s[p]: the index
// after it.
func parseTitle(s string, p int) (int, bool) {
	closing := s[p]
	if closing == '(' {
		closing = ')'
	}
	// A title has no blank line; bounding it keeps many unclosed titles
	// linear.
	q, limit := p+1, min(len(s), p+1+maxTitle)
	for ; q < limit && s[q] != closing; q++ {
		if s[q] == '\\' {
			q++
		}
	}
	if q >= limit {
		return 0, false
	}
	return q + 1, true
}

func skipSpaces(s string, p int) int {
	for p < len(s) && (s[p] == ' ' || s[p] == '\n') {
		p++
	}
	return p
}

func unescape(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// autolink parses <scheme:address> or <user@host> at s[i].
func autolink(s string, i int) (string, int, bool) {
	j := i + 1
	for j < len(s) && s[j] != '>' && s[j] != '<' && s[j] > ' ' {
		j++
	}
	if j >= len(s) || s[j] != '>' || j == i+1 {
		return "", 0, false
	}
	u := s[i+1 : j]
	if k := strings.IndexByte(u, ':'); k >= 2 && k <= 32 && isLetter(u[0]) {
		scheme := true
		for _, c := range []byte(u[:k]) {
			if !isLetter(c) && (c < '0' || c > '9') && c != '+' && c != '.' && c != '-' {
				scheme = false
			}
		}
		if scheme {
			return u, j + 1, true
		}
	}
	if at := strings.IndexByte(u, '@'); at > 0 && at < len(u)-1 && strings.IndexByte(u[at+1:], '.') > 0 &&
		strings.IndexByte(u[at+1:], '@') < 0 && strings.IndexByte(u, '\\') < 0 {
		return u, j + 1, true
	}
	return "", 0, false
}

// emphasis matches delimiter runs as CommonMark's "process emphasis"
// does: each closer with the nearest opener of its kind, strong when
// both have two, and the rule of three. The delimiter stack is a linked
// list, so dropping the delimiters between a match costs nothing.
func emphasis(nodes []inode) {
	var stack []int // nodes holding delimiter runs, in order
	for i := range nodes {
		if nodes[i].active {
			stack = append(stack, i)
		}
	}
	if len(stack) < 2 {
		return
	}
	prev := make([]int, len(stack)) // -1 ends the list
	for k := range prev {
		prev[k] = k - 1
	}
	// bottom[kind][closer can open][closer length%3]: no opener at or
	// below it.
	var bottom [3][2][3]int
	for a := range bottom {
		for b := range bottom[a] {
			for c := range bottom[a][b] {
				bottom[a][b][c] = -1
			}
		}
	}
	next := func(k int) int {
		for k++; k < len(stack) && !nodes[stack[k]].active; k++ {
		}
		return k
	}
	for k := 0; k < len(stack); {
		cl := &nodes[stack[k]]
		if !cl.active || !cl.close || cl.n == 0 {
			k = next(k)
			continue
		}
		kind := strings.IndexByte("*_~", cl.delim)
		canOpen := 0
		if cl.open {
			canOpen = 1
		}
		floor := &bottom[kind][canOpen][cl.orig%3]
		found := -1
		for o := prev[k]; o > *floor; o = prev[o] {
			op := &nodes[stack[o]]
			if op.delim != cl.delim || !op.open {
				continue
			}
			if cl.delim == '~' {
				if op.n != cl.n {
					continue
				}
			} else if (op.close || cl.open) && (op.orig+cl.orig)%3 == 0 && (op.orig%3 != 0 || cl.orig%3 != 0) {
				continue
			}
			found = o
			break
		}
		if found < 0 {
			*floor = prev[k]
			if !cl.open {
				cl.active = false
				unlink(prev, stack, nodes, k)
			}
			k = next(k)
			continue
		}
		op := &nodes[stack[found]]
		use, style := 1, stEmph
		switch {
		case cl.delim == '~':
			use, style = cl.n, stStrike
		case op.n >= 2 && cl.n >= 2:
			use, style = 2, stStrong
		}
		op.n -= use
		cl.n -= use
		op.opens = append(op.opens, style)
		cl.closes = append(cl.closes, style)
		// The delimiters between them can match nothing any more.
		for x := prev[k]; x > found; x = prev[x] {
			nodes[stack[x]].active = false
		}
		prev[k] = found
		if op.n == 0 {
			op.active = false
			prev[k] = prev[found]
		}
		if cl.n == 0 {
			cl.active = false
			unlink(prev, stack, nodes, k)
			k = next(k)
		} // else the rest of this closer may close an earlier opener
	}
}

// unlink drops stack[k] from the list: the next active entry's prev
// skips it.
func unlink(prev, stack []int, nodes []inode, k int) {
	for j := k + 1; j < len(stack); j++ {
		if nodes[stack[j]].active {
			prev[j] = prev[k]
			return
		}
	}
}

// flatten turns nodes into spans, styles opened and closed where the
// delimiters matched. Without colour (ascii) the marks stay visible.
func (m *markdown) flatten(nodes []inode) []span {
	var (
		out   []span
		depth [3]int // how many strong, emph and strike are open
		cur   mdStyle
	)
	styles := [3]mdStyle{stStrong, stEmph, stStrike}
	marks := [3]string{"**", "*", "~~"}
	if !m.ascii {
		marks = [3]string{}
	}
	emit := func(text string, st mdStyle) {
		if text != "" {
			out = append(out, span{text, st})
		}
	}
	index := func(st mdStyle) int {
		switch st {
		case stStrong:
			return 0
		case stEmph:
			return 1
		}
		return 2
	}
	for _, nd := range nodes {
		switch {
		case nd.br:
			out = append(out, span{"\n", 0})
		case nd.delim != 0:
			for _, st := range nd.closes {
				x := index(st)
				emit(marks[x], cur)
				if depth[x]--; depth[x] == 0 {
					cur &^= styles[x]
				}
			}
			emit(strings.Repeat(string(nd.delim), nd.n), cur)
			for k := len(nd.opens) - 1; k >= 0; k-- {
				x := index(nd.opens[k])
				depth[x]++
				cur |= styles[x]
				emit(marks[x], cur)
			}
		case nd.spans != nil:
			for _, sp := range nd.spans {
				if sp.text == "\n" {
					out = append(out, sp)
				} else {
					emit(sp.text, sp.st|cur)
				}
			}
		case nd.ticks > 0 && m.ascii:
			fence := strings.Repeat("`", nd.ticks)
			pad := ""
			if strings.HasPrefix(nd.text, "`") || strings.HasSuffix(nd.text, "`") {
				pad = " "
			}
			emit(fence+pad+nd.text+pad+fence, nd.st|cur)
		default:
			emit(nd.text, nd.st|cur)
		}
	}
	return coalesce(out)
}

// coalesce joins neighbouring spans of one style (not hard breaks).
func coalesce(sp []span) []span {
	out := sp[:0]
	for i := 0; i < len(sp); {
		j := i + 1
		for j < len(sp) && sp[j].st == sp[i].st && sp[i].text != "\n" && sp[j].text != "\n" {
			j++
		}
		if j == i+1 {
			out = append(out, sp[i])
		} else {
			var b strings.Builder
			for _, x := range sp[i:j] {
				b.WriteString(x.text)
			}
			out = append(out, span{b.String(), sp[i].st})
		}
		i = j
	}
	return out
}
