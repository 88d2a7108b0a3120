package tui

// A display-only markdown renderer for the model's answers: goldmark
// parses (CommonMark with GFM tables, strikethrough and task lists), and
// this file draws its tree for a terminal. Raw HTML, inline or in
// blocks, is shown as written; tabs are four spaces. The CommonMark
// spec's examples judge it (commonmark_test.go, testdata/commonmark);
// where it differs on purpose, testdata/commonmark/known.txt says why.

import (
	"bytes"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/godwit/godwit/internal/termsafe"
)

// mdStyle is a set of styles, a bit each: nesting is a union, and each
// run of text is painted whole with its set, so a line never depends on
// the styles of the line before it (the transcript draws any window of
// lines, and a wrapped line must start styled).
type mdStyle uint32

// The order is the painting order: later styles win where they clash
// (code inside a link keeps the code colour).
const (
	stTitle mdStyle = 1 << iota
	stHeading
	stTableHead
	stHTML
	stLink
	stStrong
	stEmph
	stStrike
	stCode
	stURL
	stCodeBlock
	stKeyword
	stString
	stComment
	stNumber
	stAdded
	stRemoved
	stHunk
	stDim
	stMarker
	stQuote
	stRule
	stBorder
	nStyles = iota
)

// span is a run of text in one style set. The text "\n" is a hard break.
type span struct {
	text string
	st   mdStyle
}

// markdown renders answers with a theme's styles.
type markdown struct {
	ascii  bool
	inks   [nStyles]ink
	mixed  map[mdStyle]ink // unions met so far
	parser parser.Parser
	src    []byte // the text being rendered (set for the length of a render)
}

func newMarkdown(th Theme) *markdown {
	s := th.Markdown
	m := &markdown{ascii: s.ASCII, mixed: map[mdStyle]ink{}}
	for i, st := range [nStyles]lipgloss.Style{
		s.Title, s.Heading, s.TableHeader, s.HTML, s.Link, s.Strong, s.Emph, s.Strike, s.Code, s.URL,
		s.CodeBlock, s.Keyword, s.String, s.Comment, s.Number, th.Added, th.Removed, th.Hunk, th.Dim,
		s.Marker, s.Quote, s.Rule, s.TableBorder,
	} {
		m.inks[i] = inkOf(st)
	}
	m.parser = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList)).Parser()
	return m
}

// An answer with a line that opens more than maxNesting quotes and list
// items, or is indented past maxIndent columns, is shown as written:
// goldmark's parse grows with the square of quote depth and the cube of
// list depth (1,000 nested items take 15 s).
const (
	maxNesting = 16
	maxIndent  = 128
)

// render turns markdown into lines at most width cells wide (at least
// 10), styled, with no trailing padding and no blank lines at the ends.
func (m *markdown) render(s string, width int) []string {
	width = max(width, 10)
	s = sanitize(s)
	if tooDeep(s) {
		var out []string
		for l := range strings.SplitSeq(s, "\n") {
			out = append(out, m.wrap([]span{{l, 0}}, width)...)
		}
		return trimBlank(out)
	}
	m.src = []byte(s)
	out := m.blocks(m.parser.Parse(text.NewReader(m.src)), width, false)
	m.src = nil
	for i, l := range out {
		// Wide graphemes joined across spans, or nesting deeper than the
		// width, can still overflow: the terminal would wrap the line.
		if ansi.StringWidth(l) > width {
			l = ansi.Truncate(l, width, "…")
			if strings.IndexByte(l, 0x1b) >= 0 {
				l += "\x1b[m"
			}
			out[i] = l
		}
	}
	return trimBlank(out)
}

// tooDeep says whether a line of s nests past maxNesting or maxIndent.
func tooDeep(s string) bool {
	for line := range strings.Lines(s) {
		n, i := 0, 0
	lead:
		for i < len(line) && n <= maxNesting && i <= maxIndent {
			switch c := line[i]; {
			case c == ' ':
				i++
			case c == '>':
				n, i = n+1, i+1
			case c == '-' || c == '*' || c == '+':
				if !strings.HasPrefix(line[i+1:], " ") {
					break lead
				}
				n, i = n+1, i+2
			case c >= '0' && c <= '9':
				k := len(line) - len(strings.TrimLeft(line[i:], "0123456789"))
				if !strings.HasPrefix(line[k:], ". ") && !strings.HasPrefix(line[k:], ") ") {
					break lead
				}
				n, i = n+1, k+2
			default:
				break lead
			}
		}
		if n > maxNesting || i > maxIndent {
			return true
		}
	}
	return false
}

