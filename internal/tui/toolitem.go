package tui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/termsafe"
	"github.com/godwit/godwit/internal/tool/plan"
)

type toolState int

const (
	toolWaiting toolState = iota // approved, not started
	toolRunning
	toolDone
	toolFailed
	toolDenied
)

// toolItem is one tool call: a single line, and when opened its
// arguments, output, diff and changed files. The body can be huge, so it
// is windowed: only the lines on screen are styled and cut to width.
type toolItem struct {
	callID, name, summary, args string
	state                       toolState
	code                        string
	exit                        *int
	took                        time.Duration
	output, diff                string
	changed                     []string
	// total is the whole output's size when the event carried only its
	// start (the agent caps previews); full is set once the whole output
	// was loaded from the store.
	total    int
	full     bool
	loading  bool
	loadErr  string
	expanded bool

	// counted once per change, for the header: a 50,000-line output must
	// not be scanned every frame.
	nlines, added, removed int

	body     []string // raw body lines; nil when stale
	diffFrom int      // index in body where the diff starts (-1: none)

	// progress is what a running call last said of how far it has come
	// (an MCP server's progress notifications); total 0 is unknown.
	progress, progressTotal float64
	progressMsg             string
	hasProgress             bool
	// live is a running command's newest lines (tool.Progress.Output),
	// drawn under its line until it ends.
	live []string

	// steps is what a successful plan call set: the item is then drawn
	// as a checklist card, not as a call with JSON arguments.
	steps   []plan.Step
	isPlan  bool
	cleared bool // the call emptied the plan
}

// cutMark finds how the agent ends a cut text ("… [12345 bytes]") and
// returns where the mark starts and the whole size, or -1.
func cutMark(s string) (at, total int) {
	if !strings.HasSuffix(s, " bytes]") {
		return -1, 0
	}
	i := strings.LastIndex(s, "… [")
	if i < 0 {
		return -1, 0
	}
	n, err := strconv.Atoi(s[i+len("… [") : len(s)-len(" bytes]")])
	if err != nil {
		return -1, 0
	}
	return i, n
}

func (t *toolItem) compact() bool { return !t.isPlan }
func (t *toolItem) expandable() bool {
	return !t.isPlan && (t.output != "" || t.diff != "" || len(t.changed) > 0)
}
func (t *toolItem) toggle() { t.expanded = !t.expanded }

// needsFull reports whether opening the item should load the whole
// output from the store.
func (t *toolItem) needsFull() bool { return t.expanded && t.total > 0 && !t.full && !t.loading }

func (t *toolItem) started(info *agent.ToolInfo) {
	t.fill(info)
	if t.state < toolRunning {
		t.state = toolRunning
	}
}

func (t *toolItem) finished(info *agent.ToolInfo) {
	t.fill(info)
	t.took = time.Duration(info.DurationMS) * time.Millisecond
	t.code, t.exit, t.diff, t.changed = info.Code, info.ExitCode, info.Diff, info.Changed
	t.output, t.total = info.Output, 0
	if at, total := cutMark(t.output); at >= 0 {
		t.output, t.total = t.output[:at], total
	}
	switch {
	case info.Code == "DENIED":
		t.state = toolDenied
	case info.IsError:
		t.state = toolFailed
	default:
		t.state = toolDone
	}
	if t.name == plan.Name && t.state == toolDone {
		t.steps, t.cleared = parsePlan(t.output)
		t.isPlan = len(t.steps) > 0 || t.cleared
	}
	t.recount()
}

// setProgress records a running call's progress: a count, or a
// command's newest lines.
func (t *toolItem) setProgress(progress, total float64, msg, output string) {
	if t.state > toolRunning {
		return // a report that came after the end
	}
	if output != "" {
		t.live = strings.Split(clean(output), "\n")
		return
	}
	t.progress, t.progressTotal, t.progressMsg, t.hasProgress = progress, total, msg, true
}

// liveRows is how many rows the live lines take under the call's line.
func (t *toolItem) liveRows() int {
	if t.state != toolRunning {
		return 0
	}
	return len(t.live)
}

