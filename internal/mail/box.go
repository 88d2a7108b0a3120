package mail

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/store"
)

// A waiter asks whether the database changed (one PRAGMA) every
// DefaultPoll after a change, backing off to every MaxPoll while nothing
// does, so an idle process wakes up seldom.
const (
	DefaultPoll = 50 * time.Millisecond
	MaxPoll     = time.Second
)

// Options configure a Box.
type Options struct {
	// Command names what holds the session ("serve", "chat", "acp",
	// "run"), for the message another process gets when it tries.
	Command string
	// Poll is the wake-up interval; 0 means DefaultPoll.
	Poll time.Duration
}

// Box is one process's hold on one session: while it is open no other
// process keeps the session open, and it claims the session's mail.
// Within one process a newer Box of the same session takes it over.
type Box struct {
	st      *store.Store
	session string
	owner   string
	poll    time.Duration

	mu    sync.Mutex // guards watch, made on the first Wait
	watch *store.Watch
}

// Open makes this process the session's resident and recovers the claims
// of processes that died holding its mail. When another live process
// keeps the session open, the error matches store.ErrResident and says
// how to reach that process instead.
func Open(ctx context.Context, st *store.Store, sessionID string, opts Options) (*Box, error) {
	b := &Box{st: st, session: sessionID, owner: boxOwner(), poll: opts.Poll}
	_, err := st.AcquireResident(ctx, store.Resident{SessionID: sessionID, Owner: b.owner, PID: os.Getpid(), Command: opts.Command}, foreignAlive)
	if errors.Is(err, store.ErrResident) {
		return nil, fmt.Errorf("%w; send it a message with `godwit send %s TEXT`, or stop that process first", err, sessionID)
	}
	if err != nil {
		return nil, fmt.Errorf("mail: %w", err)
	}
	if _, err := Recover(ctx, st, sessionID); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// Session is the session the box holds.
func (b *Box) Session() string { return b.session }

// Claim takes the session's claimable mail for the next turn, oldest
// first, at most maxPerTurn; none when there is none.
func (b *Box) Claim(ctx context.Context) ([]store.Mail, error) {
	ms, err := b.st.ClaimMail(ctx, b.session, b.owner, maxPerTurn)
	if err != nil {
		return nil, fmt.Errorf("mail: %w", err)
	}
	return ms, nil
}

// Release queues again the claimed messages whose turn never started
// (the engine failed before it), saying why.
func (b *Box) Release(ctx context.Context, ms []store.Mail, why error) {
	note := "the turn did not start"
	if why != nil {
		note += ": " + why.Error()
	}
	ctx = context.WithoutCancel(ctx)
	for _, m := range ms {
		cur, err := b.st.MailByID(ctx, m.ID)
		if err != nil || cur.State != store.MailDelivered || cur.TurnID != 0 {
			continue
		}
		if got, ok, err := b.st.RequeueMail(ctx, m.ID, b.owner, note); err == nil && ok {
			_ = agent.RecordMail(ctx, b.st, agent.EventMailRequeued, got, time.Now())
		}
	}
}

// Wait blocks until the session may have claimable mail, or ctx ends.
func (b *Box) Wait(ctx context.Context) error {
	b.mu.Lock()
	if b.watch == nil {
		w, err := b.st.NewWatch(ctx)
		if err != nil {
			b.mu.Unlock()
			return fmt.Errorf("mail: %w", err)
		}
		b.watch = w
	}
	w := b.watch
	b.mu.Unlock()
	return waitFor(ctx, w, b.poll, func() (bool, error) { return b.st.Claimable(ctx, b.session) })
}

// Close gives up the session.
func (b *Box) Close() error {
	return b.st.ReleaseResident(context.Background(), b.session, b.owner)
}

// waitFor checks ready at once, then after every change of the database,
// until it is true or ctx ends.
func waitFor(ctx context.Context, w *store.Watch, poll time.Duration, ready func() (bool, error)) error {
	p := newPoller(w, poll)
	ok, err := ready()
	for err == nil && !ok {
		var changed bool
		if changed, err = p.next(ctx); err == nil && changed {
			ok, err = ready()
		}
	}
	return err
}

// poller looks at the database after a sleep that starts at min and
// doubles while nothing changes, up to MaxPoll (or min, when min is
// larger), and drops back on a change.
type poller struct {
	w             *store.Watch
	min, cur, max time.Duration
	t             *time.Timer
}

func newPoller(w *store.Watch, min time.Duration) *poller {
	if min <= 0 {
		min = DefaultPoll
	}
	return &poller{w: w, min: min, cur: min, max: max(min, MaxPoll)}
}

// next sleeps, then reports whether a commit landed since the last look.
func (p *poller) next(ctx context.Context) (bool, error) {
	if p.t == nil {
		p.t = time.NewTimer(p.cur)
	} else {
		p.t.Reset(p.cur)
	}
	select {
	case <-ctx.Done():
		return false, ctx.Err()
	case <-p.t.C:
	}
	changed, err := p.w.Changed(ctx)
	if err != nil {
		return false, fmt.Errorf("mail: %w", err)
	}
	p.cur = min(2*p.cur, p.max)
	if changed {
		p.cur = p.min
	}
	return changed, nil
}

// Recover settles the session's claims whose process died: a claim whose
// turn never started is queued again; one whose turn started fails,
// since its work may be half done and running it again could do it
// twice; the sender reads why. It returns the messages it changed.
func Recover(ctx context.Context, st *store.Store, sessionID string) ([]store.Mail, error) {
	claims, err := st.Claims(ctx, sessionID)
	if err != nil {
		return nil, fmt.Errorf("mail: %w", err)
	}
	var out []store.Mail
	for _, m := range claims {
		got, ok, err := recoverOne(ctx, st, m)
		if err != nil {
			return out, err
		}
		if ok {
			out = append(out, got)
		}
	}
	return out, nil
}

// recoverOne settles one claim if its process is gone.
func recoverOne(ctx context.Context, st *store.Store, m store.Mail) (store.Mail, bool, error) {
	if m.State != store.MailDelivered || Alive(m.ClaimedBy) {
		return m, false, nil
	}
	var (
		got store.Mail
		ok  bool
		err error
		typ string
	)
	if m.TurnID == 0 {
		typ = agent.EventMailRequeued
		got, ok, err = st.RequeueMail(ctx, m.ID, m.ClaimedBy, fmt.Sprintf("the process that claimed it (pid %d) ended before its turn started", PID(m.ClaimedBy)))
	} else {
		typ = agent.EventMailFailed
		got, ok, err = st.FailClaim(ctx, m.ID, m.ClaimedBy, fmt.Sprintf(
			"the process running turn %d of session %s (pid %d) died before the turn answered; the turn is recorded as interrupted and nothing was answered: send again, or acknowledge with `godwit send --ack %s`",
			m.Turn, m.To, PID(m.ClaimedBy), ID(m.ID)))
	}
	if err != nil {
		return m, false, fmt.Errorf("mail: %w", err)
	}
	if !ok {
		return m, false, nil // another process settled it first
	}
	got.Turn = m.Turn
	if err := agent.RecordMail(ctx, st, typ, got, time.Now()); err != nil {
		return got, true, err
	}
	return got, true, nil
}

// Arrivals calls arrived once for each message queued for the session
// that session names (it may change; "" is none), those already waiting
// first, until ctx ends: a chat shows mail as it comes.
func Arrivals(ctx context.Context, st *store.Store, session func() string, poll time.Duration, arrived func(store.Mail)) error {
	w, err := st.NewWatch(ctx)
	if err != nil {
		return fmt.Errorf("mail: %w", err)
	}
	seen := map[string]int64{} // session -> the newest message announced
	p := newPoller(w, poll)
	checked, changed := "", false
	for {
		if sid := session(); sid != "" && (changed || sid != checked) {
			checked = sid
			ms, err := st.QueuedAfter(ctx, sid, seen[sid], 50)
			if err != nil {
				return fmt.Errorf("mail: %w", err)
			}
			for _, m := range ms {
				seen[sid] = m.ID
				if _, held, err := st.HeldBy(ctx, m); err == nil && !held {
					arrived(m)
				}
			}
		}
		if changed, err = p.next(ctx); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
	}
}
