package tui

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/godwit/godwit/internal/policy"
	"github.com/godwit/godwit/internal/termsafe"
)

// An item is one block of the transcript. Small items render all their
// lines at once (the transcript caches them per width and version); an
// item whose body can be huge (a tool's output) is windowed instead: it
// says its height and renders only the lines asked for.
type item interface {
	// render returns the item's lines at width.
	render(rc *renderCtx, width int) []string
	// compact items (tool calls, thinking) stack without blank lines.
	compact() bool
}

// windowed is an item that renders only a window of its lines.
type windowed interface {
	item
	height(width int) int
	window(rc *renderCtx, width, from, to int) []string
}

// expander is an item that can be opened and closed.
type expander interface {
	expandable() bool
	toggle()
}

// renderCtx is what items render with.
type renderCtx struct {
	th  Theme
	ink inks
	md  *markdown
}

const gutter = 2 // columns left of every item's text

// --- user message

type userItem struct{ text string }

func (u *userItem) compact() bool { return false }

func (u *userItem) render(rc *renderCtx, width int) []string {
	lines := wrap(termsafe.Text(u.text), width-gutter)
	for i := range lines {
		p := "  "
		if i == 0 {
			p = rc.th.User.Render("›") + " "
		}
		lines[i] = p + rc.th.User.Render(lines[i])
	}
	return lines
}

// --- assistant text, streamed

type assistantItem struct {
	text      []byte
	done      bool
	discarded bool

	// While streaming, complete markdown blocks are rendered once and
	// kept; only the unfinished tail is wrapped as plain text each frame.
	sw     int      // width the stable lines were rendered at
	cut    int      // bytes of text rendered into stable
	stable []string // rendered blocks
}

func (a *assistantItem) compact() bool { return false }

func (a *assistantItem) render(rc *renderCtx, width int) []string {
	w := width - gutter
	var body []string
	switch {
	case a.discarded:
		body = wrap(termsafe.Text(string(a.text)), w)
		for i := range body {
			body[i] = rc.th.Faint.Render(body[i])
		}
		body = append(body, rc.th.Warn.Render("(discarded: the answer is being retried)"))
	case a.done:
		body = rc.md.render(string(a.text), w)
	default:
		return a.streaming(rc, width)
	}
	return indent(rc, body, 0)
}

// maxTail is how much of an answer's unfinished block is drawn while it
// streams.
const maxTail = 64 << 10

// streaming renders an answer still arriving: the complete blocks once
// (kept, gutter included), the tail as plain text each frame.
func (a *assistantItem) streaming(rc *renderCtx, width int) []string {
	w := width - gutter
	if a.sw != w {
		a.sw, a.cut, a.stable = w, 0, nil
	}
	if c := stableCut(a.text, a.cut); c > a.cut {
		// A block may render to nothing (an empty code block): then it
		// needs no separator either.
		if block := rc.md.render(string(a.text[a.cut:c]), w); len(block) > 0 {
			if len(a.stable) > 0 {
				block = append([]string{""}, block...)
			}
			a.stable = append(a.stable, indent(rc, block, len(a.stable))...)
		}
		a.cut = c
	}
	var tail []string
	raw, skipped := a.text[a.cut:], 0
	if len(raw) > maxTail {
		// An unfinished block is wrapped again every frame: past maxTail,
		// only its end is (a 4 MB line cost 170 ms a frame).
		skipped = len(raw) - maxTail
		for skipped < len(raw) && raw[skipped]&0xc0 == 0x80 {
			skipped++
		}
		raw = raw[skipped:]
	}
	if t := strings.TrimSpace(termsafe.Text(string(raw))); t != "" {
		if skipped > 0 {
			t = fmt.Sprintf("[… %s bytes above, shown when the answer ends]\n", thousands(skipped)) + t
		}
		tail = wrap(t, w)
		if len(a.stable) > 0 {
			tail = append([]string{""}, tail...)
		}
	}
	out := make([]string, 0, len(a.stable)+len(tail)+1)
	out = append(out, a.stable...)
	out = append(out, indent(rc, tail, len(a.stable))...)
	if len(out) == 0 {
		out = indent(rc, []string{""}, 0)
	}
	return out
}