// sanitize drops what a terminal would obey (termsafe.Text: escape
// sequences, controls, bidi overrides; a lone CR ends a line) and expands
// tabs: an answer must not restyle the screen or move the cursor.
func sanitize(s string) string {
	return strings.ReplaceAll(termsafe.Text(s), "\t", "    ")
}

// --- blocks

// blocks renders parent's children one after another, a blank line
// between them unless tight (the items of a tight list).
func (m *markdown) blocks(parent ast.Node, width int, tight bool) []string {
	width = max(width, 1)
	var out []string
	for n := parent.FirstChild(); n != nil; n = n.NextSibling() {
		if l, ok := n.(*ast.List); ok {
			m.adopt(l)
		}
		ls := m.block(n, width)
		if len(ls) == 0 {
			continue
		}
		if len(out) > 0 && !tight {
			out = append(out, "")
		}
		out = append(out, ls...)
	}
	return out
}

func (m *markdown) block(n ast.Node, width int) []string {
	switch n := n.(type) {
	case *ast.Heading:
		return m.heading(n, width)
	case *ast.FencedCodeBlock:
		return m.code(strings.Trim(string(n.Language(m.src)), "{}."), m.lines(n), width)
	case *ast.CodeBlock:
		return m.code("", m.lines(n), width)
	case *ast.Blockquote:
		return m.quote(n, width)
	case *ast.List:
		return m.list(n, width)
	case *ast.ThematicBreak:
		if m.ascii {
			return []string{strings.Repeat("-", width)}
		}
		return []string{m.paint(strings.Repeat("─", width), stRule)}
	case *east.Table:
		return m.table(n, width)
	case *ast.HTMLBlock:
		lines := m.lines(n)
		if n.HasClosure() {
			cl := n.ClosureLine
			lines = append(lines, strings.TrimRight(string(cl.Value(m.src)), " \n"))
		}
		var out []string
		for _, l := range lines {
			out = append(out, m.wrap([]span{{l, stHTML}}, width)...)
		}
		return out
	case *ast.Paragraph, *ast.TextBlock:
		sp := m.inline(n, 0)
		if len(sp) == 0 {
			return nil
		}
		return m.wrap(sp, width)
	}
	return nil
}

// lines are a block's lines of source, without their ends or trailing
// blanks.
func (m *markdown) lines(n ast.Node) []string {
	segs := n.Lines()
	out := make([]string, segs.Len())
	for i := range out {
		seg := segs.At(i)
		out[i] = strings.TrimRight(string(seg.Value(m.src)), " \n")
	}
	return out
}

func (m *markdown) heading(n *ast.Heading, width int) []string {
	base := stHeading
	if n.Level == 1 {
		base = stTitle
	}
	sp := m.inline(n, base)
	if m.ascii {
		// Without colour, the marks are what shows a heading.
		sp = append([]span{{strings.Repeat("#", n.Level) + " ", base}}, sp...)
	}
	if len(sp) == 0 {
		return nil
	}
	return m.wrap(sp, width)
}

// code renders a code block indented, highlighted by its language,
// never wrapped: a long line is cut, so what is copied is the code.
func (m *markdown) code(lang string, src []string, width int) []string {
	if len(src) == 0 {
		return nil
	}
	lines := highlight(lang, src)
	out := make([]string, len(lines))
	for i, l := range lines {
		if p := m.paintLine(cutSpans(l, width-2)); p != "" {
			out[i] = "  " + p
		}
	}
	return out
}

func (m *markdown) quote(n *ast.Blockquote, width int) []string {
	bar := m.paint("│", stQuote)
	if m.ascii {
		bar = ">"
	}
	inner := m.blocks(n, width-2, false)
	if len(inner) == 0 {
		return []string{bar}
	}
	for i, l := range inner {
		if l == "" {
			inner[i] = bar
		} else {
			inner[i] = bar + " " + l
		}
	}
	return inner
}

