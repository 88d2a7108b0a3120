package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// MailState is where a message is.
type MailState string

// Message states.
const (
	// MailQueued: waiting for the target session's next turn.
	MailQueued MailState = "queued"
	// MailDelivered: claimed for a turn (Mail.TurnID is set once the turn
	// starts).
	MailDelivered MailState = "delivered"
	// MailAnswered: the turn finished; Mail.Answer is its answer.
	MailAnswered MailState = "answered"
	// MailFailed: the turn failed, or the process running it died;
	// Mail.Error says why.
	MailFailed MailState = "failed"
	// MailExpired: the sender stopped waiting before it was delivered.
	MailExpired MailState = "expired"
)

// Final reports whether the message will not change state again.
func (st MailState) Final() bool {
	return st == MailAnswered || st == MailFailed || st == MailExpired
}

// Receipt states beyond the message states.
const (
	// ReceiptRequeued: the process that claimed the message died before
	// its turn started; it is queued again.
	ReceiptRequeued = "requeued"
	// ReceiptAcknowledged: a failure was acknowledged, and the sender's
	// later messages to that session may be delivered.
	ReceiptAcknowledged = "acknowledged"
)

// SenderKind says who sent a message.
type SenderKind string

// Senders.
const (
	FromSession SenderKind = "session"
	FromUser    SenderKind = "user"
	FromProgram SenderKind = "program"
)

// Mail is one message to a session.
type Mail struct {
	ID int64
	// To is the target session's id.
	To       string
	FromKind SenderKind
	// From is the sending session's id, "user", or the program's name.
	From      string
	Body      string
	CreatedAt time.Time
	State     MailState
	// ClaimedBy names the process that claimed it for a turn.
	ClaimedBy string
	// TurnID and Turn (its number in the target session) are the turn it
	// was delivered in; 0 before.
	TurnID    int64
	Turn      int
	Answer    string
	Error     string
	UpdatedAt time.Time
	// AckedAt is when a failure was acknowledged; zero when not.
	AckedAt time.Time
}

// Receipt is one state change of a message.
type Receipt struct {
	ID     int64
	MailID int64
	// State is a MailState or ReceiptRequeued or ReceiptAcknowledged.
	State  string
	At     time.Time
	TurnID int64
	Turn   int
	Note   string
}

// Resident is the process that keeps a session open and answers its mail.
type Resident struct {
	SessionID string
	// Owner names the process ("pid/start"); PID is its process id.
	Owner   string
	PID     int
	Command string
	Since   time.Time
}

// ErrResident matches (errors.Is) the error for a session another live
// process already keeps open.
var ErrResident = errors.New("store: the session is open in another process")

// PostMail queues m (To, FromKind, From and Body; CreatedAt now when
// zero) and its first receipt, and returns it as stored.
func (s *Store) PostMail(ctx context.Context, m Mail) (Mail, error) {
	switch {
	case m.To == "":
		return Mail{}, errors.New("store: post mail: no target session")
	case m.FromKind != FromSession && m.FromKind != FromUser && m.FromKind != FromProgram:
		return Mail{}, fmt.Errorf("store: post mail: unknown sender kind %q", m.FromKind)
	case strings.TrimSpace(m.Body) == "":
		return Mail{}, errors.New("store: post mail: empty message")
	}
	at := s.stamp(m.CreatedAt)
	var out Mail
	err := s.inTx(ctx, "post mail to "+m.To, func(tx *txn) error {
		ms, err := queryMail(ctx, tx, qPostMail, m.To, string(m.FromKind), m.From, m.Body, at.UnixMilli())
		if err != nil {
			return err
		}
		out = ms[0]
		return addReceipts(ctx, tx, ms, string(MailQueued), at, "")
	})
	return out, err
}

