package store

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/godwit/godwit/llm"
)

func TestTurns(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	sess := newSession(t, s, "")
	other := newSession(t, s, "")

	t1, err := s.StartTurn(ctx, sess.ID, "first", 0)
	if err != nil {
		t.Fatal(err)
	}
	t2, _ := s.StartTurn(ctx, sess.ID, "second", 1)
	o1, _ := s.StartTurn(ctx, other.ID, "elsewhere", 0)
	if t1.Seq != 1 || t2.Seq != 2 || o1.Seq != 1 {
		t.Fatalf("seqs = %d, %d, %d; want 1, 2 and 1 (per session)", t1.Seq, t2.Seq, o1.Seq)
	}
	if t1.Status != TurnRunning || t1.StartedAt.IsZero() || !t1.EndedAt.IsZero() || t1.SessionID != sess.ID || t2.Segment != 1 {
		t.Fatalf("started turn = %+v", t1)
	}

	fin := t1
	fin.Status, fin.Usage, fin.Cost, fin.Error = TurnFailed, llm.Usage{InputTokens: 9, OutputTokens: 3, ReasoningTokens: 2, CacheReadTokens: 4, CacheWriteTokens: 1}, 0.125, "boom"
	if err := s.FinishTurn(ctx, fin); err != nil {
		t.Fatal(err)
	}
	turns, err := s.Turns(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) != 2 {
		t.Fatalf("Turns = %d, want 2", len(turns))
	}
	got := turns[0]
	if got.Status != TurnFailed || got.Usage != fin.Usage || got.Cost != 0.125 || got.Error != "boom" || got.EndedAt.IsZero() || got.Prompt != "first" {
		t.Errorf("finished turn = %+v", got)
	}

	for _, c := range []struct {
		name string
		turn Turn
		want string
		is   error
	}{
		{"unknown status", Turn{ID: t2.ID, Status: "ok"}, "unknown status", nil},
		{"running is not an end", Turn{ID: t2.ID, Status: TurnRunning}, "unknown status", nil},
		{"missing turn", Turn{ID: 9999, Status: TurnDone}, "store: finish turn: no turn 9999", ErrNotFound},
	} {
		err := s.FinishTurn(ctx, c.turn)
		if err == nil || !strings.Contains(err.Error(), c.want) || (c.is != nil && !errors.Is(err, c.is)) {
			t.Errorf("%s: FinishTurn = %v, want %q", c.name, err, c.want)
		}
	}
}

func TestMarkInterrupted(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	a, b := newSession(t, s, "a"), newSession(t, s, "b")
	done, _ := s.StartTurn(ctx, a.ID, "1", 0)
	done.Status = TurnDone
	if err := s.FinishTurn(ctx, done); err != nil {
		t.Fatal(err)
	}
	s.StartTurn(ctx, a.ID, "2", 0)
	s.StartTurn(ctx, b.ID, "1", 0)

	n, err := s.MarkInterrupted(ctx, a.ID)
	if err != nil || n != 1 {
		t.Fatalf("MarkInterrupted(a) = %d, %v; want 1", n, err)
	}
	turns, _ := s.Turns(ctx, a.ID)
	if turns[0].Status != TurnDone || turns[1].Status != TurnInterrupted || turns[1].EndedAt.IsZero() || turns[1].Error == "" {
		t.Errorf("after MarkInterrupted: %+v", turns)
	}
	if n, _ := s.MarkInterrupted(ctx, a.ID); n != 0 {
		t.Errorf("second MarkInterrupted(a) = %d, want 0", n)
	}
	if bt, _ := s.Turns(ctx, b.ID); bt[0].Status != TurnRunning {
		t.Errorf("session b's turn was touched: %+v", bt[0])
	}
	if n, _ := s.MarkInterrupted(ctx, ""); n != 1 {
		t.Errorf("MarkInterrupted(all) = %d, want 1 (b's turn)", n)
	}
}

func TestSegments(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	sess := newSession(t, s, "")
	if err := s.StartSegment(ctx, sess.ID, 0, "start"); err != nil {
		t.Fatal(err)
	}
	if err := s.EndSegment(ctx, sess.ID, 0, "## Current task\nfix Add", 42); err != nil {
		t.Fatal(err)
	}
	if err := s.StartSegment(ctx, sess.ID, 1, "budget"); err != nil {
		t.Fatal(err)
	}
	if err := s.StartSegment(ctx, sess.ID, 1, "again"); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("duplicate StartSegment = %v", err)
	}
	if err := s.EndSegment(ctx, sess.ID, 7, "x", 1); !errors.Is(err, ErrNotFound) {
		t.Errorf("EndSegment of a missing segment = %v, want ErrNotFound", err)
	}
	segs, err := s.Segments(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) != 2 {
		t.Fatalf("Segments = %+v", segs)
	}
	if g := segs[0]; g.Seq != 0 || g.Reason != "start" || g.Handoff != "## Current task\nfix Add" || g.Tokens != 42 || g.EndedAt.IsZero() || g.StartedAt.IsZero() {
		t.Errorf("segment 0 = %+v", g)
	}
	if g := segs[1]; g.Seq != 1 || g.Reason != "budget" || !g.EndedAt.IsZero() {
		t.Errorf("segment 1 = %+v", g)
	}
}
