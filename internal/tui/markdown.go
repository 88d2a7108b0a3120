package tui

// A display-only markdown renderer for the model's answers.
//
// It replaces glamour, whose dependencies (chroma, goldmark, bluemonday)
// cost ~30 ms of package init on every command. Nothing here runs at
// init: no package-level regexps or map literals; the highlighter's
// keyword sets are built on first use.
//
// It is not a full CommonMark implementation. It covers what models
// write: ATX and setext headings, paragraphs, fenced and indented code,
// lists (nested, tasks), quotes, thematic breaks, GFM tables, HTML blocks
// shown as-is, and the usual inline markup: code spans, emphasis by
// CommonMark's rules, links (inline and by reference definitions),
// images, autolinks, escapes and hard breaks. Whatever it does not
// understand it shows as written: raw inline HTML, entity references,
// and tabs (four spaces). The CommonMark spec's examples of those
// sections judge it (commonmark_test.go, testdata/commonmark); where it
// differs on purpose, testdata/commonmark/known.txt says why.

import (
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

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
	ascii bool
	inks  [nStyles]ink
	mixed map[mdStyle]ink // unions met so far
	// refs are the link reference definitions of the text being
	// rendered, by normalised label (set for the length of a render).
	refs map[string]string
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
	return m
}

// maxNesting bounds quotes and lists in each other: deeper, lines are
// paragraphs (a pathological answer must not cost a deep recursion).
const maxNesting = 16

// render turns markdown into lines at most width cells wide (at least
// 10), styled, with no trailing padding and no blank lines at the ends.
func (m *markdown) render(text string, width int) []string {
	width = max(width, 10)
	blocks, _ := parseBlocks(strings.Split(sanitize(text), "\n"), 0)
	m.refs = collectRefs(blocks, nil)
	out := m.blocks(blocks, width, false)
	m.refs = nil
	for i, l := range out {
		// Wide graphemes joined across spans, or nesting deeper than the
		// width, can still overflow: the terminal would wrap the line.
		if lineWidth(l) > width {
			l = ansi.Truncate(l, width, "…")
			if strings.IndexByte(l, 0x1b) >= 0 {
				l += "\x1b[m"
			}
			out[i] = l
		}
	}
	return trimBlank(out)
}

// sanitize drops what a terminal would obey (termsafe.Text: escape
// sequences, controls, bidi overrides; a lone CR ends a line) and expands
// tabs: an answer must not restyle the screen or move the cursor.
func sanitize(s string) string {
	return strings.ReplaceAll(termsafe.Text(s), "\t", "    ")
}

// lineWidth is ansi.StringWidth, quick for plain ASCII.
func lineWidth(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || c < 0x20 {
			return ansi.StringWidth(s)
		}
	}
	return len(s)
}

// --- blocks

type blockKind uint8

const (
	bPara blockKind = iota
	bHeading
	bCode
	bQuote
	bList
	bRule
	bTable
	bHTML
)

type mdBlock struct {
	kind     blockKind
	level    int      // a heading's level
	text     []string // the lines of a paragraph, heading, code or HTML block
	lang     string   // a fenced block's language
	children []mdBlock
	items    []mdItem
	ordered  bool
	loose    bool // a list with blank lines between or inside its items
	table    *mdTable
	refs     []linkRef // link reference definitions taken off a paragraph's start
}

// linkRef is a link reference definition: [label]: dest "title".
type linkRef struct{ label, dest string }

// collectRefs gathers the definitions of a document, wherever they are
// (a quote, a list item): the first of a label wins.
func collectRefs(bs []mdBlock, refs map[string]string) map[string]string {
	for i := range bs {
		for _, r := range bs[i].refs {
			if refs == nil {
				refs = map[string]string{}
			}
			if _, ok := refs[normLabel(r.label)]; !ok {
				refs[normLabel(r.label)] = r.dest
			}
		}
		refs = collectRefs(bs[i].children, refs)
		for _, it := range bs[i].items {
			refs = collectRefs(it.blocks, refs)
		}
	}
	return refs
}

