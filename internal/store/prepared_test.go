package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestPreparedOnSecondUse: a statement run once on a pool stays
// unprepared; run again it is prepared and kept. One run in a
// transaction is prepared when its second transaction has ended, and
// the next transaction uses it.
func TestPreparedOnSecondUse(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	sess := newSession(t, s, "")
	data, _ := json.Marshal(map[string]string{"output": OutputPlaceholder})
	event := Event{SessionID: sess.ID, Type: "tool.finished", Data: data, Output: strings.Repeat("x", 100), OutputMax: 10}

	cases := []struct {
		name  string
		pool  *db
		query string
		run   func() error
	}{
		{"a read", s.r, qSessionByID, func() error { _, err := s.Session(ctx, sess.ID); return err }},
		{"a write in a transaction", s.w, qAppendEvent, func() error { _, err := s.AppendEvent(ctx, event); return err }},
		{"a read in a transaction", s.w, qOutputByHash, func() error { _, err := s.AppendEvent(ctx, event); return err }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.run(); err != nil {
				t.Fatal(err)
			}
			if err := c.run(); err != nil {
				t.Fatal(err)
			}
			second := c.pool.lookup(c.query)
			if second == nil {
				t.Fatalf("%.40q is not prepared after its second use", c.query)
			}
			if err := c.run(); err != nil {
				t.Fatal(err)
			}
			if again := c.pool.lookup(c.query); again != second {
				t.Errorf("%.40q was prepared again", c.query)
			}
		})
	}
	evs, err := s.Events(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 6 || !strings.Contains(string(evs[5].Data), "xxxxxxxxxx") {
		t.Errorf("events through prepared statements: %d, last %s; want 6 with the preview put back", len(evs), evs[len(evs)-1].Data)
	}
}

// TestPreparedBounded: a statement run once is not prepared; statements
// built at run time past maxPrepared run unprepared, with the same
// results; Close closes every kept statement.
func TestPreparedBounded(t *testing.T) {
	ctx := context.Background()
	raw, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	d := newDB(raw)
	for use := range 2 {
		for i := range maxPrepared + 10 {
			var n int
			if err := d.QueryRowContext(ctx, fmt.Sprintf("SELECT %d + 1", i)).Scan(&n); err != nil || n != i+1 {
				t.Fatalf("SELECT %d + 1 = %d, %v", i, n, err)
			}
		}
		if use == 0 && len(d.stmts) != 0 {
			t.Errorf("%d statements prepared after one use each", len(d.stmts))
		}
	}
	if got := len(d.stmts); got != maxPrepared {
		t.Errorf("%d statements kept, want at most %d", got, maxPrepared)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if len(d.stmts) != 0 || len(d.seen) != 0 {
		t.Errorf("%d statements (%d seen) left after Close", len(d.stmts), len(d.seen))
	}
}

// TestPreparedConcurrent: goroutines preparing the same statement on the
// read pool, and transactions on the writer, keep one statement each
// and deadlock on nothing (the writer's one connection is held by a
// transaction while other goroutines prepare).
func TestPreparedConcurrent(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	sess := newSession(t, s, "")
	data, _ := json.Marshal(map[string]string{"output": OutputPlaceholder})
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for range 20 {
		wg.Go(func() {
			_, err := s.Session(ctx, sess.ID)
			errs <- err
		})
		wg.Go(func() {
			_, err := s.AppendEvent(ctx, Event{SessionID: sess.ID, Type: "x", Data: data, Output: NewID(), OutputMax: 4})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if s.r.lookup(qSessionByID) == nil || s.w.lookup(qPutOutput) == nil {
		t.Error("statements not kept after concurrent use")
	}
}
