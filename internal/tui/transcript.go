package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// entry is an item in the transcript with its cached lines.
type entry struct {
	it  item
	gap bool // a blank line before the item

	version int // bumped whenever the item changes
	cw, cv  int // width and version the cache was made at
	cache   []string
}

// pos is a line of the transcript: entry index and line within it (the
// gap line, when there is one, is line 0).
type pos struct{ i, l int }

// transcript is the list of items and the view onto it. Rendering is
// virtual: only the entries on screen are rendered, each at most once per
// width and version, so its cost per frame does not grow with the session.
type transcript struct {
	rc      *renderCtx
	entries []*entry

	selected int // entry index of the selected item, -1 for none

	// The view: either following the end, or anchored at top.
	follow bool
	top    pos
	// first and last entries on screen at the last render.
	shownFirst, shownLast int
}

func newTranscript(rc *renderCtx) *transcript {
	return &transcript{rc: rc, selected: -1, follow: true}
}

// add appends an item and returns its entry.
func (t *transcript) add(it item) *entry {
	gap := false
	if n := len(t.entries); n > 0 {
		gap = !(it.compact() && t.entries[n-1].it.compact())
	}
	e := &entry{it: it, gap: gap, cv: -1}
	t.entries = append(t.entries, e)
	return e
}

// touch marks e as changed.
func (e *entry) touch() { e.version++ }

func (t *transcript) height(i, width int) int {
	e := t.entries[i]
	g := 0
	if e.gap {
		g = 1
	}
	if w, ok := e.it.(windowed); ok {
		return g + w.height(width)
	}
	return g + len(t.lines(e, width))
}

// lines returns e's rendered lines (without the gap), from the cache.
func (t *transcript) lines(e *entry, width int) []string {
	if e.cw != width || e.cv != e.version || e.cache == nil {
		e.cache = e.it.render(t.rc, width)
		if len(e.cache) == 0 {
			e.cache = []string{""}
		}
		e.cw, e.cv = width, e.version
	}
	return e.cache
}

// window returns lines [from, to) of entry i, the gap included.
func (t *transcript) window(i, width, from, to int) []string {
	e := t.entries[i]
	out := make([]string, 0, to-from)
	if e.gap {
		if from == 0 && to > 0 {
			out = append(out, "")
		}
		from, to = max(from-1, 0), to-1
	}
	if to <= from {
		return out
	}
	if w, ok := e.it.(windowed); ok {
		return append(out, w.window(t.rc, width, from, to)...)
	}
	return append(out, t.lines(e, width)[from:to]...)
}

// render returns exactly height lines of the view at width.
func (t *transcript) render(width, height int) []string {
	if height <= 0 {
		return nil
	}
	if t.follow {
		t.top = t.bottomTop(width, height)
	}
	out := make([]string, 0, height)
	t.shownFirst, t.shownLast = t.top.i, t.top.i
	for i, l := 0, t.top.l; i+t.top.i < len(t.entries) && len(out) < height; i, l = i+1, 0 {
		idx := t.top.i + i
		h := t.height(idx, width)
		to := min(h, l+height-len(out))
		lines := t.window(idx, width, l, to)
		if idx == t.selected {
			lines = t.markSelected(idx, lines, l)
		}
		out = append(out, lines...)
		t.shownLast = idx
	}
	if !t.follow && len(out) < height {
		// Scrolled past the end (the content shrank): follow it again.
		t.follow = true
		return t.render(width, height)
	}
	for len(out) < height {
		out = append(out, "")
	}
	return out
}

// markSelected highlights the first line of the selected item, when it is
// on screen.
func (t *transcript) markSelected(idx int, lines []string, from int) []string {
	first := 0
	if t.entries[idx].gap {
		first = 1
	}
	if k := first - from; k >= 0 && k < len(lines) {
		lines = append([]string(nil), lines...)
		// Unstyled, so the highlight covers the whole line.
		lines[k] = t.rc.th.Selected.Render(strings.TrimRight(ansi.Strip(lines[k]), " "))
	}
	return lines
}

