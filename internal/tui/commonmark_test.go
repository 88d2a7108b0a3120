package tui

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The CommonMark spec's examples (testdata/commonmark, see its README)
// judge the renderer on the sections it claims. The renderer draws a
// terminal, not HTML, so both sides are brought to one form: the lines a
// terminal shows, each a run of text segments with the set of styles
// they are painted in (em, strong, code, a link and its url, h1 or a
// lower heading, pre, a list marker, a quote's bar, a rule). The
// renderer's side is its real output with an ink per style, read back
// from the escape sequences; the spec's side is its HTML laid out as the
// renderer lays out blocks (a blank line between blocks, two spaces
// before code, "│ " before a quote's lines, markers before list items).

// specSections are the sections the renderer claims (markdown.go's doc
// comment). Not claimed: tabs (expanded to four spaces, not to tab
// stops), entity references and raw HTML (shown as written), HTML blocks
// (shown as written, which HTML cannot express), and link reference
// definitions.
var specSections = []string{
	"Backslash escapes", "Precedence", "Thematic breaks", "ATX headings", "Setext headings",
	"Indented code blocks", "Fenced code blocks", "Paragraphs", "Blank lines", "Block quotes",
	"List items", "Lists", "Inlines", "Code spans", "Emphasis and strong emphasis", "Links",
	"Images", "Autolinks", "Hard line breaks", "Soft line breaks", "Textual content",
}

type specExample struct {
	Markdown string `json:"markdown"`
	HTML     string `json:"html"`
	Example  int    `json:"example"`
	Section  string `json:"section"`
}

// TestCommonMarkSpec renders every example of the claimed sections and
// compares it with the spec's. An example in testdata/commonmark/known.txt
// is a difference kept on purpose, with its reason; it must still differ,
// so the list stays true.
func TestCommonMarkSpec(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/commonmark/spec.json")
	if err != nil {
		t.Fatal(err)
	}
	var examples []specExample
	if err := json.Unmarshal(b, &examples); err != nil {
		t.Fatal(err)
	}
	known := knownDifferences(t)
	type tally struct{ pass, known, total int }
	counts := map[string]*tally{}
	m := specRenderer()
	seen := map[int]bool{}
	for _, ex := range examples {
		if !slices.Contains(specSections, ex.Section) {
			continue
		}
		seen[ex.Example] = true
		c := counts[ex.Section]
		if c == nil {
			c = &tally{}
			counts[ex.Section] = c
		}
		c.total++
		got := terminalForm(m.render(ex.Markdown, specWidth))
		want, err := htmlForm(ex.HTML)
		why, isKnown := known[ex.Example]
		switch {
		case err != nil && isKnown: // raw HTML the form cannot follow
			c.known++
		case err != nil:
			t.Errorf("example %d: the spec's HTML: %v", ex.Example, err)
		case got == want && isKnown:
			t.Errorf("example %d (%s) now matches the spec: drop it from known.txt (%s)", ex.Example, ex.Section, why)
		case got == want:
			c.pass++
		case isKnown:
			c.known++
		default:
			t.Errorf("example %d (%s) differs from the spec\nmarkdown:\n%s\nwant:\n%s\ngot:\n%s",
				ex.Example, ex.Section, specIndent(ex.Markdown), specIndent(want), specIndent(got))
		}
	}
	for n := range known {
		if !seen[n] {
			t.Errorf("known.txt lists example %d, which is in no claimed section", n)
		}
	}
	var names []string
	for s := range counts {
		names = append(names, s)
	}
	sort.Strings(names)
	pass, total := 0, 0
	for _, s := range names {
		c := counts[s]
		pass, total = pass+c.pass, total+c.total
		t.Logf("%-30s %3d of %3d match (%d known differences)", s, c.pass, c.total, c.known)
	}
	t.Logf("%-30s %3d of %3d match", "all claimed sections", pass, total)
}

func specIndent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n    ")
}