// takeRefs takes the link reference definitions off the start of a
// paragraph's lines.
func takeRefs(lines []string) ([]linkRef, []string) {
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "[") || !strings.Contains(strings.Join(lines, "\n"), "]:") {
		return nil, lines
	}
	s := strings.Join(lines, "\n")
	var refs []linkRef
	for {
		label, dest, n, ok := refDef(s)
		if !ok {
			break
		}
		refs = append(refs, linkRef{label, dest})
		s = s[n:]
	}
	switch {
	case len(refs) == 0:
		return nil, lines
	case s == "":
		return refs, nil
	}
	return refs, strings.Split(s, "\n")
}

type mdItem struct {
	mark   string // "-", or an ordered item's number as written, "3."
	task   byte   // 0, or ' ' or 'x' for a task item
	blocks []mdBlock
}

type mdTable struct {
	align []byte // 'l', 'r', 'c' or 0 per column
	head  []string
	rows  [][]string
}

func isBlank(l string) bool { return strings.TrimLeft(l, " ") == "" }

func indentOf(l string) int {
	n := 0
	for n < len(l) && l[n] == ' ' {
		n++
	}
	return n
}

// parseBlocks splits lines into blocks; gaps says whether blank lines
// separate any two of them (what makes a list loose).
func parseBlocks(lines []string, depth int) (bs []mdBlock, gaps bool) {
	blank := false
	for i := 0; i < len(lines); {
		if isBlank(lines[i]) {
			blank = true
			i++
			continue
		}
		if blank && len(bs) > 0 {
			gaps = true
		}
		blank = false
		var b mdBlock
		b, i = parseBlock(lines, i, depth)
		bs = append(bs, b)
	}
	return bs, gaps
}

// parseBlock parses the block starting at lines[i], which is not blank,
// and returns it with the index of the line after it.
func parseBlock(lines []string, i, depth int) (mdBlock, int) {
	l := lines[i]
	ind := indentOf(l)
	if ind >= 4 {
		return parseIndented(lines, i)
	}
	t := l[ind:]
	if ch, n, info, ok := fenceOpen(l); ok {
		return parseFence(lines, i, ind, ch, n, info)
	}
	if lv, text, ok := atxHeading(t); ok {
		return mdBlock{kind: bHeading, level: lv, text: []string{text}}, i + 1
	}
	if isRule(t) {
		return mdBlock{kind: bRule}, i + 1
	}
	if depth < maxNesting {
		if t[0] == '>' {
			return parseQuote(lines, i, depth)
		}
		if _, ok := listMarkOf(l); ok {
			return parseList(lines, i, depth)
		}
	}
	if end, ok := htmlStart(t, true); ok {
		return parseHTML(lines, i, end)
	}
	if tableAt(lines, i) {
		return parseTable(lines, i)
	}
	return parsePara(lines, i)
}

// startsBlock says whether l starts a block that ends a paragraph.
func startsBlock(l string) bool {
	ind := indentOf(l)
	if ind >= 4 || ind == len(l) {
		return false
	}
	t := l[ind:]
	if _, _, _, ok := fenceOpen(l); ok {
		return true
	}
	if _, _, ok := atxHeading(t); ok {
		return true
	}
	if t[0] == '>' || isRule(t) {
		return true
	}
	if mk, ok := listMarkOf(l); ok && !mk.empty && (!mk.ordered || mk.num == "1") {
		return true
	}
	_, ok := htmlStart(t, false)
	return ok
}

func parsePara(lines []string, i int) (mdBlock, int) {
	text := []string{strings.TrimLeft(lines[i], " ")}
	j := i + 1
	for ; j < len(lines); j++ {
		l := lines[j]
		if isBlank(l) {
			break
		}
		if lv := setextLevel(l); lv > 0 {
			refs, rest := takeRefs(text)
			if len(rest) == 0 {
				// Only definitions: the underline is a paragraph's text.
				return mdBlock{kind: bPara, text: []string{strings.TrimLeft(l, " ")}, refs: refs}, j + 1
			}
			return mdBlock{kind: bHeading, level: lv, text: rest, refs: refs}, j + 1
		}
		if startsBlock(l) || tableAt(lines, j) {
			break
		}
		text = append(text, strings.TrimLeft(l, " "))
	}
	refs, rest := takeRefs(text)
	return mdBlock{kind: bPara, text: rest, refs: refs}, j
}

