package store

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/godwit/godwit/llm"
)

func TestNewID(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile(`^[0-9a-hjkmnp-tv-z]{18}$`)
	seen := map[string]bool{}
	for range 1000 {
		id := NewID()
		if !re.MatchString(id) {
			t.Fatalf("NewID() = %q, want 18 lower-case Crockford base32 characters", id)
		}
		if seen[id] {
			t.Fatalf("NewID() repeated %q", id)
		}
		seen[id] = true
	}
	first := NewID()
	time.Sleep(2 * time.Millisecond)
	if later := NewID(); later[:10] <= first[:10] {
		t.Errorf("time prefix does not sort: %q then %q", first, later)
	}
}

func TestSessionRoundTrip(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	created := time.Date(2026, 1, 2, 3, 4, 5, 6_000_000, time.UTC)
	parent := newSession(t, s, "parent")
	want := Session{ID: "child", ParentID: parent.ID, Title: "fix the bug", Workspace: "/src/x", Model: "openai/gpt-5",
		CreatedAt: created, UpdatedAt: created}
	if err := s.CreateSession(ctx, want); err != nil {
		t.Fatal(err)
	}
	got, err := s.Session(ctx, "child")
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("Session = %+v\nwant %+v", got, want)
	}

	if err := s.CreateSession(ctx, want); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("second CreateSession = %v, want already exists", err)
	}
	if err := s.CreateSession(ctx, Session{}); err == nil || !strings.Contains(err.Error(), "NewID") {
		t.Errorf("CreateSession without ID = %v, want a hint to use NewID", err)
	}
	if err := s.CreateSession(ctx, Session{ID: "orphan", ParentID: "nobody"}); err == nil {
		t.Error("CreateSession with a missing parent succeeded")
	}

	// Update moves title and model; updated_at only forward.
	upd := got
	upd.Title, upd.Model, upd.UpdatedAt = "renamed", "anthropic/claude", created.Add(time.Hour)
	if err := s.UpdateSession(ctx, upd); err != nil {
		t.Fatal(err)
	}
	back := upd
	back.UpdatedAt = created // earlier than stored: must not move it back
	if err := s.UpdateSession(ctx, back); err != nil {
		t.Fatal(err)
	}
	got, _ = s.Session(ctx, "child")
	if got.Title != "renamed" || got.Model != "anthropic/claude" || !got.UpdatedAt.Equal(created.Add(time.Hour)) {
		t.Errorf("after update: %+v", got)
	}
	if err := s.UpdateSession(ctx, Session{ID: "nope"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("UpdateSession(missing) = %v, want ErrNotFound", err)
	}

	// SetTitle renames and keeps the model.
	if err := s.SetTitle(ctx, "child", "fix the parser"); err != nil {
		t.Fatal(err)
	}
	got, _ = s.Session(ctx, "child")
	if got.Title != "fix the parser" || got.Model != "anthropic/claude" {
		t.Errorf("after SetTitle: %+v", got)
	}
	if err := s.SetTitle(ctx, "nope", "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("SetTitle(missing) = %v, want ErrNotFound", err)
	}
}

func TestSessionPrefix(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	for _, id := range []string{"01abc111", "01abc222", "01xyz333"} {
		newSession(t, s, id)
	}
	for _, c := range []struct {
		in      string
		want    string
		wantErr error
		errText string
	}{
		{in: "01abc111", want: "01abc111"},
		{in: "01x", want: "01xyz333"},
		{in: "01XYZ", want: "01xyz333"}, // case-insensitive
		{in: " 01abc2 ", want: "01abc222"},
		{in: "01abc", wantErr: ErrAmbiguous, errText: "01abc111, 01abc222"},
		{in: "01", wantErr: ErrAmbiguous, errText: "type more"},
		{in: "02", wantErr: ErrNotFound, errText: `store: no session "02"; list sessions with`},
		{in: "%", wantErr: ErrNotFound},
		{in: "", errText: "empty id"},
	} {
		got, err := s.Session(ctx, c.in)
		switch {
		case c.want != "":
			if err != nil || got.ID != c.want {
				t.Errorf("Session(%q) = %q, %v; want %q", c.in, got.ID, err, c.want)
			}
		default:
			if err == nil || (c.wantErr != nil && !errors.Is(err, c.wantErr)) || !strings.Contains(err.Error(), c.errText) {
				t.Errorf("Session(%q) error = %v; want %v containing %q", c.in, err, c.wantErr, c.errText)
			}
		}
	}
}