// progressText is "3/5 copying", "40% copying" or "3 copying".
func progressText(progress, total float64, msg string) string {
	var s string
	switch {
	case total > 0 && total == float64(int64(total)) && progress == float64(int64(progress)):
		s = fmt.Sprintf("%d/%d", int64(progress), int64(total))
	case total > 0:
		s = fmt.Sprintf("%.0f%%", 100*progress/total)
	default:
		s = strconv.FormatFloat(progress, 'f', -1, 64)
	}
	if msg != "" {
		s += " " + msg
	}
	return s
}

// parsePlan reads the plan tool's result (plan.Render: "[x] done",
// "[>] in progress", "[ ] pending" a line). A line of another shape
// (an older result) gives no steps, and the call is drawn as any other.
func parsePlan(out string) (steps []plan.Step, cleared bool) {
	out = strings.TrimSpace(out)
	if out == "plan cleared" {
		return nil, true
	}
	for _, l := range strings.Split(out, "\n") {
		if len(l) < 4 || l[0] != '[' || l[2] != ']' || l[3] != ' ' {
			return nil, false
		}
		st := plan.Step{Text: l[4:], Status: plan.Pending}
		switch l[1] {
		case 'x':
			st.Status = plan.Done
		case '>':
			st.Status = plan.InProgress
		case ' ':
		default:
			return nil, false
		}
		steps = append(steps, st)
	}
	return steps, false
}

// planCard draws a plan call as a checklist, the way Claude Code shows
// its to-do list: a head line with the count done, then a line a step.
func (t *toolItem) planCard(rc *renderCtx, width int) []string {
	if t.cleared {
		return []string{"  " + rc.th.Dim.Render(ansi.Truncate("☰ plan cleared", width-2, "…"))}
	}
	done := 0
	for _, s := range t.steps {
		if s.Status == plan.Done {
			done++
		}
	}
	head := fmt.Sprintf("☰ plan · %d of %d done", done, len(t.steps))
	lines := []string{"  " + rc.th.Accent.Render(ansi.Truncate(head, width-2, "…"))}
	for _, s := range t.steps {
		box, style := "☐", rc.th.Dim
		switch s.Status {
		case plan.Done:
			box, style = "☒", rc.th.Faint
		case plan.InProgress:
			box, style = "◐", rc.th.Accent
		}
		for i, l := range wrap(termsafe.Text(s.Text), width-8) {
			p := "    " + box + " "
			if i > 0 {
				p = "      "
			}
			lines = append(lines, p+style.Render(l))
		}
	}
	return lines
}

func (t *toolItem) recount() {
	t.nlines = countLines(t.output)
	if t.total > 0 && !t.full {
		t.nlines = 0 // unknown until loaded
	}
	t.added, t.removed = diffStat(t.diff)
	t.body = nil
}

// startLoading shows that the whole output is being loaded.
func (t *toolItem) startLoading() {
	t.loading, t.body = true, nil
}

// setFull replaces the preview with the whole output.
func (t *toolItem) setFull(out string, err error) {
	t.loading = false
	if err != nil {
		t.loadErr = err.Error()
	} else {
		t.output, t.full = out, true
	}
	t.recount()
}

func (t *toolItem) fill(info *agent.ToolInfo) {
	if info.Name != "" {
		t.name = info.Name
	}
	if info.Summary != "" {
		t.summary = info.Summary
	}
	if info.Args != "" {
		t.args = info.Args
	}
}

