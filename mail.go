package godwit

import (
	"context"
	"fmt"
	"iter"
	"time"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/mail"
	"github.com/godwit/godwit/internal/store"
)

// Mail between sessions and programs, over the Agent's database: any
// process that opens the same Home can send to a session, and the
// session's resident (`godwit serve`, a chat, an editor, Session.Serve)
// answers in its own turn.
type (
	// Message is a message to a session, as the database keeps it.
	Message = store.Mail
	// Receipt is one state change of a Message.
	Receipt = store.Receipt
)

// Message states.
const (
	MailQueued    = store.MailQueued
	MailDelivered = store.MailDelivered
	MailAnswered  = store.MailAnswered
	MailFailed    = store.MailFailed
	MailExpired   = store.MailExpired
)

// SendOptions configure Agent.Send.
type SendOptions struct {
	// From names the sending program; "" sends as the user.
	From string
	// Wait returns only once the message is answered (or fails, or
	// expires: then with an error saying why).
	Wait bool
	// Timeout bounds Wait; a message still queued then expires, so it
	// never runs after nobody waits for it.
	Timeout time.Duration
}

// Send queues text for session to (an id, a unique prefix, or "last")
// and returns the message. When a failure of the same sender holds it
// back, the message is queued and the error says which failure to
// acknowledge (with Wait, at once).
func (a *Agent) Send(ctx context.Context, to, text string, opts SendOptions) (Message, error) {
	from := mail.User()
	if opts.From != "" {
		from = mail.Program(opts.From)
	}
	st := a.env.Store
	p, err := mail.Post(ctx, st, from, to, text)
	if err != nil {
		return Message{}, fmt.Errorf("godwit: %w", err)
	}
	if !opts.Wait {
		return p.Mail, nil
	}
	m, err := mail.Await(ctx, st, p.Mail.ID, mail.AwaitOptions{Timeout: opts.Timeout, Expire: true})
	if err != nil {
		return m, fmt.Errorf("godwit: %w", err)
	}
	return m, nil
}

// Receipts yields message id's receipts as they are written, until the
// message is answered, failed or expired, or ctx ends (then the last
// pair carries ctx's error). A claim whose process died is recovered
// meanwhile, so the follower hears of it.
func (a *Agent) Receipts(ctx context.Context, id int64) iter.Seq2[Receipt, error] {
	return mail.Follow(ctx, a.env.Store, id, mail.FollowOptions{})
}

// Acknowledge releases the messages held behind the failure of message
// id (the failure barrier).
func (a *Agent) Acknowledge(ctx context.Context, id int64) (Message, error) {
	m, err := mail.Ack(ctx, a.env.Store, id, "user")
	if err != nil {
		return m, fmt.Errorf("godwit: %w", err)
	}
	return m, nil
}

// Serve makes the session resident in this process until ctx ends: it
// answers the session's mail, what arrives during a turn together in the
// next, with onEvent receiving the turns' events. A new session is stored
// first (ID names it). It fails when another process keeps the session
// open.
func (s *Session) Serve(ctx context.Context, onEvent func(Event)) error {
	st := s.a.env.Store
	id := s.ID()
	if id == "" {
		created, err := mail.NewSession(ctx, st, s.a.env.Workspace, s.a.env.Model)
		if err != nil {
			return fmt.Errorf("godwit: %w", err)
		}
		s.setID(created)
		id = s.ID()
	}
	box, err := mail.Open(ctx, st, id, mail.Options{Command: "sdk"})
	if err != nil {
		return fmt.Errorf("godwit: %w", err)
	}
	defer box.Close()
	run := func(ctx context.Context, ms []store.Mail) (Result, error) {
		s.turn.Lock()
		defer s.turn.Unlock()
		return s.a.env.Runtime.Run(ctx, agent.RunInput{SessionID: id, Mail: ms, Sink: s.sink(onEvent)})
	}
	if err := mail.Serve(ctx, box, run, mail.ServeOptions{}); err != nil {
		return fmt.Errorf("godwit: %w", err)
	}
	return nil
}
