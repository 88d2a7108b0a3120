package store

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// t0 is the fake clock's start; every reading moves it on by a millisecond
// so that stamps are distinct and ordered.
var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

func fakeClock() func() time.Time {
	var n atomic.Int64
	return func() time.Time { return t0.Add(time.Duration(n.Add(1)) * time.Millisecond) }
}

func openTest(t testing.TB) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "godwit.db"), WithClock(fakeClock()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

// newSession creates a session with the given id (a fresh one when "").
func newSession(t testing.TB, s *Store, id string) Session {
	t.Helper()
	if id == "" {
		id = NewID()
	}
	sess := Session{ID: id, Title: "title " + id, Workspace: "/w", Model: "fake/m"}
	if err := s.CreateSession(context.Background(), sess); err != nil {
		t.Fatal(err)
	}
	got, err := s.Session(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestOpenTwiceMigratesOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sub", "dir", "godwit.db")
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		s, err := Open(ctx, path)
		if err != nil {
			t.Fatalf("open #%d: %v", i+1, err)
		}
		v, err := s.SchemaVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if v != len(ms) {
			t.Errorf("open #%d: schema version %d, want %d", i+1, v, len(ms))
		}
		if i == 0 {
			if err := s.CreateSession(ctx, Session{ID: "keep"}); err != nil {
				t.Fatal(err)
			}
		} else if _, err := s.Session(ctx, "keep"); err != nil {
			t.Errorf("session lost across reopen: %v", err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestOpenSettings(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	for _, c := range []struct {
		pragma string
		want   string
	}{
		{"journal_mode", "wal"},
		{"foreign_keys", "1"},
		{"busy_timeout", "5000"},
		{"synchronous", "1"}, // NORMAL
	} {
		var got string
		if err := s.w.QueryRowContext(ctx, "PRAGMA "+c.pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("writer PRAGMA %s = %s, want %s", c.pragma, got, c.want)
		}
	}
	// The read pool must refuse writes.
	if _, err := s.r.ExecContext(ctx, "INSERT INTO sessions (id, created_at, updated_at) VALUES ('x', 1, 1)"); err == nil {
		t.Error("read pool accepted a write")
	}
	// FTS5 is compiled in (the schema would not have applied otherwise,
	// but say so plainly).
	var n int
	if err := s.r.QueryRowContext(ctx, "SELECT sqlite_compileoption_used('ENABLE_FTS5')").Scan(&n); err != nil || n != 1 {
		t.Errorf("FTS5 not available: %d, %v", n, err)
	}
}

func TestOpenErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	for _, c := range []struct {
		name, path, want string
	}{
		{"empty", "", "empty database path"},
		{"question mark", filepath.Join(dir, "a?b", "x.db"), "contains '?'"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Open(ctx, c.path)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Open(%q) = %v, want error containing %q", c.path, err, c.want)
			}
		})
	}

	t.Run("newer schema", func(t *testing.T) {
		path := filepath.Join(dir, "newer.db")
		s, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.w.ExecContext(ctx, "PRAGMA user_version = 999"); err != nil {
			t.Fatal(err)
		}
		s.Close()
		_, err = Open(ctx, path)
		if err == nil || !strings.Contains(err.Error(), "upgrade godwit") {
			t.Fatalf("Open of a newer schema = %v, want an error saying to upgrade", err)
		}
	})
}

func TestMigrationFilesNumbered(t *testing.T) {
	t.Parallel()
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) == 0 {
		t.Fatal("no migrations embedded")
	}
	for i, m := range ms {
		if m.version != i+1 || strings.TrimSpace(m.sql) == "" {
			t.Errorf("migration %d: %s version %d, %d bytes", i, m.name, m.version, len(m.sql))
		}
	}
}

func TestWrapExplainsForeignKeys(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	_, err := s.StartTurn(context.Background(), "no-such-session", "hi", 0)
	if err == nil || !strings.Contains(err.Error(), "does not exist (create it first)") {
		t.Fatalf("StartTurn in a missing session = %v, want a foreign-key explanation", err)
	}
	if errors.Is(err, ErrNotFound) {
		t.Error("a constraint failure should not look like a plain miss")
	}
}

// A full disk is a clear error callers can branch on, and what was
// written before stays readable.
func TestDiskFull(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	sess := newSession(t, s, "")
	// max_page_count makes SQLite report SQLITE_FULL as a full disk would.
	if _, err := s.w.ExecContext(ctx, "PRAGMA max_page_count = 1"); err != nil {
		t.Fatal(err)
	}
	var err error
	big := strings.Repeat("x", 64<<10)
	for i := 0; i < 50 && err == nil; i++ {
		_, err = s.AppendEvent(ctx, Event{SessionID: sess.ID, Type: "big", Data: []byte(`"` + big + `"`)})
	}
	if !errors.Is(err, ErrDiskFull) || !strings.Contains(err.Error(), "free some space") {
		t.Fatalf("write on a full disk: %v; want ErrDiskFull saying what to do", err)
	}
	if _, err := s.Session(ctx, sess.ID); err != nil {
		t.Errorf("the session recorded before is not readable: %v", err)
	}
}
