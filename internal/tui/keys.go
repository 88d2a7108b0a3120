package tui

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/godwit/godwit/internal/policy"
)

// doubleCtrlC is how soon a second Ctrl-C must follow the first to leave.
const doubleCtrlC = 2 * time.Second

// answerDelay is how long a question must have been on the screen, and
// the keys quiet, before y or a answers it (policy.AnswerDelay): a key
// typed in a run of keys was meant for the input. drawnGuard says when
// the question is on the screen.
const answerDelay = policy.AnswerDelay

// cancellingHint shows while a cancelled turn winds down; turnDone
// clears it.
const cancellingHint = "cancelling the turn…"

func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	prevHint := m.hint
	m.hint = ""
	now := m.now()
	quiet := now.Sub(m.askedAt) >= answerDelay && now.Sub(m.lastKey) >= answerDelay
	m.lastKey = now
	if s != "esc" {
		m.escs = 0
	}

	if s == "ctrl+c" {
		return m.ctrlC(prevHint)
	}
	if prevHint == cancellingHint && m.running {
		m.hint = prevHint // until the turn has ended
	}
	m.lastCtrlC = time.Time{}
	if m.menu != nil && !m.asking() {
		if cmd, ok := m.menuKey(s); ok {
			return cmd
		}
	}

	// Keys that work whatever the state: scrolling and the selection.
	th := m.transcriptHeight()
	switch s {
	case "pgup":
		m.t.scroll(-max(th-2, 1), m.width, th)
		return nil
	case "pgdown":
		m.t.scroll(max(th-2, 1), m.width, th)
		return nil
	case "alt+up", "ctrl+p":
		if m.t.selectNext(-1) {
			m.t.show(m.t.selected, m.width, th)
		}
		return nil
	case "alt+down", "ctrl+n":
		if m.t.selectNext(1) {
			m.t.show(m.t.selected, m.width, th)
		}
		return nil
	case "ctrl+o":
		return m.toggle()
	case "shift+tab":
		// As in Claude Code: Shift-Tab cycles the mode, even while a
		// question waits (the answer still comes from y, n or a).
		text, err := m.ctl.CycleMode()
		if err != nil {
			m.hint = strings.TrimPrefix(err.Error(), "tui: ")
			return nil
		}
		m.feed.close()
		m.t.add(&noticeItem{text: text, style: m.rc.th.Accent})
		m.t.toEnd()
		return nil
	}

	if len(m.questions) > 0 && (m.asking() || s == "esc") {
		return m.answerKey(s, quiet)
	}
	var probe tea.Cmd
	if len(m.questions) > 0 {
		// The question is not on the screen yet for the terminal: the
		// key was typed before it, for the input.
		probe = m.guard.retry(now)
	}

	switch s {
	case "enter":
		return m.submit()
	case "esc":
		return m.esc()
	case "ctrl+d":
		if m.input.Value() == "" && !m.running {
			return m.quit()
		}
	case "up":
		if m.input.Line() == 0 && m.browse(-1) {
			return nil
		}
	case "down":
		if m.input.Line() == m.input.LineCount()-1 && m.browse(1) {
			return nil
		}
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	m.refreshMenu()
	return tea.Batch(probe, cmd)
}

// answerKey answers the question on the screen: a yes counts once the
// question has been drawn for answerDelay and the keys have been quiet as
// long (a y in a run of keys was typed for the input).
func (m *Model) answerKey(s string, quiet bool) tea.Cmd {
	q := m.questions[0].it.(*approvalItem).q
	switch s = strings.ToLower(s); {
	case s == "n" || s == "esc":
		m.answer(policy.No)
	case s != "y" && s != "a" && (s != "s" || !q.ReadOnly):
		m.hint = "answer the question first: y yes, n no, a always"
		if q.ReadOnly {
			m.hint = "answer the question first: y allow once, s switch to ask mode, n no"
		}
	case !quiet:
		m.hint = "read the question, then answer: y counts after half a second without keys; n refuses at once"
	case s == "y":
		m.answer(policy.Yes)
	case s == "a":
		m.answer(policy.Always)
	default: // s, on a question read-only mode refused
		m.switchMode(policy.Ask)
		m.answer(policy.Yes)
	}
	return nil
}

// switchMode switches the approval mode and says so in the transcript.
func (m *Model) switchMode(to policy.Mode) {
	from, _ := m.ctl.Mode()
	if err := m.ctl.SetMode(to); err != nil {
		m.hint = strings.TrimPrefix(err.Error(), "tui: ")
		return
	}
	m.feed.close()
	m.t.add(&noticeItem{text: m.ctl.modeText(from, to), style: m.rc.th.Accent})
}

// esc cancels the running turn, as Ctrl-C does; a second Esc in a row
// clears the input. Either way the view goes back to the end.
func (m *Model) esc() tea.Cmd {
	m.escs++
	m.t.selected = -1
	m.t.toEnd()
	switch {
	case m.running && !m.cancelling:
		m.cancelling = true
		m.cancel()
		m.hint = cancellingHint
	case m.escs >= 2:
		m.input.Reset()
		m.histIdx, m.escs = len(m.history), 0
	case m.input.Value() != "":
		m.hint = "Esc again clears the input"
	}
	return nil
}

// ctrlC cancels the running turn; when idle, a first press clears the
// input and a second within doubleCtrlC leaves.
func (m *Model) ctrlC(prevHint string) tea.Cmd {
	now := m.now()
	if m.running {
		if !m.cancelling {
			m.cancelling = true
			m.cancel()
		}
		m.hint = cancellingHint
		return nil
	}
	if !m.lastCtrlC.IsZero() && now.Sub(m.lastCtrlC) <= doubleCtrlC {
		return m.quit()
	}
	m.lastCtrlC = now
	m.input.Reset()
	m.histIdx = len(m.history)
	m.hint = "press Ctrl-C again to leave"
	return nil
}

// browse steps through the input history; it reports whether it moved.
func (m *Model) browse(dir int) bool {
	i := m.histIdx + dir
	if i < 0 || i > len(m.history) || len(m.history) == 0 {
		return false
	}
	if m.histIdx == len(m.history) {
		m.draft = m.input.Value()
	}
	m.histIdx = i
	if i == len(m.history) {
		m.input.SetValue(m.draft)
	} else {
		m.input.SetValue(m.history[i])
	}
	// As in a shell: the cursor ends up at the end of the recalled line.
	m.input.MoveToEnd()
	return true
}

// toggle opens or closes the selected item (an open approval question
// first); opening a tool call whose output was cut loads all of it.
func (m *Model) toggle() tea.Cmd {
	if len(m.questions) > 0 {
		en := m.questions[0]
		if a := en.it.(*approvalItem); a.expandable() {
			a.toggle()
			en.touch()
		}
		return nil
	}
	en := m.t.toggleSelected()
	if en == nil {
		return nil
	}
	m.t.show(m.t.selected, m.width, m.transcriptHeight())
	ti, ok := en.it.(*toolItem)
	if !ok || !ti.needsFull() {
		return nil
	}
	ti.startLoading()
	en.touch()
	ctx, ctl, id := m.ctx, m.ctl, ti.callID
	return func() tea.Msg {
		out, err := ctl.ToolOutput(ctx, id)
		return fullOutputMsg{callID: id, out: out, err: err}
	}
}