// knownDifferences reads known.txt: "example<TAB>reason" lines, # comments.
func knownDifferences(t *testing.T) map[int]string {
	b, err := os.ReadFile("testdata/commonmark/known.txt")
	if err != nil {
		t.Fatal(err)
	}
	known := map[int]string{}
	for i, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l == "" || l[0] == '#' {
			continue
		}
		num, why, ok := strings.Cut(l, "\t")
		n, err := strconv.Atoi(num)
		if !ok || err != nil || strings.TrimSpace(why) == "" {
			t.Fatalf("known.txt:%d: want \"example<TAB>reason\", got %q", i+1, l)
		}
		known[n] = why
	}
	return known
}

// specWidth is wide enough that nothing wraps.
const specWidth = 1000

// The styles of the common form, by name.
const (
	fEm = 1 << iota
	fStrong
	fCode
	fLink
	fURL
	fH1
	fH // levels 2 to 6 look alike in a terminal
	fPre
	fMarker
	fBar
	fRule
	fOther // styles the spec has no word for (tables, HTML, strikethrough)
)

var formNames = []string{"em", "strong", "code", "a", "url", "h1", "h", "pre", "marker", "bar", "hr", "other"}

// formOf maps the renderer's styles to the common form's.
func formOf(st mdStyle) int {
	f := 0
	for bit, form := range map[mdStyle]int{
		stEmph: fEm, stStrong: fStrong, stCode: fCode, stLink: fLink, stURL: fURL,
		stTitle: fH1, stHeading: fH, stMarker: fMarker, stQuote: fBar, stRule: fRule,
		stCodeBlock: fPre, stKeyword: fPre, stString: fPre, stComment: fPre, stNumber: fPre,
		stAdded: fPre, stRemoved: fPre, stHunk: fPre, stDim: fPre,
		stTableHead: fOther, stBorder: fOther, stStrike: fOther,
		// stHTML: dim, but the text is the source as written, as in HTML.
		stHTML: 0,
	} {
		if st&bit != 0 {
			f |= form
		}
	}
	return f
}

// fseg is a run of text in one set of the common form's styles.
type fseg struct {
	text string
	f    int
}

// specRenderer is the renderer with colour and an ink per style whose
// escape sequence names it: "\x1b[<100+style bit>m".
func specRenderer() *markdown {
	m := newMarkdown(Theme{})
	for i := range nStyles {
		m.inks[i] = ink{pre: fmt.Sprintf("\x1b[%dm", 100+i), post: "\x1b[m"}
	}
	return m
}

// terminalForm reads rendered lines back into the common form.
func terminalForm(lines []string) string {
	var out [][]fseg
	for _, l := range lines {
		var segs []fseg
		var st mdStyle
		for l != "" {
			i := strings.Index(l, "\x1b[")
			if i < 0 {
				segs = append(segs, fseg{l, formOf(st)})
				break
			}
			if i > 0 {
				segs = append(segs, fseg{l[:i], formOf(st)})
			}
			j := strings.IndexByte(l[i:], 'm')
			params := l[i+2 : i+j]
			l = l[i+j+1:]
			st = 0
			for _, p := range strings.Split(params, ";") {
				if n, err := strconv.Atoi(p); err == nil && n >= 100 {
					st |= 1 << (n - 100)
				}
			}
		}
		out = append(out, segs)
	}
	return formString(out, true)
}