func TestLastSessionAndList(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	if _, err := s.LastSession(ctx); !errors.Is(err, ErrNotFound) {
		t.Fatalf("LastSession on an empty store = %v, want ErrNotFound", err)
	}
	a := newSession(t, s, "aaa")
	b := newSession(t, s, "bbb")
	if last, _ := s.LastSession(ctx); last.ID != b.ID {
		t.Errorf("LastSession = %s, want the newer %s", last.ID, b.ID)
	}
	// Activity in a: a turn, two model calls.
	turn, err := s.StartTurn(ctx, a.ID, "go", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []llm.Usage{{InputTokens: 100, OutputTokens: 10, CacheReadTokens: 50}, {InputTokens: 200, OutputTokens: 20, ReasoningTokens: 5, CacheWriteTokens: 7}} {
		if _, err := s.RecordModelCall(ctx, ModelCall{SessionID: a.ID, TurnID: turn.ID, Usage: u, Cost: 0.25}); err != nil {
			t.Fatal(err)
		}
	}
	if last, _ := s.LastSession(ctx); last.ID != a.ID {
		t.Errorf("LastSession after a turn in %s = %s", a.ID, last.ID)
	}
	// A sub-agent's session, however recent, is not "last".
	// Its times are set past the fake clock's, not from time.Now: CI's
	// clock may read any date.
	later := turn.StartedAt.Add(time.Hour)
	child := Session{ID: NewID(), ParentID: a.ID, CreatedAt: later, UpdatedAt: later}
	if err := s.CreateSession(ctx, child); err != nil {
		t.Fatal(err)
	}
	if last, _ := s.LastSession(ctx); last.ID != a.ID {
		t.Errorf("LastSession = %s, a sub-agent's session; want %s", last.ID, a.ID)
	}

	list, err := s.ListSessions(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	list = slices.DeleteFunc(list, func(x SessionSummary) bool { return x.ParentID != "" })
	if len(list) != 2 || list[0].ID != a.ID || list[1].ID != b.ID {
		t.Fatalf("ListSessions order = %+v, want a then b", list)
	}
	want := llm.Usage{InputTokens: 300, OutputTokens: 30, ReasoningTokens: 5, CacheReadTokens: 50, CacheWriteTokens: 7}
	if got := list[0]; got.Turns != 1 || got.Usage != want || got.Cost != 0.5 || !got.LastActivity.Equal(turn.StartedAt) {
		t.Errorf("summary of a = %+v, want 1 turn, usage %+v, cost 0.5, last activity %v", got, want, turn.StartedAt)
	}
	if got := list[1]; got.Turns != 0 || got.Usage != (llm.Usage{}) || got.Cost != 0 {
		t.Errorf("summary of b = %+v, want empty totals", got)
	}
	if one, _ := s.ListSessions(ctx, 1); len(one) != 1 || one[0].ID != child.ID {
		t.Errorf("ListSessions(1) = %+v, want the newest, the child", one)
	}
}

func TestSessionsOfOneWorkspace(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	mk := func(ws string, at time.Time) Session {
		sess := Session{ID: NewID(), Workspace: ws, CreatedAt: at, UpdatedAt: at}
		if err := s.CreateSession(ctx, sess); err != nil {
			t.Fatal(err)
		}
		return sess
	}
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	a1 := mk("/repo/a", t0)
	b1 := mk("/repo/b", t0.Add(time.Minute))
	a2 := mk("/repo/a", t0.Add(2*time.Minute))
	b2 := mk("/repo/b", t0.Add(3*time.Minute))
	mk("/repo/a/sub", t0.Add(4*time.Minute)) // another workspace, though inside a
	child := Session{ID: NewID(), ParentID: a2.ID, Workspace: "/repo/a", CreatedAt: t0.Add(5 * time.Minute), UpdatedAt: t0.Add(5 * time.Minute)}
	if err := s.CreateSession(ctx, child); err != nil {
		t.Fatal(err)
	}

	for ws, want := range map[string]string{"/repo/a": a2.ID, "/repo/b": b2.ID} {
		if got, err := s.LastSessionIn(ctx, ws); err != nil || got.ID != want {
			t.Errorf("LastSessionIn(%s) = %s, %v; want %s", ws, got.ID, err, want)
		}
	}
	if _, err := s.LastSessionIn(ctx, "/repo/c"); !errors.Is(err, ErrNotFound) {
		t.Errorf("LastSessionIn of a workspace without sessions = %v, want ErrNotFound", err)
	}
	list, err := s.ListSessionsIn(ctx, "/repo/a", 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, x := range list {
		ids = append(ids, x.ID)
	}
	if want := []string{child.ID, a2.ID, a1.ID}; !slices.Equal(ids, want) {
		t.Errorf("ListSessionsIn(/repo/a) = %v, want %v", ids, want)
	}
	if list, _ := s.ListSessionsIn(ctx, "/repo/b", 1); len(list) != 1 || list[0].ID != b2.ID {
		t.Errorf("ListSessionsIn(/repo/b, 1) = %+v", list)
	}
	if all, _ := s.ListSessionsIn(ctx, "", 0); len(all) != 6 || all[len(all)-1].ID != a1.ID {
		t.Errorf("every workspace: %d sessions", len(all))
	}
	_ = b1
}