// setextLevel is 1 for a "===" underline, 2 for "---", else 0.
func setextLevel(l string) int {
	ind := indentOf(l)
	if ind >= 4 {
		return 0
	}
	t := strings.TrimRight(l[ind:], " ")
	if t == "" || strings.Trim(t, string(t[0])) != "" {
		return 0
	}
	switch t[0] {
	case '=':
		return 1
	case '-':
		return 2
	}
	return 0
}

// atxHeading parses "## text ##" (t has no indent).
func atxHeading(t string) (level int, text string, ok bool) {
	for level < len(t) && t[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || level < len(t) && t[level] != ' ' {
		return 0, "", false
	}
	text = strings.TrimSpace(t[level:])
	// A closing run of #s, after a space, is not part of the text.
	if k := len(strings.TrimRight(text, "#")); k == 0 {
		text = ""
	} else if k < len(text) && text[k-1] == ' ' {
		text = strings.TrimRight(text[:k], " ")
	}
	return level, text, true
}

// isRule: three or more of one of - * _, and spaces (t has no indent).
func isRule(t string) bool {
	c := t[0]
	if c != '-' && c != '*' && c != '_' {
		return false
	}
	n := 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case c:
			n++
		case ' ':
		default:
			return false
		}
	}
	return n >= 3
}

func fenceOpen(l string) (ch byte, n int, info string, ok bool) {
	ind := indentOf(l)
	if ind > 3 || len(l)-ind < 3 {
		return 0, 0, "", false
	}
	t := l[ind:]
	ch = t[0]
	if ch != '`' && ch != '~' {
		return 0, 0, "", false
	}
	for n < len(t) && t[n] == ch {
		n++
	}
	info = strings.TrimSpace(t[n:])
	if n < 3 || ch == '`' && strings.IndexByte(info, '`') >= 0 {
		return 0, 0, "", false
	}
	return ch, n, info, true
}

func fenceClose(l string, ch byte, n int) bool {
	ind := indentOf(l)
	if ind > 3 {
		return false
	}
	t := strings.TrimRight(l[ind:], " ")
	return len(t) >= n && strings.Trim(t, string(ch)) == ""
}

func parseFence(lines []string, i, ind int, ch byte, n int, info string) (mdBlock, int) {
	lang, _, _ := strings.Cut(info, " ")
	b := mdBlock{kind: bCode, lang: strings.Trim(lang, "{}.")}
	j := i + 1
	for ; j < len(lines); j++ {
		l := lines[j]
		if fenceClose(l, ch, n) {
			j++
			break
		}
		// The content loses as much indent as the fence had.
		b.text = append(b.text, strings.TrimRight(l[min(ind, indentOf(l)):], " "))
	}
	return b, j
}

func parseIndented(lines []string, i int) (mdBlock, int) {
	b := mdBlock{kind: bCode}
	j := i
	for ; j < len(lines); j++ {
		l := lines[j]
		switch {
		case isBlank(l):
			b.text = append(b.text, "")
		case indentOf(l) >= 4:
			b.text = append(b.text, strings.TrimRight(l[4:], " "))
		default:
			goto end
		}
	}
end:
	// Trailing blank lines separate blocks: leave them to the caller.
	for len(b.text) > 0 && b.text[len(b.text)-1] == "" {
		b.text = b.text[:len(b.text)-1]
		j--
	}
	return b, j
}

func parseQuote(lines []string, i, depth int) (mdBlock, int) {
	var body []string
	text := false // the last line was text a lazy line may continue
	j := i
	for ; j < len(lines); j++ {
		l := lines[j]
		ind := indentOf(l)
		if ind < 4 && ind < len(l) && l[ind] == '>' {
			r := strings.TrimPrefix(l[ind+1:], " ")
			body = append(body, r)
			text = leavesText(r, text)
			continue
		}
		if text && !isBlank(l) && !startsBlock(l) {
			body = append(body, lazy(l))
			continue
		}
		break
	}
	children, _ := parseBlocks(body, depth+1)
	return mdBlock{kind: bQuote, children: children}, j
}