// indent puts the answer's gutter before lines that start at line n of
// the answer: a bullet on its first line, blanks after.
func indent(rc *renderCtx, lines []string, n int) []string {
	if len(lines) == 0 && n == 0 {
		lines = []string{""}
	}
	for i := range lines {
		p := "  "
		if n+i == 0 {
			p = rc.th.Accent.Render("●") + " "
		}
		lines[i] = p + lines[i]
	}
	return lines
}

// stableCut returns the end of the last complete markdown block of text
// at or after from: the end of a blank line outside a code fence. from
// must itself be such a point (or 0).
func stableCut(text []byte, from int) int {
	cut := from
	var fence string // the open fence's run of ` or ~, as the renderer closes it
	for pos := from; pos < len(text); {
		nl := bytes.IndexByte(text[pos:], '\n')
		if nl < 0 {
			break // an unfinished line
		}
		line := strings.TrimSpace(string(text[pos : pos+nl]))
		pos += nl + 1
		switch {
		case fence != "":
			// Only a run as long, of the same mark, alone, closes it.
			if strings.HasPrefix(line, fence) && strings.Trim(line, fence[:1]) == "" {
				fence = ""
			}
		case strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~"):
			fence = line[:len(line)-len(strings.TrimLeft(line, line[:1]))]
		case line == "":
			cut = pos
		}
	}
	return cut
}

// --- thinking, and handoffs being written: folded

type foldItem struct {
	label    string // "thinking", "handoff"
	text     strings.Builder
	done     bool
	expanded bool
}

func (f *foldItem) compact() bool    { return true }
func (f *foldItem) expandable() bool { return f.text.Len() > 0 }
func (f *foldItem) toggle()          { f.expanded = !f.expanded }

func (f *foldItem) render(rc *renderCtx, width int) []string {
	words := len(strings.Fields(f.text.String()))
	verb := f.label
	if !f.done {
		verb += "…"
	}
	head := fmt.Sprintf("%s ✻ %s · %d words", marker(f.expanded), verb, words)
	lines := []string{rc.th.Dim.Render(ansi.Truncate(head, width, "…"))}
	if f.expanded {
		for _, l := range wrap(termsafe.Text(f.text.String()), width-4) {
			lines = append(lines, rc.th.Dim.Render("  │ ")+rc.th.Faint.Render(l))
		}
	}
	return lines
}

func marker(open bool) string {
	if open {
		return "▾"
	}
	return "▸"
}

// --- notices: resets, compactions, verify, nudges, retries, command replies

type noticeItem struct {
	text  string
	style lipgloss.Style
	// table keeps lines as they are (cut, not wrapped): command replies.
	table bool
}

func (n *noticeItem) compact() bool { return false }

func (n *noticeItem) render(rc *renderCtx, width int) []string {
	var lines []string
	text := termsafe.Text(n.text) // mail, errors, session titles: not all godwit's words
	if n.table {
		for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
			lines = append(lines, ansi.Truncate(strings.ReplaceAll(l, "\t", "    "), width-gutter, "…"))
		}
	} else {
		lines = wrap(text, width-gutter)
	}
	for i := range lines {
		lines[i] = "  " + n.style.Render(lines[i])
	}
	return lines
}

// --- the end of a turn

type turnItem struct {
	status string
	err    string
	steps  int
	in     int64
	out    int64
	cost   float64
	took   time.Duration
}

func (t *turnItem) compact() bool { return false }

func (t *turnItem) render(rc *renderCtx, width int) []string {
	style, head := rc.th.Dim, "done"
	switch t.status {
	case "cancelled":
		style, head = rc.th.Warn, "cancelled"
	case "failed":
		style, head = rc.th.Error, "failed"
	}
	parts := []string{head}
	if t.took > 0 {
		parts = append(parts, duration(t.took))
	}
	steps := fmt.Sprintf("%d steps", t.steps)
	if t.steps == 1 {
		steps = "1 step"
	}
	parts = append(parts, steps, "in "+short(t.in), "out "+short(t.out), money(t.cost))
	line := "  " + style.Render(ansi.Truncate("─ "+strings.Join(parts, " · "), width-gutter, "…"))
	lines := []string{line}
	if t.err != "" {
		for _, l := range wrap(termsafe.Text(t.err), width-4) {
			lines = append(lines, "    "+rc.th.Error.Render(l))
		}
	}
	return lines
}

// --- an approval question, inline

