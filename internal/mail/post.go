package mail

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/store"
)

// Sender is who sends a message.
type Sender struct {
	Kind store.SenderKind
	// Name is the session's id, "user", or the program's name.
	Name string
}

// User is the person at the command line.
func User() Sender { return Sender{Kind: store.FromUser, Name: "user"} }

// Program is a named program (`godwit send --from NAME`).
func Program(name string) Sender { return Sender{Kind: store.FromProgram, Name: name} }

// FromSession is a session (the send_message tool).
func FromSession(id string) Sender { return Sender{Kind: store.FromSession, Name: id} }

// Label names a sender for people: "user", "program ci", "session 01j…".
func Label(kind store.SenderKind, name string) string {
	if kind == store.FromUser {
		return "user"
	}
	return string(kind) + " " + name
}

// MaxBody bounds a message: a model reads it whole, in one turn.
const MaxBody = 64 << 10

// maxPerTurn bounds how many messages one turn takes; the rest wait for
// the next.
const maxPerTurn = 20

// Errors callers branch on.
var (
	// ErrHeld: the message waits behind its sender's failed message to
	// the same session, until someone acknowledges that failure.
	ErrHeld = errors.New("mail: held behind a failed message")
	// ErrTimeout: the wait ended before the message did.
	ErrTimeout = errors.New("mail: timed out")
)

// Posted is a queued message and, when a failure of the same sender
// holds it back, that failed message.
type Posted struct {
	Mail   store.Mail
	HeldBy *store.Mail
}

// Post queues body for session to (an id, a unique prefix, or "last")
// from from, and records mail.sent on the timelines.
func Post(ctx context.Context, st *store.Store, from Sender, to, body string) (Posted, error) {
	if strings.TrimSpace(body) == "" {
		return Posted{}, errors.New("mail: empty message: say what the session should do")
	}
	if len(body) > MaxBody {
		return Posted{}, fmt.Errorf("mail: the message is %d bytes, over the %d a message may hold; write it to a file in the workspace and send its path", len(body), MaxBody)
	}
	if from.Kind == store.FromProgram && !validName(from.Name) {
		return Posted{}, fmt.Errorf("mail: sender name %q: use letters, digits, '-', '_' or '.', at most 64", from.Name)
	}
	target, err := resolve(ctx, st, to)
	if err != nil {
		return Posted{}, err
	}
	if target.ParentID != "" {
		return Posted{}, fmt.Errorf("mail: session %s is a sub-agent's and takes no mail; message its parent %s", target.ID, target.ParentID)
	}
	if from.Kind == store.FromSession && from.Name == target.ID {
		return Posted{}, errors.New("mail: a session cannot message itself")
	}
	m, err := st.PostMail(ctx, store.Mail{To: target.ID, FromKind: from.Kind, From: from.Name, Body: body})
	if err != nil {
		return Posted{}, fmt.Errorf("mail: %w", err)
	}
	// The message is queued; its timeline events are the record's
	// second copy, and a failure to write them does not unsend it.
	_ = agent.RecordMail(ctx, st, agent.EventMailSent, m, m.CreatedAt)
	out := Posted{Mail: m}
	if h, held, err := st.HeldBy(ctx, m); err == nil && held {
		out.HeldBy = &h
	}
	return out, nil
}

// resolve finds a session by id, unique prefix, or "last" (the latest
// session a person worked in).
func resolve(ctx context.Context, st *store.Store, ref string) (store.Session, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return store.Session{}, errors.New("mail: no session named: pass an id, a unique prefix of one, or last")
	}
	var (
		s   store.Session
		err error
	)
	if ref == "last" {
		s, err = st.LastSession(ctx)
	} else {
		s, err = st.Session(ctx, ref)
	}
	if errors.Is(err, store.ErrNotFound) {
		return s, fmt.Errorf("mail: no session %q; `godwit sessions` lists them (`godwit serve --new` starts one that answers mail)", ref)
	}
	if err != nil {
		return s, fmt.Errorf("mail: %w", err)
	}
	return s, nil
}

// ParseID reads a message id: "m12" or "12".
func ParseID(s string) (int64, error) {
	t := strings.TrimPrefix(strings.TrimSpace(strings.ToLower(s)), "m")
	id, err := strconv.ParseInt(t, 10, 64)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("mail: %q is not a message id; ids look like m12 (`godwit mail` lists them)", s)
	}
	return id, nil
}

// ID renders a message id.
func ID(id int64) string { return agent.MailID(id) }

// Ack acknowledges the failure of message id, releasing the sender's
// later messages to that session; by says who ("user", a session). A
// session may acknowledge only its own messages (checked by the tool).
func Ack(ctx context.Context, st *store.Store, id int64, by string) (store.Mail, error) {
	m, err := st.MailByID(ctx, id)
	if err != nil {
		return m, fmt.Errorf("mail: %w", err)
	}
	if m.State != store.MailFailed {
		return m, fmt.Errorf("mail: %s is %s, not failed: only a failure is acknowledged", ID(id), m.State)
	}
	got, ok, err := st.AckMail(ctx, id, "by "+by)
	if err != nil {
		return m, fmt.Errorf("mail: %w", err)
	}
	if !ok {
		return m, fmt.Errorf("mail: %s was already acknowledged", ID(id))
	}
	_ = agent.RecordMail(ctx, st, agent.EventMailAcked, got, time.Now()) // as in Post
	return got, nil
}

func validName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		ok := r == '-' || r == '_' || r == '.' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !ok {
			return false
		}
	}
	return true
}

// NewSession creates an empty session in workspace, so that a resident
// can serve it before anyone has written to it (`godwit serve --new`).
func NewSession(ctx context.Context, st *store.Store, workspace, model string) (string, error) {
	id := store.NewID()
	if err := st.CreateSession(ctx, store.Session{ID: id, Workspace: workspace, Model: model}); err != nil {
		return "", fmt.Errorf("mail: %w", err)
	}
	if err := st.StartSegment(ctx, id, 1, "start"); err != nil {
		return "", fmt.Errorf("mail: %w", err)
	}
	return id, nil
}
