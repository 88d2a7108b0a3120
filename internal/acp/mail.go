package acp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/store"
)

// Mailbox is a stored session's mail, as Options.OpenMail opens it
// (internal/cli opens package mail's Box): while the editor has the
// session open it is the session's resident.
type Mailbox interface {
	// Claim takes the waiting mail for a turn.
	Claim(ctx context.Context) ([]store.Mail, error)
	// Release queues again claims whose turn never started.
	Release(ctx context.Context, ms []store.Mail, why error)
	// Wait blocks until mail may be waiting.
	Wait(ctx context.Context) error
	Close() error
}

// startMail answers the session's mail between prompts, once the session
// is stored; each message shows in the editor as a user message marked
// with its sender, then the turn streams as any other.
func (s *session) startMail() {
	open := s.srv.opts.OpenMail
	if open == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mailStop != nil || s.closed {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	s.mailStop = func() { cancel(); <-done }
	go func() {
		defer close(done)
		box, err := open(ctx, s.eng.Store, s.id)
		if err != nil {
			s.srv.log.Warn("acp: this session's mail is not answered here", "session", s.id, "err", err)
			return
		}
		defer box.Close()
		for ctx.Err() == nil {
			if err := box.Wait(ctx); err != nil {
				return
			}
			s.answerMail(ctx, box)
		}
	}()
}

// answerMail runs one turn of the waiting mail, after the running prompt.
func (s *session) answerMail(ctx context.Context, box Mailbox) {
	s.turn.Lock()
	defer s.turn.Unlock()
	if ctx.Err() != nil {
		return
	}
	ms, err := box.Claim(ctx)
	if err != nil || len(ms) == 0 {
		return
	}
	turnCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.mu.Lock()
	s.cancel = cancel
	s.mu.Unlock()
	defer s.endTurn()
	for _, m := range ms {
		s.srv.notify(s.id, sdk.UpdateUserMessageText(fmt.Sprintf("✉ m%d from %s (not your words):\n%s", m.ID, sender(m), strings.TrimSpace(m.Body))))
	}
	res, err := s.eng.Runtime.Run(turnCtx, agent.RunInput{SessionID: s.id, Mail: ms, Sink: s})
	if res.Turn == 0 {
		box.Release(ctx, ms, err)
	}
}

// stopMail ends the mail loop and waits for it.
func (s *session) stopMail() {
	s.mu.Lock()
	stop := s.mailStop
	s.mailStop = nil
	s.mu.Unlock()
	if stop != nil {
		stop()
	}
}

func sender(m store.Mail) string {
	switch m.FromKind {
	case store.FromUser:
		return "the user, by godwit send"
	case store.FromProgram:
		return "program " + m.From
	}
	return "session " + m.From
}