// formString writes lines of segments: styled text as ⟨names⟩text⟨/⟩,
// neighbours of one style joined, trailing blanks dropped (a terminal
// does not show them), a rule as one mark whatever its width, and a
// link's percent-encoding decoded on both sides, since HTML encodes
// what the renderer shows as written.
func formString(lines [][]fseg, fromTerminal bool) string {
	var b strings.Builder
	for _, segs := range lines {
		var merged []fseg
		for _, s := range segs {
			if s.f&fRule != 0 {
				s.text = "───"
			}
			if fromTerminal && s.f&fMarker != 0 && strings.HasSuffix(s.text, ")") {
				s.text = strings.TrimSuffix(s.text, ")") + "." // HTML keeps no delimiter
			}
			if fromTerminal && s.f&fURL != 0 {
				s.text = "(" + decodeURL(strings.TrimSuffix(strings.TrimPrefix(s.text, "("), ")")) + ")"
			}
			if n := len(merged); n > 0 && merged[n-1].f == s.f {
				merged[n-1].text += s.text
				continue
			}
			if s.text != "" {
				merged = append(merged, s)
			}
		}
		for len(merged) > 0 {
			last := &merged[len(merged)-1]
			if last.text = strings.TrimRight(last.text, " "); last.text != "" {
				break
			}
			merged = merged[:len(merged)-1]
		}
		for _, s := range merged {
			if s.f == 0 {
				b.WriteString(s.text)
				continue
			}
			var names []string
			for i, n := range formNames {
				if s.f&(1<<i) != 0 {
					names = append(names, n)
				}
			}
			fmt.Fprintf(&b, "⟨%s⟩%s⟨/⟩", strings.Join(names, " "), s.text)
		}
		b.WriteByte('\n')
	}
	return strings.Trim(b.String(), "\n")
}

func decodeURL(s string) string {
	if d, err := url.PathUnescape(s); err == nil {
		return d
	}
	return s
}

// --- the spec's side: its HTML, laid out as the renderer lays out blocks

type hnode struct {
	tag      string // "" for text
	text     string
	attrs    map[string]string
	children []*hnode
}

// specTags are the tags the spec's HTML uses for what the renderer draws.
var specTags = []string{"p", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "code", "blockquote",
	"ul", "ol", "li", "hr", "br", "em", "strong", "a", "img"}

// parseSpecHTML parses the spec's HTML: well-formed, its attribute values
// quoted, with &, <, > and " escaped as entities. Other tags are raw HTML
// passed through, which the renderer shows as written: they stay text.
func parseSpecHTML(s string) (*hnode, error) {
	root := &hnode{tag: "root"}
	stack := []*hnode{root}
	for s != "" {
		top := stack[len(stack)-1]
		if s[0] != '<' {
			i := strings.IndexByte(s, '<')
			if i < 0 {
				i = len(s)
			}
			top.children = append(top.children, &hnode{text: decodeEntities(s[:i])})
			s = s[i:]
			continue
		}
		j := strings.IndexByte(s, '>')
		if j < 0 {
			return nil, fmt.Errorf("unclosed tag in %q", s)
		}
		tag := s[1:j]
		if name, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimSuffix(tag, "/"), "/"), " "); !slices.Contains(specTags, name) {
			top.children = append(top.children, &hnode{text: s[:j+1]})
			s = s[j+1:]
			continue
		}
		s = s[j+1:]
		if name, ok := strings.CutPrefix(tag, "/"); ok {
			if top.tag != name {
				return nil, fmt.Errorf("</%s> closes <%s>", name, top.tag)
			}
			stack = stack[:len(stack)-1]
			continue
		}
		self := strings.HasSuffix(tag, "/")
		tag = strings.TrimSpace(strings.TrimSuffix(tag, "/"))
		name, rest, _ := strings.Cut(tag, " ")
		n := &hnode{tag: name, attrs: map[string]string{}}
		for rest = strings.TrimSpace(rest); rest != ""; rest = strings.TrimSpace(rest) {
			k, v, ok := strings.Cut(rest, `="`)
			end := strings.IndexByte(v, '"')
			if !ok || end < 0 {
				return nil, fmt.Errorf("attribute %q", rest)
			}
			n.attrs[k] = decodeEntities(v[:end])
			rest = v[end+1:]
		}
		top.children = append(top.children, n)
		switch name {
		case "br", "hr", "img":
		default:
			if !self {
				stack = append(stack, n)
			}
		}
	}
	if len(stack) != 1 {
		return nil, fmt.Errorf("<%s> is never closed", stack[len(stack)-1].tag)
	}
	return root, nil
}