// leavesText says whether line l of a container's body leaves a paragraph
// open, which a lazy line (one without the container's marks) may
// continue: after text, l continues it unless it starts a block; else l
// must start a paragraph itself, alone or in a list item or quote, not
// code, a heading, a rule or HTML.
func leavesText(l string, text bool) bool {
	ind := indentOf(l)
	switch {
	case ind == len(l):
		return false
	case text && !startsBlock(l):
		return true
	case ind >= 4:
		return false
	}
	t := l[ind:]
	if _, _, _, ok := fenceOpen(l); ok {
		return false
	}
	if _, _, ok := atxHeading(t); ok {
		return false
	}
	if _, ok := htmlStart(t, true); ok || isRule(t) {
		return false
	}
	if t[0] == '>' {
		return leavesText(strings.TrimPrefix(t[1:], " "), false)
	}
	if mk, ok := listMarkOf(t); ok {
		return !mk.empty && leavesText(t[mk.content-mk.indent:], false)
	}
	return true
}

// lazy is a lazy continuation line as its paragraph's text: a "==="
// there continues the paragraph, never underlines it as a heading.
func lazy(l string) string {
	if setextLevel(l) == 1 {
		return `\` + strings.TrimLeft(l, " ")
	}
	return l
}

// listMark is a list item's marker.
type listMark struct {
	indent  int    // columns before the marker
	content int    // the column the item's content starts at
	delim   byte   // '-', '*', '+'; '.' or ')' after a number
	num     string // an ordered item's number
	ordered bool
	empty   bool // nothing after the marker
}

func listMarkOf(l string) (mk listMark, ok bool) {
	mk.indent = indentOf(l)
	if mk.indent > 3 || mk.indent == len(l) {
		return mk, false
	}
	t := l[mk.indent:]
	n := 0
	switch c := t[0]; {
	case c == '-' || c == '*' || c == '+':
		mk.delim, n = c, 1
	case c >= '0' && c <= '9':
		for n < len(t) && n < 10 && t[n] >= '0' && t[n] <= '9' {
			n++
		}
		if n > 9 || n == len(t) || t[n] != '.' && t[n] != ')' {
			return mk, false
		}
		mk.ordered, mk.num, mk.delim = true, t[:n], t[n]
		n++
	default:
		return mk, false
	}
	if isRule(t) {
		return mk, false // "- - -" and "* * *" are breaks
	}
	rest := t[n:]
	sp := indentOf(rest)
	switch {
	case sp == len(rest):
		mk.empty, mk.content = true, mk.indent+n+1
	case sp == 0:
		return mk, false
	case sp > 4:
		mk.content = mk.indent + n + 1 // the content is indented code
	default:
		mk.content = mk.indent + n + sp
	}
	return mk, true
}

func parseList(lines []string, i, depth int) (mdBlock, int) {
	first, _ := listMarkOf(lines[i])
	b := mdBlock{kind: bList, ordered: first.ordered}
	// Items are numbered from the first one's number, as CommonMark
	// numbers them: "1." on every line counts 1, 2, 3.
	start, _ := strconv.Atoi(first.num)
	for {
		mk, _ := listMarkOf(lines[i])
		var body []string
		text := false
		if !mk.empty {
			body = append(body, lines[i][mk.content:])
			text = leavesText(body[0], false)
		}
		j := i + 1
		// An item may start with one blank line at most: "-", a blank
		// line, then text is an empty item and a paragraph.
		alone := mk.empty && j < len(lines) && isBlank(lines[j])
	item:
		for ; !alone && j < len(lines); j++ {
			l := lines[j]
			ind := indentOf(l)
			switch {
			case ind == len(l):
				body = append(body, "")
				text = false
			case ind >= mk.content:
				body = append(body, l[mk.content:])
				text = leavesText(l[mk.content:], text)
			case ind >= mk.indent+2 && otherList(l[ind:], first):
				// A list of another kind nested under-indented ("1. a"
				// then "  - b"): forgiven, as models mean it.
				body = append(body, l[ind:])
				text = leavesText(l[ind:], false)
			case text && !startsBlock(l):
				if _, ok := listMarkOf(l); ok {
					break item
				}
				body = append(body, lazy(l)) // a lazy continuation line
			default:
				break item
			}
		}
		trailing := 0
		for len(body) > 0 && body[len(body)-1] == "" {
			body = body[:len(body)-1]
			trailing++
		}
		for alone && j < len(lines) && isBlank(lines[j]) {
			j++
			trailing++
		}
		it := mdItem{mark: string(mk.delim)}
		if first.ordered {
			it.mark = strconv.Itoa(start+len(b.items)) + it.mark
		}
		if len(body) > 0 {
			if t := body[0]; len(t) >= 3 && t[0] == '[' && t[2] == ']' && (len(t) == 3 || t[3] == ' ') {
				switch t[1] {
				case ' ':
					it.task = ' '
				case 'x', 'X':
					it.task = 'x'
				}
				if it.task != 0 {
					body[0] = strings.TrimLeft(t[3:], " ")
				}
			}
		}
		var gaps bool
		it.blocks, gaps = parseBlocks(body, depth+1)
		b.loose = b.loose || gaps
		b.items = append(b.items, it)
		if j < len(lines) {
			if next, ok := listMarkOf(lines[j]); ok && next.ordered == first.ordered && next.delim == first.delim {
				b.loose = b.loose || trailing > 0
				i = j
				continue
			}
		}
		// Blank lines after the list are the caller's.
		return b, j - trailing
	}
}

// otherList says whether t starts an item of another kind of list than
// first's: bullets under numbers, or numbers under bullets.
func otherList(t string, first listMark) bool {
	mk, ok := listMarkOf(t)
	return ok && (mk.ordered != first.ordered || mk.delim != first.delim)
}

// htmlStart says whether t (no indent) starts an HTML block, and the
// text that ends it ("" for a blank line). anyTag admits any lone tag,
// which may not interrupt a paragraph.
func htmlStart(t string, anyTag bool) (end string, ok bool) {
	if len(t) < 2 || t[0] != '<' {
		return "", false
	}
	lower := strings.ToLower(t[:min(len(t), 10)])
	switch {
	case strings.HasPrefix(lower, "<!--"):
		return "-->", true
	case strings.HasPrefix(lower, "<?"):
		return "?>", true
	case strings.HasPrefix(lower, "<![cdata["):
		return "]]>", true
	case strings.HasPrefix(lower, "<!") && len(t) > 2 && isLetter(t[2]):
		return ">", true
	}
	k := 1
	if t[1] == '/' {
		k = 2
	}
	n := k
	for n < len(t) && (isLetter(t[n]) || n > k && t[n] >= '0' && t[n] <= '9' || n > k && t[n] == '-') {
		n++
	}
	if n == k {
		return "", false
	}
	name := strings.ToLower(t[k:n])
	after := byte(' ')
	if n < len(t) {
		after = t[n]
	}
	if after != ' ' && after != '>' && after != '/' {
		return "", false // an autolink, or not a tag
	}
	switch name {
	case "script", "pre", "style", "textarea":
		if k == 1 {
			return "</" + name + ">", true
		}
	}
	if blockTag(name) {
		return "", true
	}
	// Any other tag starts a block only alone on its line.
	if gt := strings.IndexByte(t, '>'); anyTag && gt > 0 && isBlank(t[gt+1:]) {
		return "", true
	}
	return "", false
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// blockTag: CommonMark's block-level tag names.
func blockTag(name string) bool {
	switch name {
	case "address", "article", "aside", "base", "basefont", "blockquote", "body", "caption", "center",
		"col", "colgroup", "dd", "details", "dialog", "dir", "div", "dl", "dt", "fieldset", "figcaption",
		"figure", "footer", "form", "frame", "frameset", "h1", "h2", "h3", "h4", "h5", "h6", "head",
		"header", "hr", "html", "iframe", "legend", "li", "link", "main", "menu", "menuitem", "nav",
		"noframes", "ol", "optgroup", "option", "p", "param", "search", "section", "summary", "table",
		"tbody", "td", "tfoot", "th", "thead", "title", "tr", "track", "ul":
		return true
	}
	return false
}

func parseHTML(lines []string, i int, end string) (mdBlock, int) {
	b := mdBlock{kind: bHTML}
	j := i
	for ; j < len(lines); j++ {
		l := lines[j]
		if end == "" && isBlank(l) {
			break
		}
		b.text = append(b.text, strings.TrimRight(l, " "))
		if end != "" && strings.Contains(strings.ToLower(l), end) {
			j++
			break
		}
	}
	return b, j
}

// tableAt says whether a GFM table starts at lines[i]: a row with a pipe,
// then a delimiter row with as many cells.
func tableAt(lines []string, i int) bool {
	if i+1 >= len(lines) || indentOf(lines[i]) >= 4 || strings.IndexByte(lines[i], '|') < 0 {
		return false
	}
	align, ok := delimiterRow(lines[i+1])
	return ok && len(splitRow(lines[i])) == len(align)
}

func delimiterRow(l string) ([]byte, bool) {
	if indentOf(l) >= 4 || strings.IndexByte(l, '|') < 0 {
		return nil, false
	}
	cells := splitRow(l)
	align := make([]byte, len(cells))
	for i, c := range cells {
		left, right := strings.HasPrefix(c, ":"), strings.HasSuffix(c, ":")
		d := strings.Trim(c, ":")
		if d == "" || strings.Trim(d, "-") != "" {
			return nil, false
		}
		switch {
		case left && right && len(c) > 1:
			align[i] = 'c'
		case right:
			align[i] = 'r'
		case left:
			align[i] = 'l'
		}
	}
	return align, true
}

// splitRow splits a table row at its unescaped pipes.
func splitRow(l string) []string {
	s := strings.TrimSpace(l)
	s = strings.TrimPrefix(s, "|")
	if strings.HasSuffix(s, "|") && !strings.HasSuffix(s, `\|`) {
		s = s[:len(s)-1]
	}
	var cells []string
	start := 0
	for k := 0; k < len(s); k++ {
		switch s[k] {
		case '\\':
			k++
		case '|':
			cells = append(cells, strings.TrimSpace(s[start:k]))
			start = k + 1
		}
	}
	return append(cells, strings.TrimSpace(s[start:]))
}

func parseTable(lines []string, i int) (mdBlock, int) {
	align, _ := delimiterRow(lines[i+1])
	t := &mdTable{align: align, head: splitRow(lines[i])}
	j := i + 2
	for ; j < len(lines) && !isBlank(lines[j]) && !startsBlock(lines[j]); j++ {
		row := splitRow(lines[j])
		for len(row) < len(align) {
			row = append(row, "")
		}
		t.rows = append(t.rows, row[:len(align)])
	}
	return mdBlock{kind: bTable, table: t}, j
}

// --- rendering blocks

// blocks renders blocks one after another, a blank line between them
// unless tight (the items of a tight list).
func (m *markdown) blocks(bs []mdBlock, width int, tight bool) []string {
	width = max(width, 1)
	var out []string
	for i := range bs {
		ls := m.block(&bs[i], width)
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

func (m *markdown) block(b *mdBlock, width int) []string {
	switch b.kind {
	case bHeading:
		return m.heading(b, width)
	case bCode:
		return m.code(b, width)
	case bQuote:
		return m.quote(b, width)
	case bList:
		return m.list(b, width)
	case bRule:
		if m.ascii {
			return []string{strings.Repeat("-", width)}
		}
		return []string{m.paint(strings.Repeat("─", width), stRule)}
	case bTable:
		return m.table(b.table, width)
	case bHTML:
		var out []string
		for _, l := range b.text {
			out = append(out, m.wrap([]span{{l, stHTML}}, width)...)
		}
		return out
	}
	if len(b.text) == 0 {
		return nil // a paragraph of link reference definitions only
	}
	return m.wrap(m.inline(strings.Join(b.text, "\n"), 0), width)
}

func (m *markdown) heading(b *mdBlock, width int) []string {
	base := stHeading
	if b.level == 1 {
		base = stTitle
	}
	sp := m.inline(strings.Join(b.text, "\n"), 0)
	for i := range sp {
		sp[i].st |= base
	}
	if m.ascii {
		// Without colour, the marks are what shows a heading.
		sp = append([]span{{strings.Repeat("#", b.level) + " ", base}}, sp...)
	}
	if len(sp) == 0 {
		return nil
	}
	return m.wrap(sp, width)
}

// code renders a code block indented, highlighted by its language,
// never wrapped: a long line is cut, so what is copied is the code.
func (m *markdown) code(b *mdBlock, width int) []string {
	if len(b.text) == 0 {
		return nil
	}
	lines := highlight(b.lang, b.text)
	out := make([]string, len(lines))
	for i, l := range lines {
		if p := m.paintLine(cutSpans(l, width-2)); p != "" {
			out[i] = "  " + p
		}
	}
	return out
}

func (m *markdown) quote(b *mdBlock, width int) []string {
	bar := m.paint("│", stQuote)
	if m.ascii {
		bar = ">"
	}
	inner := m.blocks(b.children, width-2, false)
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

func (m *markdown) list(b *mdBlock, width int) []string {
	marks := make([]string, len(b.items))
	mw := 0
	for i, it := range b.items {
		switch {
		case it.task == 'x' && m.ascii:
			marks[i] = "[x]"
		case it.task == 'x':
			marks[i] = "[✓]"
		case it.task == ' ':
			marks[i] = "[ ]"
		case b.ordered:
			marks[i] = it.mark
		case m.ascii:
			marks[i] = "-"
		default:
			marks[i] = "•"
		}
		mw = max(mw, lineWidth(marks[i]))
	}
	var out []string
	for i, it := range b.items {
		if i > 0 && b.loose {
			out = append(out, "")
		}
		// Numbers align on their right: " 9." over "10.".
		head := strings.Repeat(" ", mw-lineWidth(marks[i])) + m.paint(marks[i], stMarker)
		body := m.blocks(it.blocks, width-mw-1, !b.loose)
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

// table renders a GFM table with columns as wide as their widest cell;
// when that is wider than width, the widest columns shrink and their
// cells are cut.
func (m *markdown) table(t *mdTable, width int) []string {
	n := len(t.align)
	rows := make([][][]span, 0, 1+len(t.rows))
	nat := make([]int, n)
	for r, row := range append([][]string{t.head}, t.rows...) {
		cells := make([][]span, n)
		for c, text := range row {
			sp := m.inline(strings.ReplaceAll(text, `\|`, "|"), 0)
			for k := range sp {
				if sp[k].text == "\n" {
					sp[k].text = " "
				}
				if r == 0 {
					sp[k].st |= stTableHead
				}
			}
			cells[c] = sp
			nat[c] = max(nat[c], spansWidth(sp), 1)
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
			switch t.align[c] {
			case 'r':
				left = pad
			case 'c':
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

// fitColumns shrinks column widths to fit avail cells: the widest
// columns shrink first, to a common width, so narrow ones stay whole.
func fitColumns(nat []int, avail int) []int {
	ws := append([]int(nil), nat...)
	total, widest := 0, 0
	for _, w := range nat {
		total += w
		widest = max(widest, w)
	}
	if total <= avail {
		return ws
	}
	if avail <= len(nat) {
		for i := range ws {
			ws[i] = 1
		}
		return ws
	}
	sum := func(limit int) int {
		s := 0
		for _, w := range nat {
			s += min(w, limit)
		}
		return s
	}
	lo, hi := 1, widest // the largest limit that fits is in [lo, hi)
	for hi-lo > 1 {
		if mid := (lo + hi) / 2; sum(mid) <= avail {
			lo = mid
		} else {
			hi = mid
		}
	}
	left := avail - sum(lo)
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
		n += lineWidth(s.text)
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
		w := lineWidth(s.text)
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
			wordW += lineWidth(t[:k])
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