func (m *markdown) list(n *ast.List, width int) []string {
	var items []ast.Node
	var marks []string
	mw := 0
	for it := n.FirstChild(); it != nil; it = it.NextSibling() {
		mark := "•"
		switch {
		case taskOf(it) != nil && taskOf(it).IsChecked && m.ascii:
			mark = "[x]"
		case taskOf(it) != nil && taskOf(it).IsChecked:
			mark = "[✓]"
		case taskOf(it) != nil:
			mark = "[ ]"
		case n.IsOrdered():
			mark = strconv.Itoa(n.Start+len(items)) + string(n.Marker)
		case m.ascii:
			mark = "-"
		}
		items, marks = append(items, it), append(marks, mark)
		mw = max(mw, ansi.StringWidth(mark))
	}
	var out []string
	for i, it := range items {
		if i > 0 && !n.IsTight {
			out = append(out, "")
		}
		// Numbers align on their right: " 9." over "10.".
		head := strings.Repeat(" ", mw-ansi.StringWidth(marks[i])) + m.paint(marks[i], stMarker)
		body := m.blocks(it, width-mw-1, n.IsTight)
		if len(body) == 0 {
			out = append(out, head)
			continue
		}
		for k, l := range body {
			switch {
			case k == 0:
				out = append(out, head+" "+l)
			case l == "":
				out = append(out, "")
			default:
				out = append(out, strings.Repeat(" ", mw+1)+l)
			}
		}
	}
	return out
}

// adopt nests a list of another kind under l's last item when it starts
// on the next line indented, if by fewer columns than CommonMark wants
// ("1. a" then "  - b"), as models mean it; the items of l's kind after
// it rejoin l.
func (m *markdown) adopt(l *ast.List) {
	b, ok := l.NextSibling().(*ast.List)
	if !ok || b.IsOrdered() == l.IsOrdered() {
		return
	}
	start := -1
	for c := ast.Node(b); c != nil && start < 0; c = c.FirstChild() {
		if c.Type() == ast.TypeBlock && c.Lines().Len() > 0 {
			start = c.Lines().At(0).Start
		}
	}
	if start < 0 {
		return
	}
	ls := bytes.LastIndexByte(m.src[:start], '\n') + 1
	prev := bytes.LastIndexByte(m.src[:max(ls-1, 0)], '\n') + 1
	if ls == 0 || indentOf(string(m.src[ls:start])) < 2 || isBlank(string(m.src[prev:ls])) {
		return
	}
	l.LastChild().AppendChild(l.LastChild(), b)
	if next, ok := l.NextSibling().(*ast.List); ok && next.IsOrdered() == l.IsOrdered() && next.Marker == l.Marker {
		for it := next.FirstChild(); it != nil; it = next.FirstChild() {
			l.AppendChild(l, it)
		}
		l.IsTight = l.IsTight && next.IsTight
		next.Parent().RemoveChild(next.Parent(), next)
	}
}

func isBlank(l string) bool { return strings.TrimLeft(l, " \n") == "" }

// taskOf is a list item's task check box, if it starts with one.
func taskOf(item ast.Node) *east.TaskCheckBox {
	if p := item.FirstChild(); p != nil {
		if c, ok := p.FirstChild().(*east.TaskCheckBox); ok {
			return c
		}
	}
	return nil
}

// table renders a GFM table with columns as wide as their widest cell;
// when that is wider than width, the widest columns shrink and their
// cells are cut.
func (m *markdown) table(t *east.Table, width int) []string {
	n := len(t.Alignments)
	var rows [][][]span
	nat := make([]int, n)
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		var base mdStyle
		if _, ok := row.(*east.TableHeader); ok {
			base = stTableHead
		}
		cells := make([][]span, n)
		c := 0
		for cell := row.FirstChild(); cell != nil && c < n; cell = cell.NextSibling() {
			sp := m.inline(cell, base)
			for k := range sp {
				if sp[k].text == "\n" {
					sp[k].text = " "
				}
			}
			cells[c] = sp
			nat[c] = max(nat[c], spansWidth(sp), 1)
			c++
		}
		rows = append(rows, cells)
	}
	// No outer border: it would only cost width, and copying a row
	// copies its cells.
	sep, cross, dash := " "+m.paint("│", stBorder)+" ", "─┼─", "─"
	if m.ascii {
		sep, cross, dash = " | ", "-|-", "-"
	}
	ws := fitColumns(nat, width-3*(n-1))
	var out []string
	for r, cells := range rows {
		var b strings.Builder
		for c, sp := range cells {
			if c > 0 {
				b.WriteString(sep)
			}
			sp = cutSpans(sp, ws[c])
			pad := ws[c] - spansWidth(sp)
			left := 0
			switch t.Alignments[c] {
			case east.AlignRight:
				left = pad
			case east.AlignCenter:
				left = pad / 2
			}
			b.WriteString(strings.Repeat(" ", left))
			b.WriteString(m.paintLine(sp))
			b.WriteString(strings.Repeat(" ", pad-left))
		}
		out = append(out, strings.TrimRight(b.String(), " "))
		if r == 0 {
			parts := make([]string, n)
			for c := range parts {
				parts[c] = strings.Repeat(dash, ws[c])
			}
			out = append(out, m.paint(strings.Join(parts, cross), stBorder))
		}
	}
	return out
}

