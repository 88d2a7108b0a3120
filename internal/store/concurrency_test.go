package store

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/godwit/godwit/llm"
)

// Many goroutines write to one store, and read while they do; every write
// lands once and turn numbers stay dense.
func TestConcurrentWriters(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	shared := newSession(t, s, "shared")
	const workers, each = 8, 8
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			own := Session{ID: fmt.Sprintf("own%02d", w)}
			if err := s.CreateSession(ctx, own); err != nil {
				errs <- err
				return
			}
			for i := range each {
				turn, err := s.StartTurn(ctx, shared.ID, "p", 0)
				if err != nil {
					errs <- err
					continue
				}
				if _, err := s.AppendMessage(ctx, shared.ID, turn.ID, 0, llm.UserText(fmt.Sprintf("w%d i%d", w, i))); err != nil {
					errs <- err
				}
				if _, err := s.RecordToolCall(ctx, ToolCall{SessionID: own.ID, Name: "file_read", Output: "x"}); err != nil {
					errs <- err
				}
				if _, err := s.AppendEvent(ctx, Event{SessionID: own.ID, Type: "tick"}); err != nil {
					errs <- err
				}
				turn.Status = TurnDone
				if err := s.FinishTurn(ctx, turn); err != nil {
					errs <- err
				}
				if _, err := s.Events(ctx, own.ID); err != nil {
					errs <- err
				}
				if _, err := s.In("/w").Search(ctx, "", "w1", 3); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	turns, err := s.Turns(ctx, shared.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) != workers*each {
		t.Fatalf("shared session has %d turns, want %d", len(turns), workers*each)
	}
	for i, turn := range turns {
		if turn.Seq != i+1 || turn.Status != TurnDone {
			t.Fatalf("turn %d: seq %d status %s; want dense seqs, all done", i, turn.Seq, turn.Status)
		}
	}
	if msgs, _ := s.Messages(ctx, shared.ID, -1); len(msgs) != workers*each {
		t.Errorf("%d messages, want %d", len(msgs), workers*each)
	}
	for w := range workers {
		id := fmt.Sprintf("own%02d", w)
		tcs, _ := s.ToolCalls(ctx, id)
		evs, _ := s.Events(ctx, id)
		if len(tcs) != each || len(evs) != each {
			t.Errorf("session %s: %d tool calls, %d events; want %d each", id, len(tcs), len(evs), each)
		}
	}
}

// Two stores on one file stand in for two processes: their writes
// interleave through SQLite's locks instead of failing with SQLITE_BUSY.
func TestTwoStoresOneFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "godwit.db")
	var stores [2]*Store
	for i := range stores {
		s, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stores[i] = s
	}
	if err := stores[0].CreateSession(ctx, Session{ID: "both"}); err != nil {
		t.Fatal(err)
	}
	const each = 30
	var wg sync.WaitGroup
	errs := make(chan error, 2*each)
	for _, s := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				turn, err := s.StartTurn(ctx, "both", "p", 0)
				if err != nil {
					errs <- err
					continue
				}
				if _, err := s.AppendMessage(ctx, "both", turn.ID, 0, llm.UserText("hello")); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	turns, _ := stores[1].Turns(ctx, "both")
	if len(turns) != 2*each || turns[len(turns)-1].Seq != 2*each {
		t.Errorf("%d turns, last seq %d; want %d dense", len(turns), turns[len(turns)-1].Seq, 2*each)
	}
}