// ClaimMail marks up to limit claimable messages to target delivered,
// claimed by owner, and returns them oldest first. A message is
// claimable when it is queued and no earlier message from its sender to
// target failed without being acknowledged. The claim is one statement,
// so two processes claiming at once never get the same message.
func (s *Store) ClaimMail(ctx context.Context, target, owner string, limit int) ([]Mail, error) {
	if limit <= 0 {
		limit = 1 << 20
	}
	ms, err := list(ctx, s.w, "claim mail of "+target, scanRow[Mail], qClaimMail, target, owner, s.now().UnixMilli(), limit)
	slices.SortFunc(ms, func(a, b Mail) int { return cmp.Compare(a.ID, b.ID) })
	return ms, err
}

// Claimable reports whether target has mail ClaimMail would take. It
// reads on the pool: residents ask it whenever the database changed.
func (s *Store) Claimable(ctx context.Context, target string) (bool, error) {
	var ok bool
	if err := s.r.QueryRowContext(ctx, qClaimable, target).Scan(&ok); err != nil {
		return false, wrap("claimable mail of "+target, err)
	}
	return ok, nil
}

// HeldBy returns the failed, unacknowledged message from m's sender to
// m's target that holds m (and the sender's other messages there), if
// there is one.
func (s *Store) HeldBy(ctx context.Context, m Mail) (Mail, bool, error) {
	h, err := scanRow[Mail](s.r.QueryRowContext(ctx, qHeldBy, m.To, m.From, string(m.FromKind)))
	if errors.Is(err, sql.ErrNoRows) {
		return Mail{}, false, nil
	}
	if err != nil {
		return Mail{}, false, wrap("mail held", err)
	}
	return h, true, nil
}

// MailInTurn records that the claimed messages ids entered turn turnID,
// with a delivered receipt each.
func (s *Store) MailInTurn(ctx context.Context, ids []int64, turnID int64) ([]Mail, error) {
	at := s.now()
	return s.changeEach(ctx, "deliver mail", ids, string(MailDelivered), "", at, qMailInTurn, turnID, at.UnixMilli())
}

// FinishMail ends the delivered messages ids: answered with text as
// their answer, or failed with text as their error. It returns those it
// changed (messages no longer delivered are left alone).
func (s *Store) FinishMail(ctx context.Context, ids []int64, state MailState, text string) ([]Mail, error) {
	if state != MailAnswered && state != MailFailed {
		return nil, fmt.Errorf("store: finish mail: state %q (want answered or failed)", state)
	}
	answer, errText := text, ""
	if state == MailFailed {
		answer, errText = "", text
	}
	at := s.now()
	return s.changeEach(ctx, "finish mail", ids, string(state), errText, at, qFinishMail, string(state), answer, errText, at.UnixMilli())
}

// changeEach runs query (whose first argument is the message id, then
// args) for each of ids, with a receipt for each message it changed, in
// one transaction; the receipts are stamped at.
func (s *Store) changeEach(ctx context.Context, op string, ids []int64, receipt, note string, at time.Time, query string, args ...any) ([]Mail, error) {
	var out []Mail
	err := s.inTx(ctx, op, func(tx *txn) error {
		for _, id := range ids {
			ms, err := queryMail(ctx, tx, query, append([]any{id}, args...)...)
			if err != nil {
				return err
			}
			if err := addReceipts(ctx, tx, ms, receipt, at, note); err != nil {
				return err
			}
			out = append(out, ms...)
		}
		return nil
	})
	return out, err
}

// RequeueMail puts a claim of owner back in the queue (its turn never
// started), with a requeued receipt saying why. It reports whether it
// changed the message.
func (s *Store) RequeueMail(ctx context.Context, id int64, owner, note string) (Mail, bool, error) {
	return s.changeOne(ctx, "requeue mail", ReceiptRequeued, note, qRequeueMail, id, owner, s.now().UnixMilli())
}