// --- inlines

// inline renders n's inline children as spans, each in st and the
// styles of the markup around it. Without colour (ascii) the marks of
// emphasis and code stay visible.
func (m *markdown) inline(n ast.Node, st mdStyle) []span {
	var out []span
	m.inlines(n, st, &out)
	return out
}

func (m *markdown) inlines(parent ast.Node, st mdStyle, out *[]span) {
	emit := func(s string, st mdStyle) {
		if s != "" {
			*out = append(*out, span{s, st})
		}
	}
	for n := parent.FirstChild(); n != nil; n = n.NextSibling() {
		switch n := n.(type) {
		case *ast.Text:
			if n.IsRaw() {
				emit(string(n.Value(m.src)), st)
			} else {
				emit(unescape(n.Value(m.src)), st)
			}
			switch {
			case n.HardLineBreak():
				*out = append(*out, span{"\n", 0})
			case n.SoftLineBreak():
				emit(" ", st)
			}
		case *ast.String:
			emit(string(n.Value), st)
		case *ast.CodeSpan:
			var b strings.Builder
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					b.WriteString(strings.ReplaceAll(string(t.Value(m.src)), "\n", " "))
				}
			}
			code := b.String()
			if m.ascii {
				code = codeFence(code)
			}
			emit(code, st|stCode)
		case *ast.Emphasis:
			s, mark := stEmph, "*"
			if n.Level == 2 {
				s, mark = stStrong, "**"
			}
			m.marked(n, st|s, mark, out)
		case *east.Strikethrough:
			m.marked(n, st|stStrike, "~~", out)
		case *ast.Link:
			text := m.inline(n, st|stLink)
			*out = append(*out, text...)
			m.dest(n.Destination, plainText(text), st, out)
		case *ast.Image:
			var b strings.Builder
			m.alt(n, &b)
			label := strings.TrimSuffix(b.String(), " ")
			emit(label, st|stLink)
			m.dest(n.Destination, label, st, out)
		case *ast.AutoLink:
			emit(string(n.Label(m.src)), st|stLink)
		case *ast.RawHTML:
			for i := 0; i < n.Segments.Len(); i++ {
				s := n.Segments.At(i)
				emit(strings.ReplaceAll(string(s.Value(m.src)), "\n", " "), st)
			}
		case *east.TaskCheckBox:
			// Drawn as the item's mark (list).
			if t, ok := n.NextSibling().(*ast.Text); ok {
				t.Segment = t.Segment.TrimLeftSpace(m.src)
			}
		default:
			m.inlines(n, st, out)
		}
	}
}

// alt writes an image's description as plain text, as HTML's alt.
func (m *markdown) alt(n ast.Node, b *strings.Builder) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			b.WriteString(unescape(c.Value(m.src)))
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.AutoLink:
			b.Write(c.Label(m.src))
		default:
			m.alt(c, b)
		}
	}
}

// marked renders emphasis: styled, or between its marks without colour.
func (m *markdown) marked(n ast.Node, st mdStyle, mark string, out *[]span) {
	if m.ascii {
		*out = append(*out, span{mark, st})
	}
	m.inlines(n, st, out)
	if m.ascii {
		*out = append(*out, span{mark, st})
	}
}

