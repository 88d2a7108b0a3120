package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/godwit/godwit/internal/termsafe"
)

// View implements tea.Model.
func (m *Model) View() tea.View {
	content, inputRow := m.render()
	// Every item sanitises what it did not write; this is the wall behind
	// them: only the frame's own styling (SGR) reaches the terminal.
	v := tea.NewView(termsafe.Styled(content))
	v.AltScreen = true
	// No mouse capture: the terminal selects text as it does anywhere,
	// without Shift. PgUp and PgDn scroll.
	v.WindowTitle = "godwit"
	if c := m.input.Cursor(); c != nil && !m.asking() {
		c.Y += inputRow
		v.Cursor = c
	}
	return v
}

// render lays out the screen: transcript, status line, hint, input. It
// returns the text and the row the input starts at.
func (m *Model) render() (string, int) {
	lines := m.t.render(m.width, m.transcriptHeight())
	lines = append(lines, m.menuLines()...)
	lines = append(lines, m.queuedLines()...)
	lines = append(lines, m.statusLine())
	if h := m.hintLine(); h != "" {
		lines = append(lines, h)
	}
	row := len(lines)
	lines = append(lines, m.inputView())
	return strings.Join(lines, "\n"), row
}

// transcriptHeight is what is left for the transcript.
func (m *Model) transcriptHeight() int {
	h := m.height - 1 - m.inputHeight() - len(m.queuedLines()) - len(m.menuLines())
	if m.hintLine() != "" {
		h--
	}
	return max(h, 1)
}

func (m *Model) inputHeight() int {
	if m.asking() {
		return 1
	}
	m.fitInput()
	return m.input.Height()
}

// inputRows is the most rows the input takes; a longer text scrolls in it.
const inputRows = 8

// fitInput caps the input's height at inputRows. The textarea grows with
// its text up to its MaxHeight, which is kept high (see newInput), so the
// cap is applied here, before each frame.
func (m *Model) fitInput() {
	if m.input.Height() > inputRows {
		m.input.SetHeight(inputRows)
	}
}

func (m *Model) inputView() string {
	if m.asking() {
		keys := "y yes · n no · a always"
		if m.questions[0].it.(*approvalItem).q.ReadOnly {
			keys = "y allow once · s switch to ask mode · n no"
		}
		return m.rc.th.Approval.Render("  waiting for your answer above: " + keys)
	}
	m.fitInput()
	// The textarea's view costs more than the rest of the frame; it
	// changes only with what is typed, the cursor and the size.
	k := inputKey{m.input.Value(), m.input.Line(), m.input.Column(), m.input.Width(), m.input.Height(), m.input.ScrollYOffset()}
	if k != m.inputKey || m.inputCache == "" {
		m.inputKey, m.inputCache = k, m.input.View()
	}
	return m.inputCache
}

type inputKey struct {
	value                             string
	line, col, width, height, scrollY int
}

// queuedLines show the messages sent during the turn, waiting for its
// end (at most three, then a count).
func (m *Model) queuedLines() []string {
	var out []string
	for i, q := range m.queued {
		if i == 3 {
			out = append(out, m.rc.th.Dim.Render(fmt.Sprintf("  ⧗ and %d more", len(m.queued)-3)))
			break
		}
		out = append(out, m.rc.th.Dim.Render(ansi.Truncate("  ⧗ queued: "+termsafe.ExactLine(oneLine(q, 200)), m.width, "…")))
	}
	if len(out) > 0 {
		out[len(out)-1] += m.rc.th.Dim.Render(" · sent when the turn ends")
		out[len(out)-1] = ansi.Truncate(out[len(out)-1], m.width, "…")
	}
	return out
}

func (m *Model) hintLine() string {
	if m.hint == "" {
		return ""
	}
	return m.rc.th.Warn.Render(ansi.Truncate("  "+termsafe.ExactLine(m.hint), m.width, "…"))
}

// activity is the right end of the status line: what godwit is doing.
func (m *Model) activity() string {
	var right string
	switch {
	case len(m.questions) > 0:
		right = "approval needed "
	case m.cancelling:
		right = "cancelling… "
	case m.running:
		right = fmt.Sprintf("working %s · Esc cancels ", elapsed(m.now().Sub(m.turnStart)))
	case m.commanding:
		right = "running the command… "
	default:
		right = "/help "
	}
	if !m.t.follow {
		right = "scrolled · Esc to the end · " + right
	}
	return right
}

// statusLine shows the model, the approval mode, the context used, the
// segment, the cost, the cache hits and what godwit is doing.
func (m *Model) statusLine() string {
	s, right := m.ctl.Status(), m.activity()
	parts := []string{s.Model}
	if s.Mode != "" {
		parts = append(parts, s.Mode)
	}
	ctx := "ctx " + short(int64(s.ContextTokens))
	if s.ContextTokens == 0 {
		ctx = "ctx –"
	}
	if s.ContextWindow > 0 {
		ctx += "/" + short(int64(s.ContextWindow))
		if s.ContextTokens > 0 {
			ctx += " " + percent(float64(s.ContextTokens)/float64(s.ContextWindow))
		}
	}
	if s.Estimated {
		ctx += " (est.)" // 4 bytes a token, until the tokenizer has loaded
	}
	parts = append(parts, ctx)
	if s.Segment > 0 {
		parts = append(parts, fmt.Sprintf("seg %d", s.Segment))
	}
	if s.ResetPending { // before the figures: a narrow line cuts those first
		parts = append(parts, "reset pending")
	}
	parts = append(parts, money(s.Cost))
	if s.Usage.InputTokens > 0 {
		parts = append(parts, "cache "+percent(float64(s.Usage.CacheReadTokens)/float64(s.Usage.InputTokens)))
	}
	left := " " + strings.Join(parts, " · ")
	gap := m.width - ansi.StringWidth(left) - ansi.StringWidth(right)
	if gap < 1 {
		left = ansi.Truncate(left, max(m.width-ansi.StringWidth(right)-1, 0), "…")
		gap = max(m.width-ansi.StringWidth(left)-ansi.StringWidth(right), 0)
	}
	line := ansi.Truncate(left+strings.Repeat(" ", gap)+right, m.width, "")
	return m.rc.th.Status.Render(line)
}