func decodeEntities(s string) string {
	if strings.IndexByte(s, '&') < 0 {
		return s
	}
	var b strings.Builder
	for s != "" {
		i := strings.IndexByte(s, '&')
		j := strings.IndexByte(s[max(i, 0):], ';')
		if i < 0 || j < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		ent := s[i+1 : i+j]
		s = s[i+j+1:]
		switch {
		case ent == "amp":
			b.WriteByte('&')
		case ent == "lt":
			b.WriteByte('<')
		case ent == "gt":
			b.WriteByte('>')
		case ent == "quot":
			b.WriteByte('"')
		case strings.HasPrefix(ent, "#x") || strings.HasPrefix(ent, "#X"):
			n, _ := strconv.ParseInt(ent[2:], 16, 32)
			b.WriteRune(rune(n))
		case strings.HasPrefix(ent, "#"):
			n, _ := strconv.ParseInt(ent[1:], 10, 32)
			b.WriteRune(rune(n))
		default:
			b.WriteString("&" + ent + ";")
		}
	}
	return b.String()
}

// htmlForm lays the spec's HTML out as the renderer would draw it.
func htmlForm(s string) (string, error) {
	root, err := parseSpecHTML(s)
	if err != nil {
		return "", err
	}
	return formString(layBlocks(root.children, false), false), nil
}

func isInlineNode(n *hnode) bool {
	switch n.tag {
	case "", "em", "strong", "code", "a", "img", "br":
		return true
	}
	return false
}

// layBlocks lays out blocks, a blank line between them unless tight.
// Inline nodes among them (a tight list item's text) are a paragraph;
// whitespace between blocks is nothing.
func layBlocks(nodes []*hnode, tight bool) [][]fseg {
	var out [][]fseg
	add := func(ls [][]fseg) {
		if len(ls) == 0 {
			return
		}
		if len(out) > 0 && !tight {
			out = append(out, nil)
		}
		out = append(out, ls...)
	}
	for i := 0; i < len(nodes); {
		if isInlineNode(nodes[i]) {
			j := i
			for j < len(nodes) && isInlineNode(nodes[j]) {
				j++
			}
			// The line breaks around a tight item's text are the HTML's.
			para := slices.Clone(nodes[i:j])
			if first := para[0]; first.tag == "" {
				para[0] = &hnode{text: strings.TrimLeft(first.text, "\n")}
			}
			if last := para[len(para)-1]; last.tag == "" {
				para[len(para)-1] = &hnode{text: strings.TrimRight(last.text, "\n")}
			}
			if !(len(para) == 1 && para[0].tag == "" && strings.TrimSpace(para[0].text) == "") {
				add(layInline(para, 0))
			}
			i = j
			continue
		}
		add(layBlock(nodes[i]))
		i++
	}
	return out
}

func layBlock(n *hnode) [][]fseg {
	switch n.tag {
	case "p":
		return layInline(n.children, 0)
	case "h1":
		return layInline(n.children, fH1)
	case "h2", "h3", "h4", "h5", "h6":
		return layInline(n.children, fH)
	case "hr":
		return [][]fseg{{{"───", fRule}}}
	case "pre":
		code := textOf(n)
		if code == "" {
			return nil
		}
		var out [][]fseg
		for _, l := range strings.Split(strings.TrimSuffix(code, "\n"), "\n") {
			if l = strings.TrimRight(l, " "); l == "" {
				out = append(out, nil)
			} else {
				out = append(out, []fseg{{"  ", 0}, {l, fPre}})
			}
		}
		return out
	case "blockquote":
		inner := layBlocks(n.children, false)
		if len(inner) == 0 {
			return [][]fseg{{{"│", fBar}}}
		}
		for i, l := range inner {
			if len(l) == 0 {
				inner[i] = []fseg{{"│", fBar}}
			} else {
				inner[i] = append([]fseg{{"│", fBar}, {" ", 0}}, l...)
			}
		}
		return inner
	case "ul", "ol":
		return layList(n)
	}
	return [][]fseg{{{"<" + n.tag + ">", fOther}}}
}