// dest draws a link's address dim in parentheses after its text, unless
// the text says the same.
func (m *markdown) dest(d []byte, label string, st mdStyle, out *[]span) {
	u := unescape(d)
	switch {
	case u == "" || u == label || u == "mailto:"+label:
	case label == "":
		*out = append(*out, span{"(" + u + ")", st | stURL})
	default:
		*out = append(*out, span{" ", st}, span{"(" + u + ")", st | stURL})
	}
}

// codeFence writes a code span as markdown would: in a run of backticks
// longer than any inside it, padded where it starts or ends with one.
func codeFence(code string) string {
	n, run := 1, 0
	for i := 0; i < len(code); i++ {
		if code[i] == '`' {
			run++
			if run >= n {
				n = run + 1
			}
		} else {
			run = 0
		}
	}
	fence, pad := strings.Repeat("`", n), ""
	if strings.HasPrefix(code, "`") || strings.HasSuffix(code, "`") {
		pad = " "
	}
	return fence + pad + code + pad + fence
}

// unescape resolves backslash escapes and entity references, as the
// CommonMark spec's HTML shows them.
func unescape(b []byte) string {
	if bytes.IndexByte(b, '\\') < 0 && bytes.IndexByte(b, '&') < 0 {
		return string(b)
	}
	var out []byte
	entities := func(b []byte) []byte { return util.ResolveEntityNames(util.ResolveNumericReferences(b)) }
	from := 0
	for i := 0; i+1 < len(b); i++ {
		if b[i] == '\\' && util.IsPunct(b[i+1]) {
			out = append(append(out, entities(b[from:i])...), b[i+1])
			i++
			from = i + 1
		}
	}
	return string(append(out, entities(b[from:])...))
}

func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

func plainText(sp []span) string {
	var b strings.Builder
	for _, s := range sp {
		b.WriteString(s.text)
	}
	return b.String()
}

// fitColumns shrinks column widths to fit avail cells: the widest
// columns shrink first, to a common width, so narrow ones stay whole;
// the cells left over go to the first of the shrunk columns.
func fitColumns(nat []int, avail int) []int {
	ws := slices.Clone(nat)
	if avail <= len(nat) {
		for i := range ws {
			ws[i] = 1
		}
		return ws
	}
	// Fill from the narrowest: a column narrower than its share of what
	// is left keeps its width; the others share the rest.
	lo, left := 0, avail
	sorted := slices.Sorted(slices.Values(nat))
	for k, w := range sorted {
		if n := len(sorted) - k; w*n > left {
			lo, left = left/n, left%n
			break
		}
		left -= w
	}
	if lo == 0 {
		return ws // every column fits
	}
	for i, w := range nat {
		ws[i] = min(w, lo)
		if w > lo && left > 0 {
			ws[i]++
			left--
		}
	}
	return ws
}

// --- painting

func (m *markdown) ink(st mdStyle) ink {
	if st == 0 {
		return ink{}
	}
	if st&(st-1) == 0 {
		return m.inks[bits.TrailingZeros32(uint32(st))]
	}
	if k, ok := m.mixed[st]; ok {
		return k
	}
	var k ink
	for i := range nStyles {
		if st&(1<<i) == 0 {
			continue
		}
		pre := m.inks[i].pre
		// Two SGR sequences are one with both parameter lists.
		if a, b := sgrParams(k.pre), sgrParams(pre); a != "" && b != "" {
			pre = "\x1b[" + a + ";" + b + "m"
			k.pre = ""
		}
		k.pre += pre
		if !strings.Contains(k.post, m.inks[i].post) {
			k.post = m.inks[i].post + k.post // inner styles end first
		}
	}
	m.mixed[st] = k
	return k
}

// sgrParams returns the parameters of s if s is one SGR sequence.
func sgrParams(s string) string {
	if len(s) < 4 || !strings.HasPrefix(s, "\x1b[") || s[len(s)-1] != 'm' {
		return ""
	}
	p := s[2 : len(s)-1]
	if strings.Trim(p, "0123456789;:") != "" {
		return ""
	}
	return p
}

func (m *markdown) paint(s string, st mdStyle) string { return m.ink(st).paint(s) }

