package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/godwit/godwit/internal/store"
)

// AppendLedger appends v as one JSON line to the ledger file at path,
// creating the file (and its folder) when needed.
func AppendLedger(path string, v *Verdict) error {
	line, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("eval: ledger: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("eval: ledger: %w", err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("eval: ledger: %w", err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("eval: ledger: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("eval: ledger: %w", err)
	}
	return nil
}

// RecordVerdict stores v in the store's verdict table.
func RecordVerdict(ctx context.Context, st *store.Store, v *Verdict) error {
	details, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	_, err = st.RecordEvalVerdict(ctx, store.EvalVerdict{
		A: describeSide(v.A), B: describeSide(v.B), Why: v.Why, Passed: v.Pass, Summary: v.Summary,
		Details: string(details), CreatedAt: v.Time,
	})
	return err
}

func describeSide(s Side) string {
	return fmt.Sprintf("%s (%s, godwit %s)", s.Name, s.Model, s.Godwit)
}

// RecordRuns stores every run of r in the store's eval_results table.
func RecordRuns(ctx context.Context, st *store.Store, r *Results) error {
	for _, run := range r.Runs {
		details, err := json.Marshal(run)
		if err != nil {
			return fmt.Errorf("eval: %w", err)
		}
		suite, name := splitKey(run.Task)
		score := 0.0
		if run.Pass {
			score = 1
		}
		_, err = st.RecordEvalResult(ctx, store.EvalResult{
			Suite: suite, Name: name, Model: run.Model, Passed: run.Pass, Score: score,
			InputTokens: run.InputTokens, OutputTokens: run.OutputTokens, Cost: run.Cost,
			Duration: time.Duration(run.DurationMS) * time.Millisecond, Details: string(details), StartedAt: r.Started,
		})
		if err != nil {
			return err
		}
	}
	return nil
}
