package tui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/store"
)

// MailSource hands the chat its session's mail; internal/cli builds it
// over package mail. While the chat is on a session, it is that
// session's resident: mail to it is shown as it arrives and answered in
// a turn of its own once the chat is idle, or with the next prompt.
type MailSource interface {
	// Claim takes the session's waiting mail for the next turn. It fails
	// (store.ErrResident) when another process keeps the session open.
	Claim(ctx context.Context, sessionID string) ([]store.Mail, error)
	// Release queues again claims whose turn never started.
	Release(ctx context.Context, sessionID string, ms []store.Mail, why error)
	// Hold makes the chat the resident of a session it has just started.
	Hold(ctx context.Context, sessionID string) error
}

// mailArrivedMsg tells the UI a message is waiting for its session.
type mailArrivedMsg struct{ m store.Mail }

// Mail shows an arriving message in the chat, which answers it when idle.
func (b *Bridge) Mail(m store.Mail) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		b.push(mailArrivedMsg{m})
	}
}

// mailArrived shows a message and answers it now when the chat is idle,
// else after the running turn.
func (m *Model) mailArrived(x mailArrivedMsg) tea.Cmd {
	mm := x.m
	text := fmt.Sprintf("✉ m%d from %s is waiting: %s", mm.ID, senderName(mm), cutText(strings.Join(strings.Fields(mm.Body), " "), 100))
	if m.busy() {
		m.mailWaiting = true
		m.t.add(&noticeItem{text: text + " (answered after this turn)", style: m.rc.th.Accent})
		return nil
	}
	return m.startMailTurn()
}

// busy reports whether a turn, a command or a question holds the chat.
func (m *Model) busy() bool { return m.running || m.commanding || len(m.questions) > 0 }

// startMailTurn runs a turn that answers the waiting mail.
func (m *Model) startMailTurn() tea.Cmd {
	m.mailWaiting = false
	ctl := m.ctl
	return m.begin(func(ctx context.Context) tea.Msg {
		res, err := ctl.Run(ctx, "") // no prompt: the waiting mail
		return turnDoneMsg{res: res, err: err}
	})
}

// mailEvent shows a mail event of the current turn (or of a stored
// session being redrawn).
func (f *feed) mailEvent(e agent.Event) {
	mi, th := e.Mail, f.t.rc.th
	if mi == nil || mi.To != e.SessionID {
		return // this session's own sends show as tool calls
	}
	from := senderName(store.Mail{FromKind: store.SenderKind(mi.FromKind), From: mi.From})
	switch e.Type {
	case agent.EventMailDelivered:
		f.close()
		f.t.add(&noticeItem{text: fmt.Sprintf("✉ m%d from %s (not your words):\n%s", mi.ID, from, cutText(strings.TrimSpace(mi.Text), 600)), style: th.Accent})
	case agent.EventMailAnswered:
		f.t.add(&noticeItem{text: fmt.Sprintf("↩ the answer went to %s (m%d)", from, mi.ID), style: th.Dim})
	case agent.EventMailFailed:
		f.t.add(&noticeItem{text: fmt.Sprintf("✗ m%d from %s failed: %s", mi.ID, from, cutText(mi.Error, 200)), style: th.Error})
	}
}

func senderName(m store.Mail) string {
	switch m.FromKind {
	case store.FromUser:
		return "you (godwit send)"
	case store.FromProgram:
		return "program " + m.From
	}
	return "session " + m.From
}