// FailClaim fails a claim of owner whose turn started but whose process
// died, keeping errText as the error. It reports whether it changed the
// message.
func (s *Store) FailClaim(ctx context.Context, id int64, owner, errText string) (Mail, bool, error) {
	return s.changeOne(ctx, "fail mail", string(MailFailed), errText, qFailClaim, id, owner, errText, s.now().UnixMilli())
}

// ExpireMail expires message id if it is still queued, keeping why as
// its error. It reports whether it did.
func (s *Store) ExpireMail(ctx context.Context, id int64, why string) (Mail, bool, error) {
	return s.changeOne(ctx, "expire mail", string(MailExpired), why, qExpireMail, id, why, s.now().UnixMilli())
}

// AckMail acknowledges the failure of message id (note says by whom),
// releasing the sender's later messages to that session. It reports
// whether it did: false when the message had not failed or was already
// acknowledged.
func (s *Store) AckMail(ctx context.Context, id int64, note string) (Mail, bool, error) {
	return s.changeOne(ctx, "acknowledge mail", ReceiptAcknowledged, note, qAckMail, id, s.now().UnixMilli())
}

// changeOne runs one conditional update of message id and its receipt
// in a transaction.
func (s *Store) changeOne(ctx context.Context, op, receipt, note, query string, id int64, args ...any) (Mail, bool, error) {
	ms, err := s.changeEach(ctx, op, []int64{id}, receipt, note, s.now(), query, args...)
	if err != nil || len(ms) == 0 {
		return Mail{}, false, err
	}
	return ms[0], true, nil
}

// MailByID returns message id.
func (s *Store) MailByID(ctx context.Context, id int64) (Mail, error) {
	m, err := scanRow[Mail](s.r.QueryRowContext(ctx, qMailByID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Mail{}, notFound("no message m%d; `godwit mail` lists them", id)
	}
	if err != nil {
		return Mail{}, wrap(fmt.Sprintf("mail m%d", id), err)
	}
	return m, nil
}

// Claims returns target's delivered messages, oldest first: those
// claimed for a turn that has not ended.
func (s *Store) Claims(ctx context.Context, target string) ([]Mail, error) {
	return list(ctx, s.w, "claims of "+target, scanRow[Mail], qClaims, target)
}

// QueuedAfter returns up to limit messages queued for target with ids
// above after, oldest first.
func (s *Store) QueuedAfter(ctx context.Context, target string, after int64, limit int) ([]Mail, error) {
	return list(ctx, s.r, "queued mail of "+target, scanRow[Mail], qQueuedAfter, target, after, limit)
}

// MailOfTurn returns the messages turn turnID took.
func (s *Store) MailOfTurn(ctx context.Context, turnID int64) ([]Mail, error) {
	return list(ctx, s.r, "mail of a turn", scanRow[Mail], qMailOfTurn, turnID)
}

// Mailbox returns up to limit messages to or from session (every
// session's when ""), newest first.
func (s *Store) Mailbox(ctx context.Context, session string, limit int) ([]Mail, error) {
	if limit <= 0 {
		limit = -1
	}
	return list(ctx, s.r, "mailbox", scanRow[Mail], qMailbox, session, limit)
}

// Receipts returns message id's receipts, oldest first.
func (s *Store) Receipts(ctx context.Context, id int64) ([]Receipt, error) {
	return list(ctx, s.r, "receipts", scanRow[Receipt], qReceipts, id)
}

// AcquireResident makes r the session's resident, unless another process
// is: when the row names another owner that alive says still runs, it
// returns that resident and an error matching ErrResident. The check and
// the write are one transaction.
func (s *Store) AcquireResident(ctx context.Context, r Resident, alive func(owner string) bool) (Resident, error) {
	var holder Resident
	err := s.inTx(ctx, "open session "+r.SessionID, func(tx *txn) error {
		cur, err := scanRow[Resident](tx.QueryRowContext(ctx, qResident, r.SessionID))
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return err
		case cur.Owner != r.Owner && alive(cur.Owner):
			holder = cur
			return nil
		}
		_, err = tx.ExecContext(ctx, qSetResident, r.SessionID, r.Owner, r.PID, r.Command, s.stamp(r.Since).UnixMilli())
		return err
	})
	if err != nil {
		return Resident{}, err
	}
	if holder.Owner != "" {
		return holder, &lookupError{kind: ErrResident, msg: fmt.Sprintf("session %s is open in %s (pid %d) since %s", r.SessionID,
			holder.Command, holder.PID, holder.Since.Local().Format("15:04:05"))}
	}
	return r, nil
}