func (t *toolItem) header(rc *renderCtx, width int) string {
	icon, style := "◌", rc.th.Dim
	switch t.state {
	case toolRunning:
		icon = "⋯"
	case toolDone:
		icon, style = "✓", rc.th.OK
	case toolFailed:
		icon, style = "✗", rc.th.Error
	case toolDenied:
		icon, style = "⊘", rc.th.Warn
	}
	// The call as it ran, every character shown (termsafe.ExactLine): a
	// carriage return in a command must not draw over its own line.
	what := termsafe.ExactLine(t.summary)
	if what == "" {
		what = termsafe.ExactLine(oneLine(t.args, 200))
	}
	meta := []string{}
	if t.state == toolRunning {
		meta = append(meta, "running")
		if t.hasProgress {
			meta = append(meta, progressText(t.progress, t.progressTotal, termsafe.ExactLine(t.progressMsg)))
		}
	}
	if t.code != "" && t.state != toolDone {
		meta = append(meta, t.code)
	}
	if t.exit != nil {
		meta = append(meta, "exit "+strconv.Itoa(*t.exit))
	}
	if t.took > 0 || t.state == toolDone || t.state == toolFailed {
		meta = append(meta, duration(t.took))
	}
	if t.nlines > 1 {
		meta = append(meta, strconv.Itoa(t.nlines)+" lines")
	}
	if t.diff != "" {
		meta = append(meta, fmt.Sprintf("+%d −%d", t.added, t.removed))
	}
	m := " "
	if t.expandable() {
		m = marker(t.expanded)
	}
	head := m + " " + style.Render(icon) + " " + termsafe.ExactLine(t.name) + ": " + what
	if len(meta) > 0 {
		head += rc.th.Dim.Render(" · " + strings.Join(meta, " · "))
	}
	return ansi.Truncate(head, width, "…")
}

func (t *toolItem) buildBody() {
	if t.body != nil {
		return
	}
	body := []string{}
	if t.summary == "" && t.args != "" {
		body = append(body, "args: "+termsafe.ExactLine(oneLine(t.args, 500)))
	}
	if t.output != "" {
		// Sanitised whole, before the split: a lone CR ends a line.
		body = append(body, strings.Split(strings.TrimRight(clean(t.output), "\n"), "\n")...)
	}
	switch {
	case t.loading:
		body = append(body, fmt.Sprintf("… loading the whole output (%s bytes)", thousands(t.total)))
	case t.loadErr != "":
		body = append(body, "… the whole output could not be loaded: "+clean(t.loadErr))
	case t.total > 0 && !t.full:
		body = append(body, fmt.Sprintf("… the first %s of %s bytes", thousands(len(t.output)), thousands(t.total)))
	}
	if len(t.changed) > 0 {
		body = append(body, "changed: "+termsafe.ExactLine(strings.Join(t.changed, ", ")))
	}
	t.diffFrom = -1
	if t.diff != "" {
		t.diffFrom = len(body)
		body = append(body, strings.Split(strings.TrimRight(clean(t.diff), "\n"), "\n")...)
	}
	t.body = body
}

func (t *toolItem) height(width int) int {
	if t.isPlan {
		n := 1
		if !t.cleared {
			for _, st := range t.steps {
				n += len(wrap(termsafe.Text(st.Text), width-8))
			}
		}
		return n
	}
	if !t.expanded {
		return 1 + t.liveRows()
	}
	t.buildBody()
	return 1 + t.liveRows() + len(t.body)
}

func (t *toolItem) window(rc *renderCtx, width, from, to int) []string {
	if t.isPlan {
		return t.planCard(rc, width)[from:to]
	}
	out := make([]string, 0, to-from)
	if t.expanded {
		t.buildBody()
	}
	live := t.liveRows()
	for i := from; i < to; i++ {
		if i == 0 {
			out = append(out, t.header(rc, width))
			continue
		}
		if i <= live {
			out = append(out, rc.ink.gutter+rc.ink.dim.paint(ansi.Truncate(t.live[i-1], width-4, "…")))
			continue
		}
		l := t.body[i-1-live]
		k := rc.ink.dim
		switch {
		case t.diffFrom >= 0 && i-1 >= t.diffFrom:
			k = rc.diffInk(l)
		case t.state == toolFailed || t.state == toolDenied:
			k = rc.ink.err
		}
		out = append(out, rc.ink.gutter+k.paint(ansi.Truncate(l, width-4, "…")))
	}
	return out
}

func (t *toolItem) render(rc *renderCtx, width int) []string {
	return t.window(rc, width, 0, t.height(width))
}

// diffStat counts added and removed lines of a unified diff.
func diffStat(d string) (add, del int) {
	for _, l := range strings.Split(d, "\n") {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "+"):
			add++
		case strings.HasPrefix(l, "-"):
			del++
		}
	}
	return add, del
}
