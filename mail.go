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

// Message is a message to a session, as the database keeps it.
type Message struct {
	ID int64
	// To is the target session's id.
	To string
	// FromKind is "session", "user" or "program"; From is the sending
	// session's id, "user", or the program's name.
	FromKind  string
	From      string
	Body      string
	CreatedAt time.Time
	State     MailState
	// ClaimedBy names the process that claimed it for a turn.
	ClaimedBy string
	// Turn is the target session's turn that took it; 0 before.
	Turn      int
	Answer    string
	Error     string
	UpdatedAt time.Time
	// AckedAt is when a failure was acknowledged; zero when not.
	AckedAt time.Time
}

// Receipt is one state change of a Message.
type Receipt struct {
	ID     int64
	MailID int64
	// State is a MailState, "requeued" or "acknowledged".
	State string
	At    time.Time
	Turn  int
	Note  string
}

// MailState is where a Message is.
type MailState string

// Message states.
const (
	MailQueued    MailState = "queued"
	MailDelivered MailState = "delivered"
	MailAnswered  MailState = "answered"
	MailFailed    MailState = "failed"
	MailExpired   MailState = "expired"
)

func message(m store.Mail) Message {
	return Message{ID: m.ID, To: m.To, FromKind: string(m.FromKind), From: m.From, Body: m.Body, CreatedAt: m.CreatedAt,
		State: MailState(m.State), ClaimedBy: m.ClaimedBy, Turn: m.Turn, Answer: m.Answer, Error: m.Error,
		UpdatedAt: m.UpdatedAt, AckedAt: m.AckedAt}
}

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
		return message(p.Mail), nil
	}
	m, err := mail.Await(ctx, st, p.Mail.ID, mail.AwaitOptions{Timeout: opts.Timeout, Expire: true})
	if err != nil {
		return message(m), fmt.Errorf("godwit: %w", err)
	}
	return message(m), nil
}

// Receipts yields message id's receipts as they are written, until the
// message is answered, failed or expired, or ctx ends (then the last
// pair carries ctx's error). A claim whose process died is recovered
// meanwhile, so the follower hears of it.
func (a *Agent) Receipts(ctx context.Context, id int64) iter.Seq2[Receipt, error] {
	return func(yield func(Receipt, error) bool) {
		for r, err := range mail.Follow(ctx, a.env.Store, id, mail.FollowOptions{}) {
			if !yield(receipt(r), err) {
				return
			}
		}
	}
}

func receipt(r store.Receipt) Receipt {
	return Receipt{ID: r.ID, MailID: r.MailID, State: r.State, At: r.At, Turn: r.Turn, Note: r.Note}
}

// Acknowledge releases the messages held behind the failure of message
// id (the failure barrier).
func (a *Agent) Acknowledge(ctx context.Context, id int64) (Message, error) {
	m, err := mail.Ack(ctx, a.env.Store, id, "user")
	if err != nil {
		return message(m), fmt.Errorf("godwit: %w", err)
	}
	return message(m), nil
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
	run := func(ctx context.Context, ms []store.Mail) (agent.Result, error) {
		s.turn.Lock()
		defer s.turn.Unlock()
		return s.a.env.Runtime.Run(ctx, agent.RunInput{SessionID: id, Mail: ms, Sink: s.sink(onEvent)})
	}
	if err := mail.Serve(ctx, box, run, mail.ServeOptions{}); err != nil {
		return fmt.Errorf("godwit: %w", err)
	}
	return nil
}