type approvalItem struct {
	id       int
	q        policy.Question
	reply    chan policy.Answer
	answered bool
	answer   policy.Choice
	gone     bool // the turn was cancelled before an answer
	armed    bool // keys answer it (drawnGuard): its keys are shown
	expanded bool
	rows     int // the preview's rows at the last width drawn
}

// previewLines is how many rows of a preview a pending question shows
// before Ctrl-O opens it all.
const previewLines = 16

func (a *approvalItem) compact() bool    { return true }
func (a *approvalItem) expandable() bool { return !a.answered && a.rows > previewLines }
func (a *approvalItem) toggle()          { a.expanded = !a.expanded }

// render draws the question so that the person reads every character of
// the call: the tool, the summary, the preview (the full command), the
// reasons and what "always" allows are written with termsafe.Exact (a
// control, an escape, a bidi override or a zero-width character shows as
// a mark) and wrapped, never cut at the screen's edge, so no tail of a
// long command hides past it. Only rows past previewLines wait for
// Ctrl-O, and the question says how many.
func (a *approvalItem) render(rc *renderCtx, width int) []string {
	tool, summary := termsafe.ExactLine(a.q.Tool), termsafe.ExactLine(a.q.Summary)
	always := termsafe.ExactLine(strings.Join(a.q.Always, "; "))
	what := tool + ": " + summary
	switch {
	case a.gone:
		return []string{rc.th.Dim.Render(ansi.Truncate("⊘ not answered (the turn ended): "+what, width, "…"))}
	case a.answered && a.answer == policy.No:
		return []string{rc.th.Warn.Render(ansi.Truncate("⊘ you refused "+what, width, "…"))}
	case a.answered && a.answer == policy.Always:
		return []string{rc.th.OK.Render(ansi.Truncate("✓ you allowed always: "+always, width, "…"))}
	case a.answered:
		return []string{rc.th.OK.Render(ansi.Truncate("✓ you allowed "+what, width, "…"))}
	}
	lines := hang(rc.th.Approval, "? "+tool+" wants to "+summary, width-gutter, "", "  ")
	a.rows = 0
	if p := strings.TrimRight(a.q.Preview, "\n"); p != "" {
		isDiff := looksLikeDiff(p)
		var rows []string
		var styles []ink
		for _, l := range strings.Split(termsafe.Exact(p), "\n") {
			style := rc.ink.dim
			if isDiff {
				style = rc.diffInk(l)
			}
			for _, r := range wrap(l, width-4) {
				rows, styles = append(rows, r), append(styles, style)
			}
		}
		a.rows = len(rows)
		more := 0
		if !a.expanded && len(rows) > previewLines {
			more, rows = len(rows)-previewLines, rows[:previewLines]
		}
		for i, r := range rows {
			lines = append(lines, rc.ink.gutter+styles[i].paint(r))
		}
		if more > 0 {
			lines = append(lines, rc.th.Warn.Render(fmt.Sprintf("  │ ⚠ %d more lines not shown: Ctrl-O shows them", more)))
		}
	}
	for _, r := range a.q.Reasons {
		lines = append(lines, hang(rc.th.Dim, "· "+termsafe.ExactLine(r), width-4, "  ", "    ")...)
	}
	ask := "  Allow? y yes · n no"
	switch {
	case a.q.ReadOnly:
		ask = "  Read-only mode: y allow once · s switch to ask mode and allow · n no"
	case len(a.q.Always) > 0:
		lines = append(lines, hang(rc.th.Dim, "a always allows, for this session: "+always, width-4, "  ", "  ")...)
		ask += " · a always"
	}
	if !a.armed {
		return lines // the keys show once they answer
	}
	return append(lines, hang(rc.th.Approval, strings.TrimSpace(ask), width-gutter, "  ", "    ")...)
}

// hang wraps text to width and styles each line with its indent: first
// before the first line, rest before the others.
func hang(style lipgloss.Style, text string, width int, first, rest string) []string {
	lines := wrap(text, width)
	for i, l := range lines {
		if i > 0 {
			first = rest
		}
		lines[i] = style.Render(first + l)
	}
	return lines
}

// looksLikeDiff: a unified diff starts with its file names or a hunk.
func looksLikeDiff(s string) bool {
	return strings.HasPrefix(s, "--- ") || strings.HasPrefix(s, "@@") || strings.Contains(s, "\n@@ ")
}