// ReleaseResident ends owner's residency of the session (nothing when
// another process holds it).
func (s *Store) ReleaseResident(ctx context.Context, sessionID, owner string) error {
	_, err := s.w.ExecContext(ctx, qDropResident, sessionID, owner)
	return wrap("close session "+sessionID, err)
}

// ResidentOf returns the session's resident row, if there is one; the
// caller judges whether its process still runs.
func (s *Store) ResidentOf(ctx context.Context, sessionID string) (Resident, bool, error) {
	r, err := scanRow[Resident](s.r.QueryRowContext(ctx, qResident, sessionID))
	if errors.Is(err, sql.ErrNoRows) {
		return Resident{}, false, nil
	}
	if err != nil {
		return Resident{}, false, wrap("resident of "+sessionID, err)
	}
	return r, true, nil
}

// Watch tells whether the database changed, cheaply: it asks SQLite's
// data_version, which moves whenever another connection (of this process
// or another) commits, on one read connection the store keeps for all
// its watches. A Watch is not safe for concurrent use; several Watches
// are.
type Watch struct {
	s    *Store
	last int64
}

// MailInUse reports whether mail is in use in workspace: a session
// there has sent or received mail, or is kept by `godwit serve`.
func (s *Store) MailInUse(ctx context.Context, workspace string) (bool, error) {
	var in bool
	if err := s.w.QueryRowContext(ctx, qMailInUse, workspace).Scan(&in); err != nil {
		return false, wrap("mail in use", err)
	}
	return in, nil
}

// NewWatch starts a watch. It holds nothing of its own: the connection
// it reads on is the store's.
func (s *Store) NewWatch(ctx context.Context) (*Watch, error) {
	w := &Watch{s: s}
	if _, err := w.Changed(ctx); err != nil {
		return nil, err
	}
	return w, nil
}

// Changed reports whether a commit landed since the last call (or since
// NewWatch).
func (w *Watch) Changed(ctx context.Context) (bool, error) {
	v, err := w.s.dataVersion(ctx)
	if err != nil {
		return false, err
	}
	changed := v != w.last
	w.last = v
	return changed, nil
}

// dataVersion reads data_version on the watch connection, opening it on
// first use. The value only grows, so each Watch compares it with its own
// last reading.
func (s *Store) dataVersion(ctx context.Context) (int64, error) {
	s.watchMu.Lock()
	defer s.watchMu.Unlock()
	if s.watch == nil {
		s.watch = pool(s.path+"?_pragma=busy_timeout(5000)&_pragma=query_only(1)", 1)
	}
	// The PRAGMA returns at once, so it runs without ctx's cancellation:
	// the driver watches a cancellable context with a goroutine per
	// query, which an idle resident would pay on every poll.
	var v int64
	if err := s.watch.QueryRowContext(context.WithoutCancel(ctx), qDataVersion).Scan(&v); err != nil {
		return 0, wrap("watch", err)
	}
	return v, nil
}

func queryMail(ctx context.Context, tx *txn, query string, args ...any) ([]Mail, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return collect(rows, scanRow[Mail])
}

func addReceipts(ctx context.Context, tx *txn, ms []Mail, state string, at time.Time, note string) error {
	for _, m := range ms {
		if _, err := tx.ExecContext(ctx, qAddReceipt, m.ID, state, at.UnixMilli(), null(m.TurnID), note); err != nil {
			return err
		}
	}
	return nil
}
