package store

import (
	"context"
	"fmt"
	"time"

	"github.com/godwit/godwit/llm"
)

// TurnStatus says how a turn ended, or that it is still running.
type TurnStatus string

const (
	TurnRunning   TurnStatus = "running"
	TurnDone      TurnStatus = "done"
	TurnFailed    TurnStatus = "failed"
	TurnCancelled TurnStatus = "cancelled"
	// TurnInterrupted: the process died during the turn (MarkInterrupted).
	TurnInterrupted TurnStatus = "interrupted"
)

// Turn is one user prompt and everything done to answer it.
type Turn struct {
	ID        int64
	SessionID string
	Seq       int // 1, 2, ... within the session
	Segment   int
	Prompt    string
	Status    TurnStatus
	StartedAt time.Time
	EndedAt   time.Time
	Usage     llm.Usage
	Cost      float64
	Error     string
}

// StartTurn records a running turn numbered after the session's last one.
func (s *Store) StartTurn(ctx context.Context, sessionID, prompt string, segment int) (Turn, error) {
	t, err := scanRow[Turn](s.w.QueryRowContext(ctx, qStartTurn, sessionID, segment, prompt, s.now().UnixMilli()))
	if err != nil {
		return Turn{}, wrap("start turn in session "+sessionID, err)
	}
	return t, nil
}

// FinishTurn records how turn t.ID ended: Status, EndedAt (now when zero),
// Usage, Cost and Error. Other fields are ignored.
func (s *Store) FinishTurn(ctx context.Context, t Turn) error {
	switch t.Status {
	case TurnDone, TurnFailed, TurnCancelled, TurnInterrupted:
	default:
		return fmt.Errorf("store: finish turn %d: unknown status %q (want done, failed, cancelled or interrupted)", t.ID, t.Status)
	}
	u := t.Usage
	return s.update(ctx, "finish turn", fmt.Sprintf("no turn %d", t.ID), qFinishTurn,
		string(t.Status), s.stamp(t.EndedAt).UnixMilli(),
		u.InputTokens, u.OutputTokens, u.ReasoningTokens, u.CacheReadTokens, u.CacheWriteTokens,
		t.Cost, t.Error, t.ID)
}

// MarkInterrupted marks the session's turns still "running" as
// "interrupted" (a process died during them) and returns how many there
// were. An empty sessionID marks those of every session; do that only
// when no other process can be running a turn.
func (s *Store) MarkInterrupted(ctx context.Context, sessionID string) (int, error) {
	res, err := s.w.ExecContext(ctx, qMarkInterrupted, sessionID, s.now().UnixMilli())
	if err != nil {
		return 0, wrap("mark interrupted turns", err)
	}
	n, err := res.RowsAffected()
	return int(n), wrap("mark interrupted turns", err)
}

// Turns returns the session's turns in order.
func (s *Store) Turns(ctx context.Context, sessionID string) ([]Turn, error) {
	return list(ctx, s.r, "turns", scanRow[Turn], qTurns, sessionID)
}

// Segment is one context window of a session. It ends with the handoff
// that opens the next one.
type Segment struct {
	SessionID string
	Seq       int
	StartedAt time.Time
	EndedAt   time.Time
	// Reason says why the segment started ("start", "budget",
	// "context_too_long", "reset", ...); the caller chooses the words.
	Reason  string
	Handoff string
	// Tokens is the size of the handoff, as the caller counted it.
	Tokens int
}

// StartSegment records the start of segment seq of the session.
func (s *Store) StartSegment(ctx context.Context, sessionID string, seq int, reason string) error {
	_, err := s.w.ExecContext(ctx, qStartSegment, sessionID, seq, s.now().UnixMilli(), reason)
	return wrap(fmt.Sprintf("start segment %d of session %s", seq, sessionID), err)
}

// EndSegment records the end of a segment and the handoff it produced;
// the handoff becomes searchable.
func (s *Store) EndSegment(ctx context.Context, sessionID string, seq int, handoff string, tokens int) error {
	return s.update(ctx, "end segment", fmt.Sprintf("no segment %d in session %q; StartSegment first", seq, sessionID),
		qEndSegment, s.now().UnixMilli(), handoff, tokens, sessionID, seq)
}

// Segments returns the session's segments in order.
func (s *Store) Segments(ctx context.Context, sessionID string) ([]Segment, error) {
	return list(ctx, s.r, "segments", scanRow[Segment], qSegments, sessionID)
}
