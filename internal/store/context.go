package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Decision is one entry of a session's Decisions ledger.
type Decision struct {
	SessionID string
	// Seq numbers entries within the session: entry 3 is shown as D3.
	Seq    int
	Source string // "user" or "model"
	// Kind is "instruction" or "request" for the user's entries (the
	// handoff package's classes).
	Kind  string
	Turn  int
	Topic string
	Text  string
	// SupersededBy is the Seq of the entry that replaced this one; 0 while
	// the entry stands.
	SupersededBy int
	// Pinned is the user's word over Kind: PinRule or PinRequest, 0 while
	// the classifier's stands.
	Pinned    int
	CreatedAt time.Time
}

// The user's pins (Decision.Pinned).
const (
	PinRule    = 1
	PinRequest = -1
)

// AddDecision appends an entry to the ledger and returns it with its Seq.
func (s *Store) AddDecision(ctx context.Context, d Decision) (Decision, error) {
	if d.Source != "user" && d.Source != "model" {
		return d, fmt.Errorf("store: add decision: source %q; use \"user\" or \"model\"", d.Source)
	}
	if d.CreatedAt.IsZero() {
		d.CreatedAt = s.now()
	}
	seq, err := s.insert(ctx, "add decision", qAddDecision, d.SessionID, d.Source, d.Turn, d.Topic, d.Text, d.CreatedAt.UnixMilli(), d.Kind)
	if err != nil {
		return d, err
	}
	d.Seq = int(seq)
	return d, nil
}

// SupersedeDecision marks entry seq as replaced by the later entry by. It
// fails with ErrNotFound when seq is not an active entry, by does not
// exist, or by is not later than seq.
func (s *Store) SupersedeDecision(ctx context.Context, sessionID string, seq, by int) error {
	return s.update(ctx, "supersede decision",
		fmt.Sprintf("D%d is not an active entry that D%d (a later entry) can supersede", seq, by),
		qSupersedeDecision, sessionID, seq, by)
}

// PinDecision records the user's word on what entry seq is: PinRule (a
// standing instruction, whatever the classifier said), PinRequest (not
// one), or 0 (the classifier's kind again). Only the user's entries take
// a pin. Unpinning an entry restores the entries it had superseded, whose
// seqs it returns: words that are no rule change no rule.
func (s *Store) PinDecision(ctx context.Context, sessionID string, seq, pin int) (restored []int, err error) {
	err = s.inTx(ctx, "pin decision", func(tx *txn) error {
		res, err := tx.ExecContext(ctx, qPinDecision, sessionID, seq, pin)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return errors.Join(err, notFound("no entry D%d of the user's", seq))
		}
		if pin != PinRequest {
			return nil
		}
		rows, err := tx.QueryContext(ctx, qRestoreDecisions, sessionID, seq)
		if err != nil {
			return err
		}
		restored, err = collect(rows, scanOne[int])
		return err
	})
	return restored, err
}

// SetDecisionTopic labels an entry with a topic.
func (s *Store) SetDecisionTopic(ctx context.Context, sessionID string, seq int, topic string) error {
	return s.update(ctx, "set decision topic", fmt.Sprintf("no entry D%d", seq), qSetDecisionTopic, sessionID, seq, topic)
}

// Decisions returns the session's ledger in order. It reads on the
// writer (see the package doc): the engine reads the ledger between its
// own writes to it.
func (s *Store) Decisions(ctx context.Context, sessionID string) ([]Decision, error) {
	return list(ctx, s.w, "decisions", scanRow[Decision], qDecisions, sessionID)
}

// Compaction records how a tool output is shown in a segment's window.
type Compaction struct {
	SessionID string
	Segment   int
	CallID    string
	// Level is 1 for a summary, 2 for a one-line stub.
	Level  int
	PageID string
	// Text replaces the output in the window.
	Text string
}

// RecordCompaction stores (or raises) the compaction of one output.
func (s *Store) RecordCompaction(ctx context.Context, c Compaction) error {
	_, err := s.w.ExecContext(ctx, qRecordCompaction, c.SessionID, c.Segment, c.CallID, c.Level, c.PageID, c.Text, s.now().UnixMilli())
	return wrap("record compaction", err)
}

// Compactions returns a segment's compactions. It reads on the writer,
// as Decisions does.
func (s *Store) Compactions(ctx context.Context, sessionID string, segment int) ([]Compaction, error) {
	return list(ctx, s.w, "compactions", scanRow[Compaction], qCompactions, sessionID, segment)
}

// PagedCalls returns the call ids of the outputs a segment shows paged
// (capped, summarised or as stubs), in no order: what a resumed session
// leaves out of the history it loads. Compactions with their texts,
// sorted, cost a turn at 300 twice as much.
func (s *Store) PagedCalls(ctx context.Context, sessionID string, segment int) (map[string]bool, error) {
	ids, err := list(ctx, s.w, "paged calls", scanOne[string], qPagedCalls, sessionID, segment)
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		out[id] = true
	}
	return out, err
}

// SetSegmentPrefix keeps the prefix (JSON) a segment was first sent with.
func (s *Store) SetSegmentPrefix(ctx context.Context, sessionID string, seq int, prefix string) error {
	return s.update(ctx, "set segment prefix", fmt.Sprintf("no segment %d in session %q; StartSegment first", seq, sessionID),
		qSetSegmentPrefix, prefix, sessionID, seq)
}

// SegmentPrefix returns the prefix kept for a segment, "" when none was.
// It reads on the writer, as Decisions does.
func (s *Store) SegmentPrefix(ctx context.Context, sessionID string, seq int) (string, error) {
	var p string
	err := s.w.QueryRowContext(ctx, qSegmentPrefix, sessionID, seq).Scan(&p)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return p, wrap("segment prefix", err)
}
