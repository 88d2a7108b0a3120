package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/godwit/godwit/llm"
)

// Session is one conversation with its own history.
type Session struct {
	ID string
	// ParentID names the session this one was started from (a subagent),
	// "" for none.
	ParentID  string
	Title     string
	Workspace string // absolute path of the workspace root
	Model     string // provider/model
	CreatedAt time.Time
	// UpdatedAt is the last activity: it moves forward on UpdateSession
	// and whenever a turn starts or ends.
	UpdatedAt time.Time
}

// SessionSummary is a session with totals, for the sessions list.
type SessionSummary struct {
	Session
	Turns int
	// Usage and Cost sum the session's model calls.
	Usage llm.Usage
	Cost  float64
	// LastActivity is UpdatedAt.
	LastActivity time.Time
	// Queued counts the messages waiting for the session's next turn.
	Queued int
	// ResidentOwner names the process that last kept the session open
	// ("" for none), ResidentCommand what it was ("serve", "chat"); the
	// caller judges whether it still runs.
	ResidentOwner, ResidentCommand string
}

// crockford is Crockford's base32 alphabet in lower case; it sorts the
// same as the numbers it encodes, and leaves out i, l, o and u.
const crockford = "0123456789abcdefghjkmnpqrstvwxyz"

// NewID returns a new session id: 18 characters of lower-case Crockford
// base32, the first 10 the creation time in milliseconds (so ids sort by
// creation) and the last 8 forty random bits.
func NewID() string {
	var b [18]byte
	t := uint64(time.Now().UnixMilli())
	for i := 9; i >= 0; i-- {
		b[i] = crockford[t&31]
		t >>= 5
	}
	var r [5]byte
	rand.Read(r[:]) // never fails (crypto/rand documents it)
	x := uint64(r[0])<<32 | uint64(r[1])<<24 | uint64(r[2])<<16 | uint64(r[3])<<8 | uint64(r[4])
	for i := 17; i >= 10; i-- {
		b[i] = crockford[x&31]
		x >>= 5
	}
	return string(b[:])
}

// CreateSession stores a new session. sess.ID is required (use NewID);
// zero CreatedAt and UpdatedAt are set to now.
func (s *Store) CreateSession(ctx context.Context, sess Session) error {
	if sess.ID == "" {
		return errors.New("store: create session: empty ID; set Session.ID = store.NewID()")
	}
	created := s.stamp(sess.CreatedAt)
	updated := sess.UpdatedAt
	if updated.IsZero() {
		updated = created
	}
	var parent any
	if sess.ParentID != "" {
		parent = sess.ParentID
	}
	_, err := s.w.ExecContext(ctx, qCreateSession, sess.ID, parent, sess.Title, sess.Workspace, sess.Model,
		created.UnixMilli(), updated.UnixMilli())
	return wrap("create session "+sess.ID, err)
}

// Session returns the session whose id is id or, failing that, the one
// session whose id starts with id (case-insensitive). It returns an error
// matching ErrNotFound when none matches and ErrAmbiguous when several do.
func (s *Store) Session(ctx context.Context, id string) (Session, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return Session{}, errors.New("store: session: empty id; pass a session id or a prefix of one")
	}
	sess, err := scanRow[Session](s.r.QueryRowContext(ctx, qSessionByID, id))
	if err == nil {
		return sess, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return Session{}, wrap("session "+id, err)
	}
	found, err := list(ctx, s.r, "session "+id, scanRow[Session], qSessionsByPrefix, id)
	if err != nil {
		return Session{}, err
	}
	switch len(found) {
	case 0:
		return Session{}, notFound("no session %q; list sessions with `godwit sessions`", id)
	case 1:
		return found[0], nil
	}
	ids := make([]string, 0, len(found))
	for _, f := range found[:min(len(found), 5)] {
		ids = append(ids, f.ID)
	}
	more := ""
	if len(found) > 5 {
		more = ", ..."
	}
	return Session{}, &lookupError{kind: ErrAmbiguous, msg: fmt.Sprintf(
		"store: session prefix %q matches several sessions (%s%s); type more of the id", id, strings.Join(ids, ", "), more)}
}