// bottomTop is where the view starts when it shows the end.
func (t *transcript) bottomTop(width, height int) pos {
	need := height
	for i := len(t.entries) - 1; i >= 0; i-- {
		h := t.height(i, width)
		if h >= need {
			return pos{i, h - need}
		}
		need -= h
	}
	return pos{0, 0}
}

// scroll moves the view by n lines (negative: up).
func (t *transcript) scroll(n, width, height int) {
	if len(t.entries) == 0 {
		return
	}
	if t.follow {
		if n >= 0 {
			return
		}
		t.top = t.bottomTop(width, height)
		t.follow = false
	}
	p := t.top
	p.l += n
	for p.l < 0 && p.i > 0 {
		p.i--
		p.l += t.height(p.i, width)
	}
	if p.l < 0 {
		p.l = 0
	}
	for p.i < len(t.entries)-1 && p.l >= t.height(p.i, width) {
		p.l -= t.height(p.i, width)
		p.i++
	}
	t.top = p
	t.settle(width, height)
}

// settle switches to following when the view reaches the end.
func (t *transcript) settle(width, height int) {
	rest := -t.top.l
	for i := t.top.i; i < len(t.entries) && rest <= height; i++ {
		rest += t.height(i, width)
	}
	if rest <= height {
		t.follow = true
	}
}

// toEnd follows the end again.
func (t *transcript) toEnd() { t.follow = true }

// show scrolls so that entry i starts the view, unless it is on screen.
func (t *transcript) show(i, width, height int) {
	if i < 0 || i >= len(t.entries) {
		return
	}
	if i > t.shownFirst && i < t.shownLast {
		return
	}
	if i == t.shownFirst && !t.follow && t.top.l == 0 {
		return
	}
	t.top, t.follow = pos{i, 0}, false
	t.settle(width, height)
}

// selectNext moves the selection to the next (dir 1) or previous (dir -1)
// item that can be opened; from no selection it picks the last.
func (t *transcript) selectNext(dir int) bool {
	i := t.selected
	if i < 0 {
		i = len(t.entries)
		dir = -1
	}
	for i += dir; i >= 0 && i < len(t.entries); i += dir {
		if x, ok := t.entries[i].it.(expander); ok && x.expandable() {
			t.selected = i
			return true
		}
	}
	return false
}

// toggleSelected opens or closes the selected item, or the last one that
// can be opened when none is selected; it returns the entry toggled.
func (t *transcript) toggleSelected() *entry {
	if t.selected < 0 && !t.selectNext(-1) {
		return nil
	}
	e := t.entries[t.selected]
	x, ok := e.it.(expander)
	if !ok || !x.expandable() {
		return nil
	}
	x.toggle()
	e.touch()
	return e
}

// printed renders the whole transcript as it is shown, for the
// terminal's normal screen once the chat has left (and /export): the
// answers, one line per tool call, the questions' lines, the notices; not
// thinking or handoffs being written.
func (t *transcript) printed(width int) []string {
	var out []string
	prevCompact := false
	for _, e := range t.entries {
		var lines []string
		switch it := e.it.(type) {
		case *foldItem:
			continue
		case *toolItem:
			if it.isPlan {
				lines = it.planCard(t.rc, width)
			} else {
				// Without the marker that says it opens: it no longer does.
				_, rest, _ := strings.Cut(it.header(t.rc, width), " ")
				lines = []string{"  " + rest}
			}
		default:
			lines = t.lines(e, width)
		}
		if len(out) > 0 && !(prevCompact && e.it.compact()) {
			out = append(out, "")
		}
		prevCompact = e.it.compact()
		out = append(out, lines...)
	}
	for i, l := range out {
		out[i] = strings.TrimRight(l, " ")
	}
	return out
}
