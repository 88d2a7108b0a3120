package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
)

// What only the tests read or write.

const qUpdateSession = `UPDATE sessions SET title = ?, model = ?, updated_at = max(updated_at, ?) WHERE id = ?`

// UpdateSession sets the title and model of session sess.ID and moves its
// UpdatedAt forward to sess.UpdatedAt (now, when zero).
func (s *Store) UpdateSession(ctx context.Context, sess Session) error {
	return s.update(ctx, "update session", fmt.Sprintf("no session %q", sess.ID), qUpdateSession,
		sess.Title, sess.Model, s.stamp(sess.UpdatedAt).UnixMilli(), sess.ID)
}

// SchemaVersion reports the number of migrations applied.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := s.r.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
	return v, err
}

// MemoryEntries returns the entries of one scope, workspace and kind, in
// the order they were given.
func (s *Store) MemoryEntries(ctx context.Context, scope, workspace, kind string) ([]MemoryEntry, error) {
	return memoryEntries(ctx, s.r, scope, workspace, kind)
}

// Hydrate puts back the texts MessagesEliding left out of ms, as the
// engine does with Outputs.
func (s *Store) Hydrate(ctx context.Context, ms []StoredMessage) error {
	for j := range ms {
		m := &ms[j]
		for i, id := range m.results() {
			if !slices.Contains(m.Elided, i) {
				continue
			}
			texts, err := s.Outputs(ctx, []int64{id})
			if err != nil {
				return err
			}
			r := *m.Message.Parts[i].ToolResult
			r.Content = texts[id]
			m.Message.Parts[i].ToolResult = &r
		}
		m.Elided = nil
	}
	return nil
}

// Approvals returns a session's approval decisions in order.
func (s *Store) Approvals(ctx context.Context, sessionID string) ([]Approval, error) {
	return list(ctx, s.r, "approvals", scanRow[Approval], `SELECT session_id, coalesce(turn_id, 0), call_id, tool, subject, decision, source, rule, at
FROM approvals WHERE session_id = ? ORDER BY id`, sessionID)
}

// EvalResults returns the newest results first, at most limit (all when
// limit <= 0), of one suite or, when suite is empty, of every suite.
func (s *Store) EvalResults(ctx context.Context, suite string, limit int) ([]EvalResult, error) {
	return list(ctx, s.r, "eval results", scanRow[EvalResult], `SELECT suite, name, model, coalesce(session_id, ''), passed, score, input_tokens, output_tokens, cost, duration_us, coalesce(details, ''), started_at
FROM eval_results WHERE (? = '' OR suite = ?) ORDER BY id DESC LIMIT ?`, suite, suite, cmp.Or(limit, -1))
}

// EvalVerdicts returns the newest verdicts first, at most limit (all when
// limit <= 0).
func (s *Store) EvalVerdicts(ctx context.Context, limit int) ([]EvalVerdict, error) {
	return list(ctx, s.r, "eval verdicts", scanRow[EvalVerdict], `SELECT a, b, why, passed, summary, coalesce(details, ''), created_at
FROM eval_verdicts ORDER BY id DESC LIMIT ?`, cmp.Or(limit, -1))
}
