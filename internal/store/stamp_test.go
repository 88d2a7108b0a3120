package store

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/godwit/godwit/llm"
)

// TestSessionStamp makes every kind of write a trace can see, one at a
// time, and checks that each moves the session's stamp, that reads and
// other sessions' writes do not, and that the stamp's query never scans.
func TestSessionStamp(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	sess := newSession(t, s, "")
	other := newSession(t, s, "")
	var turn Turn
	steps := []struct {
		name  string
		write func() error
		moves bool
	}{
		{"start a segment", func() error { return s.StartSegment(ctx, sess.ID, 1, "start") }, true},
		{"start a turn", func() (err error) { turn, err = s.StartTurn(ctx, sess.ID, "fix it", 1); return }, true},
		{"append a message", func() error {
			_, err := s.AppendMessage(ctx, sess.ID, turn.ID, 1, llm.Message{Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: "fix it"}}})
			return err
		}, true},
		{"record a model call", func() error {
			_, err := s.RecordModelCall(ctx, ModelCall{SessionID: sess.ID, TurnID: turn.ID, Segment: 1, Step: 1, Provider: "fake", Model: "m"})
			return err
		}, true},
		{"record a tool call", func() error {
			_, err := s.RecordToolCall(ctx, ToolCall{SessionID: sess.ID, TurnID: turn.ID, Step: 1, CallID: "c1", Name: "file_read", Output: "x"})
			return err
		}, true},
		{"append an event", func() error {
			_, err := s.AppendEvent(ctx, Event{SessionID: sess.ID, TurnID: turn.ID, Type: "tool.finished", Data: []byte(`{}`)})
			return err
		}, true},
		{"record a verify run", func() error {
			_, err := s.RecordVerifyRun(ctx, VerifyRun{SessionID: sess.ID, TurnID: turn.ID, Round: 1, Command: "go test ./..."})
			return err
		}, true},
		{"finish the turn", func() error { turn.Status = TurnDone; return s.FinishTurn(ctx, turn) }, true},
		{"end the segment", func() error { return s.EndSegment(ctx, sess.ID, 1, "the handoff", 10) }, true},
		{"open the next segment", func() error { return s.StartSegment(ctx, sess.ID, 2, "budget") }, true},
		{"set the title", func() error { return s.SetTitle(ctx, sess.ID, "a new title") }, true},
		{"change the model", func() error {
			return s.UpdateSession(ctx, Session{ID: sess.ID, Title: "a new title", Model: "fake/other"})
		}, true},
		{"a turn a killed process left running", func() (err error) { _, err = s.StartTurn(ctx, sess.ID, "again", 2); return }, true},
		{"mark it interrupted", func() (err error) { _, err = s.MarkInterrupted(ctx, sess.ID); return }, true},
		{"read the session", func() error {
			_, err := s.ToolCalls(ctx, sess.ID)
			if err == nil {
				_, err = s.Events(ctx, sess.ID)
			}
			return err
		}, false},
		{"write to another session", func() error {
			if _, err := s.StartTurn(ctx, other.ID, "elsewhere", 1); err != nil {
				return err
			}
			_, err := s.AppendEvent(ctx, Event{SessionID: other.ID, Type: "turn.started", Data: []byte(`{}`)})
			return err
		}, false},
		{"store a page", func() error {
			_, err := s.PutPage(ctx, Page{SessionID: sess.ID, Segment: 1, Text: "paged out"})
			return err
		}, false},
	}
	prev, err := s.SessionStamp(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range steps {
		if err := st.write(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		got, err := s.SessionStamp(ctx, sess.ID)
		if err != nil {
			t.Fatalf("stamp after %s: %v", st.name, err)
		}
		if moved := got != prev; moved != st.moves {
			t.Errorf("%s: stamp %q -> %q, moved %v, want %v", st.name, prev, got, moved, st.moves)
		}
		prev = got
	}

	if _, err := s.SessionStamp(ctx, "nosuchsession"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "godwit sessions") {
		t.Errorf("stamp of an unknown session: %v", err)
	}

	// Each part of the stamp is a step down an index: a full scan of a
	// table, or a temporary b-tree to sort a session's rows, would grow
	// with the session.
	rows, err := s.r.QueryContext(ctx, "EXPLAIN QUERY PLAN "+qSessionStamp, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(plan, "\n")
	t.Logf("plan:\n%s", joined)
	for _, bad := range []string{"SCAN ", "TEMP B-TREE"} {
		if strings.Contains(joined, bad) {
			t.Errorf("the stamp's plan has %q:\n%s", bad, joined)
		}
	}
	for _, idx := range []string{"events_session", "tool_calls_session", "model_calls_session", "messages_session", "verify_runs_session"} {
		if !strings.Contains(joined, idx) {
			t.Errorf("the stamp's plan does not use index %s:\n%s", idx, joined)
		}
	}
}