// LastSession returns the session with the latest activity, leaving out
// sub-agents' sessions: "last" means the one the user worked in.
func (s *Store) LastSession(ctx context.Context) (Session, error) {
	return s.LastSessionIn(ctx, "")
}

// LastSessionIn is LastSession among the sessions of one workspace (its
// absolute root, as recorded); "" means every workspace.
func (s *Store) LastSessionIn(ctx context.Context, workspace string) (Session, error) {
	sess, err := scanRow[Session](s.r.QueryRowContext(ctx, qLastSessionIn, workspace))
	if errors.Is(err, sql.ErrNoRows) {
		if workspace != "" {
			return Session{}, notFound("no sessions in %s yet", workspace)
		}
		return Session{}, notFound("no sessions yet")
	}
	if err != nil {
		return Session{}, wrap("last session", err)
	}
	return sess, nil
}

// SubSessions returns the sessions started from parentID (sub-agents'),
// oldest first.
func (s *Store) SubSessions(ctx context.Context, parentID string) ([]Session, error) {
	return list(ctx, s.r, "sub-sessions of "+parentID, scanRow[Session], qSubSessions, parentID)
}

// SetTitle sets the session's title, in one statement on the writer: a
// new session's first turn names it without a read-modify-write.
func (s *Store) SetTitle(ctx context.Context, sessionID, title string) error {
	return s.update(ctx, "set session title", fmt.Sprintf("no session %q", sessionID), qSetTitle,
		title, s.now().UnixMilli(), sessionID)
}

// ListSessions returns up to limit sessions (all when limit <= 0), the
// latest activity first.
func (s *Store) ListSessions(ctx context.Context, limit int) ([]SessionSummary, error) {
	return s.ListSessionsIn(ctx, "", limit)
}

// ListSessionsIn is ListSessions among the sessions of one workspace; ""
// means every workspace.
func (s *Store) ListSessionsIn(ctx context.Context, workspace string, limit int) ([]SessionSummary, error) {
	if limit <= 0 {
		limit = -1
	}
	return list(ctx, s.r, "list sessions", scanRow[SessionSummary], qListSessions, workspace, limit)
}

// scanner is what *sql.Row and *sql.Rows have in common.
type scanner interface{ Scan(dest ...any) error }

// list runs query on q and scans every row with scan; op names the read
// in errors.
func list[T any](ctx context.Context, q execer, op string, scan func(scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, wrap(op, err)
	}
	out, err := collect(rows, scan)
	return out, wrap(op, err)
}

// scanOne scans a row of one column.
func scanOne[T any](r scanner) (T, error) {
	var v T
	err := r.Scan(&v)
	return v, err
}

// collect scans every row with scan and closes rows.
func collect[T any](rows *sql.Rows, scan func(scanner) (T, error)) ([]T, error) {
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// SessionStamp returns a short string that changes whenever what a trace
// of session id (a full id) reads changes: the session's row, a turn or
// segment started or ended, a message, model call, tool call, event or
// verify run added. It costs a few index lookups, whatever the session's
// length, so a page that follows a live session can tell "nothing new"
// without loading it. Read it before loading: then a write that lands in
// between makes the next stamp differ, never the other way round. It
// returns an error matching ErrNotFound when there is no such session.
//
// It relies on how the store writes: messages, calls, events and verify
// runs are only ever appended; a turn is changed only when it ends (it
// was running); a segment's row changes only when it ends. A new way of
// changing a session's rows must keep the stamp moving (TestSessionStamp).
func (s *Store) SessionStamp(ctx context.Context, id string) (string, error) {
	var stamp string
	err := s.r.QueryRowContext(ctx, qSessionStamp, id).Scan(&stamp)
	if errors.Is(err, sql.ErrNoRows) {
		return "", notFound("no session %q; list sessions with `godwit sessions`", id)
	}
	return stamp, wrap("stamp of session "+id, err)
}