// layList: markers right-aligned to the widest, items' lines under their
// first; loose (a blank line between items) when any item holds a <p>.
func layList(n *hnode) [][]fseg {
	var items []*hnode
	loose := false
	for _, c := range n.children {
		if c.tag != "li" {
			continue
		}
		items = append(items, c)
		for _, cc := range c.children {
			loose = loose || cc.tag == "p"
		}
	}
	start := 1
	if s, ok := n.attrs["start"]; ok {
		start, _ = strconv.Atoi(s)
	}
	marks := make([]string, len(items))
	mw := 0
	for i := range items {
		marks[i] = "•"
		if n.tag == "ol" {
			marks[i] = strconv.Itoa(start+i) + "."
		}
		mw = max(mw, len([]rune(marks[i])))
	}
	var out [][]fseg
	for i, it := range items {
		if i > 0 && loose {
			out = append(out, nil)
		}
		head := []fseg{{strings.Repeat(" ", mw-len([]rune(marks[i]))), 0}, {marks[i], fMarker}}
		body := layBlocks(it.children, !loose)
		if len(body) == 0 {
			out = append(out, head)
			continue
		}
		for k, l := range body {
			switch {
			case k == 0:
				out = append(out, append(append(head, fseg{" ", 0}), l...))
			case len(l) == 0:
				out = append(out, nil)
			default:
				out = append(out, append([]fseg{{strings.Repeat(" ", mw+1), 0}}, l...))
			}
		}
	}
	return out
}

func textOf(n *hnode) string {
	if n.tag == "" {
		return n.text
	}
	var b strings.Builder
	for _, c := range n.children {
		b.WriteString(textOf(c))
	}
	return b.String()
}

// layInline lays out inline nodes: a soft break is a space, <br /> ends a
// line, a link shows its address after its text unless the text says it.
func layInline(nodes []*hnode, base int) [][]fseg {
	lines := [][]fseg{nil}
	afterBreak := false
	var walk func(ns []*hnode, f int)
	walk = func(ns []*hnode, f int) {
		for _, n := range ns {
			cur := &lines[len(lines)-1]
			switch n.tag {
			case "":
				t := n.text
				if afterBreak {
					t = strings.TrimLeft(t, "\n")
					afterBreak = false
				}
				if f&fCode == 0 {
					t = strings.ReplaceAll(t, "\n", " ")
				}
				*cur = append(*cur, fseg{t, f})
			case "br":
				lines = append(lines, nil)
				afterBreak = true
			case "em":
				walk(n.children, f|fEm)
			case "strong":
				walk(n.children, f|fStrong)
			case "code":
				walk(n.children, f|fCode)
			case "a", "img":
				var label, dest string
				if n.tag == "img" {
					label, dest = n.attrs["alt"], n.attrs["src"]
					if label != "" {
						*cur = append(*cur, fseg{label, f | fLink})
					}
				} else {
					// The label is the text shown, an image's address included.
					line, from := len(lines)-1, len(*cur)
					walk(n.children, f|fLink)
					cur = &lines[len(lines)-1]
					if len(lines)-1 == line {
						for _, s := range (*cur)[from:] {
							label += s.text
						}
					}
					dest = n.attrs["href"]
				}
				dest = decodeURL(dest)
				if dest != "" && dest != label && dest != "mailto:"+label {
					if label != "" {
						*cur = append(*cur, fseg{" ", f})
					}
					*cur = append(*cur, fseg{"(" + dest + ")", f | fURL})
				}
			default:
				*cur = append(*cur, fseg{"<" + n.tag + ">", fOther})
			}
		}
	}
	walk(nodes, base)
	// The renderer drops a paragraph's leading spaces, and an empty
	// heading or paragraph draws nothing.
	if len(lines) == 1 && len(lines[0]) == 0 {
		return nil
	}
	return lines
}