// paintLine paints spans, each run of one style set on its own.
func (m *markdown) paintLine(sp []span) string {
	if len(sp) == 1 {
		return m.paint(sp[0].text, sp[0].st)
	}
	var b strings.Builder
	for i := 0; i < len(sp); {
		st := sp[i].st
		k := m.ink(st)
		b.WriteString(k.pre)
		for ; i < len(sp) && sp[i].st == st; i++ {
			b.WriteString(sp[i].text)
		}
		b.WriteString(k.post)
	}
	return b.String()
}

func spansWidth(sp []span) int {
	n := 0
	for _, s := range sp {
		n += ansi.StringWidth(s.text)
	}
	return n
}

// cutSpans cuts spans to at most limit cells, ending them with "…" if
// anything was cut.
func cutSpans(sp []span, limit int) []span {
	if spansWidth(sp) <= limit {
		return sp
	}
	var out []span
	room := limit - 1
	for _, s := range sp {
		w := ansi.StringWidth(s.text)
		if w <= room {
			out = append(out, s)
			room -= w
			continue
		}
		if head, _ := cutCells(s.text, room); head != "" {
			out = append(out, span{head, s.st})
		}
		if limit > 0 {
			out = append(out, span{"…", s.st})
		}
		break
	}
	return out
}

// cutCells returns the longest head of s at most n cells wide, whole
// grapheme clusters, and its width.
func cutCells(s string, n int) (string, int) {
	w, i := 0, 0
	for i < len(s) {
		if c := s[i]; c < 0x80 {
			if w+1 > n {
				break
			}
			w++
			i++
			continue
		}
		g, gw := ansi.FirstGraphemeCluster(s[i:], ansi.GraphemeWidth)
		if g == "" || w+gw > n {
			break
		}
		w += gw
		i += len(g)
	}
	return s[:i], w
}

// --- wrapping

// wrap breaks spans into painted lines of at most width cells, at
// spaces; a word longer than a line is cut across lines.
func (m *markdown) wrap(sp []span, width int) []string {
	w := wrapper{width: max(width, 1), first: true}
	var word []span
	wordW := 0
	endWord := func() {
		if len(word) > 0 {
			w.put(word, wordW)
			word, wordW = word[:0], 0
		}
	}
	for _, s := range sp {
		if s.text == "\n" {
			endWord()
			w.newline()
			continue
		}
		t := s.text
		for t != "" {
			if t[0] == ' ' {
				endWord()
				k := indentOf(t)
				w.gap = append(w.gap, span{t[:k], s.st})
				w.gapW += k
				t = t[k:]
				continue
			}
			k := strings.IndexByte(t, ' ')
			if k < 0 {
				k = len(t)
			}
			word = append(word, span{t[:k], s.st})
			wordW += ansi.StringWidth(t[:k])
			t = t[k:]
		}
	}
	endWord()
	if len(w.cur) > 0 || len(w.lines) == 0 {
		w.lines = append(w.lines, w.cur)
	}
	out := make([]string, len(w.lines))
	for i, l := range w.lines {
		out[i] = m.paintLine(l)
	}
	return out
}

type wrapper struct {
	width int
	lines [][]span
	cur   []span
	curW  int
	gap   []span // spaces waiting for the next word
	gapW  int
	first bool // on the first line, leading spaces stay
}

func (w *wrapper) newline() {
	w.lines = append(w.lines, w.cur)
	w.cur, w.curW, w.gap, w.gapW, w.first = nil, 0, nil, 0, false
}

func (w *wrapper) put(word []span, n int) {
	if w.curW > 0 && w.curW+w.gapW+n > w.width {
		w.newline()
	}
	if w.curW > 0 || w.first && w.gapW+n <= w.width {
		w.cur = append(w.cur, w.gap...)
		w.curW += w.gapW
	}
	w.gap, w.gapW = nil, 0
	if w.curW+n <= w.width {
		w.cur = append(w.cur, word...)
		w.curW += n
		return
	}
	for _, s := range word {
		for t := s.text; t != ""; {
			room := w.width - w.curW
			head, hw := cutCells(t, room)
			if head == "" {
				if w.curW > 0 {
					w.newline()
					continue
				}
				// Not even one grapheme fits an empty line: take it anyway.
				_, size := utf8.DecodeRuneInString(t)
				head, hw = t[:size], room
			}
			w.cur = append(w.cur, span{head, s.st})
			w.curW += hw
			t = t[len(head):]
			if t != "" {
				w.newline()
			}
		}
	}
}
