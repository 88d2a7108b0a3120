package store

import (
	"context"
	"errors"
	"time"
)

// EvalResult is one run of one eval task (table eval_results).
type EvalResult struct {
	Suite string
	Name  string // the task id
	Model string
	// SessionID is set only when the session lives in this store (eval
	// runs use a store of their own, so it is usually empty).
	SessionID    string
	Passed       bool
	Score        float64
	InputTokens  int64
	OutputTokens int64
	Cost         float64
	Duration     time.Duration
	// Details is the run's full result as JSON.
	Details   string
	StartedAt time.Time
}

// EvalVerdict is one comparison of two eval result sets (table
// eval_verdicts).
type EvalVerdict struct {
	// A and B say what was compared (file, model, godwit version).
	A, B string
	// Why is the reason the comparison was made, as the user gave it.
	Why     string
	Passed  bool
	Summary string
	// Details is the whole verdict as JSON.
	Details   string
	CreatedAt time.Time
}

// RecordEvalResult stores r (StartedAt now when zero) and returns its id.
func (s *Store) RecordEvalResult(ctx context.Context, r EvalResult) (int64, error) {
	if r.Suite == "" || r.Name == "" {
		return 0, errors.New("store: record eval result: Suite and Name are required; set the task's suite and id")
	}
	return s.insert(ctx, "record eval result", qRecordEvalResult, r.Suite, r.Name, r.Model, null(r.SessionID),
		r.Passed, r.Score, r.InputTokens, r.OutputTokens, r.Cost, r.Duration.Microseconds(), null(r.Details),
		s.stamp(r.StartedAt).UnixMilli())
}

// RecordEvalVerdict stores v (CreatedAt now when zero) and returns its id.
func (s *Store) RecordEvalVerdict(ctx context.Context, v EvalVerdict) (int64, error) {
	if v.A == "" || v.B == "" {
		return 0, errors.New("store: record eval verdict: A and B are required; say what was compared")
	}
	return s.insert(ctx, "record eval verdict", qRecordEvalVerdict, v.A, v.B, v.Why, v.Passed, v.Summary,
		null(v.Details), s.stamp(v.CreatedAt).UnixMilli())
}
