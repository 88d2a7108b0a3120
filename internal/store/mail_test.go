package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func receiptStates(t *testing.T, s *Store, id int64) string {
	t.Helper()
	rs, err := s.Receipts(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rs {
		st := r.State
		if r.Turn > 0 {
			st += fmt.Sprintf("@%d", r.Turn)
		}
		out = append(out, st)
	}
	return strings.Join(out, " ")
}

func post(t *testing.T, s *Store, to, from, body string) Mail {
	t.Helper()
	kind := FromProgram
	if from == "user" {
		kind = FromUser
	}
	m, err := s.PostMail(context.Background(), Mail{To: to, FromKind: kind, From: from, Body: body})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func ids(ms []Mail) string {
	var out []string
	for _, m := range ms {
		out = append(out, fmt.Sprintf("m%d", m.ID))
	}
	return strings.Join(out, " ")
}

func TestMailLifecycle(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	target := newSession(t, s, "target")
	a := post(t, s, target.ID, "user", "first")
	b := post(t, s, target.ID, "ci", "second")
	if a.State != MailQueued || a.ID == 0 || a.CreatedAt.IsZero() {
		t.Fatalf("posted %+v", a)
	}
	if ok, _ := s.Claimable(ctx, target.ID); !ok {
		t.Fatal("nothing claimable after posting")
	}
	got, err := s.ClaimMail(ctx, target.ID, "1/x", 0)
	if err != nil || ids(got) != ids([]Mail{a, b}) || got[0].State != MailDelivered || got[0].ClaimedBy != "1/x" {
		t.Fatalf("claim = %+v, %v", got, err)
	}
	if again, _ := s.ClaimMail(ctx, target.ID, "2/y", 0); len(again) != 0 {
		t.Fatalf("claimed twice: %+v", again)
	}
	turn, err := s.StartTurn(ctx, target.ID, "", 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.MailInTurn(ctx, []int64{a.ID, b.ID}, turn.ID); err != nil {
		t.Fatal(err)
	}
	done, err := s.FinishMail(ctx, []int64{a.ID, b.ID}, MailAnswered, "both done")
	if err != nil || len(done) != 2 {
		t.Fatalf("finish = %+v, %v", done, err)
	}
	m, err := s.MailByID(ctx, a.ID)
	if err != nil || m.State != MailAnswered || m.Answer != "both done" || m.Turn != 1 || m.TurnID != turn.ID {
		t.Fatalf("answered message = %+v, %v", m, err)
	}
	if got := receiptStates(t, s, a.ID); got != "queued delivered@1 answered@1" {
		t.Errorf("receipts = %s", got)
	}
	// A finished message is not finished again.
	if again, _ := s.FinishMail(ctx, []int64{a.ID}, MailFailed, "late"); len(again) != 0 {
		t.Errorf("finished twice: %+v", again)
	}
	if _, err := s.MailByID(ctx, 999); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing message: %v", err)
	}
	box, _ := s.Mailbox(ctx, target.ID, 0)
	if ids(box) != ids([]Mail{b, a}) {
		t.Errorf("mailbox = %s", ids(box))
	}
	for _, bad := range []Mail{{FromKind: FromUser, From: "user", Body: "x"}, {To: target.ID, FromKind: "robot", Body: "x"}, {To: target.ID, FromKind: FromUser, Body: " "}} {
		if _, err := s.PostMail(ctx, bad); err == nil {
			t.Errorf("posted %+v", bad)
		}
	}
	if _, err := s.PostMail(ctx, Mail{To: "nobody", FromKind: FromUser, From: "user", Body: "x"}); err == nil {
		t.Error("posted to a session that does not exist")
	}
}

func TestMailBarrier(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	target := newSession(t, s, "target")
	first := post(t, s, target.ID, "ci", "step 1")
	claimed, _ := s.ClaimMail(ctx, target.ID, "1/x", 0)
	turn, _ := s.StartTurn(ctx, target.ID, "", 1)
	s.MailInTurn(ctx, []int64{claimed[0].ID}, turn.ID)
	second := post(t, s, target.ID, "ci", "step 2") // arrives during the turn
	other := post(t, s, target.ID, "user", "unrelated")
	if _, err := s.FinishMail(ctx, []int64{first.ID}, MailFailed, "the model call failed"); err != nil {
		t.Fatal(err)
	}
	got, _ := s.ClaimMail(ctx, target.ID, "1/x", 0)
	if ids(got) != ids([]Mail{other}) {
		t.Fatalf("claimed %s; want only the other sender's %s", ids(got), ids([]Mail{other}))
	}
	held, ok, err := s.HeldBy(ctx, second)
	if err != nil || !ok || held.ID != first.ID || held.Error != "the model call failed" {
		t.Fatalf("held by %+v %v %v", held, ok, err)
	}
	if ok, _ := s.Claimable(ctx, target.ID); ok {
		t.Error("a held message counts as claimable")
	}
	if _, ok, _ := s.AckMail(ctx, second.ID, "user"); ok {
		t.Error("acknowledged a message that did not fail")
	}
	if _, ok, err := s.AckMail(ctx, first.ID, "acknowledged by the user"); !ok || err != nil {
		t.Fatalf("ack: %v %v", ok, err)
	}
	if _, ok, _ := s.AckMail(ctx, first.ID, "again"); ok {
		t.Error("acknowledged twice")
	}
	got, _ = s.ClaimMail(ctx, target.ID, "1/x", 0)
	if ids(got) != ids([]Mail{second}) {
		t.Fatalf("after the ack claimed %s", ids(got))
	}
	if got := receiptStates(t, s, first.ID); got != "queued delivered@1 failed@1 acknowledged@1" {
		t.Errorf("receipts = %s", got)
	}
}

func TestMailRecoveryAndExpiry(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	target := newSession(t, s, "target")
	a := post(t, s, target.ID, "ci", "a")
	b := post(t, s, target.ID, "ci2", "b")
	s.ClaimMail(ctx, target.ID, "7/dead", 0)
	turn, _ := s.StartTurn(ctx, target.ID, "", 1)
	s.MailInTurn(ctx, []int64{b.ID}, turn.ID)
	claims, err := s.Claims(ctx, target.ID)
	if err != nil || ids(claims) != ids([]Mail{a, b}) || claims[1].Turn != 1 {
		t.Fatalf("claims = %+v, %v", claims, err)
	}
	// Only the owner's claim is changed, once.
	if _, ok, _ := s.RequeueMail(ctx, a.ID, "8/other", "x"); ok {
		t.Error("requeued another process's claim")
	}
	if m, ok, _ := s.RequeueMail(ctx, a.ID, "7/dead", "its process died"); !ok || m.State != MailQueued || m.ClaimedBy != "" {
		t.Errorf("requeue: %+v %v", m, ok)
	}
	if m, ok, _ := s.FailClaim(ctx, b.ID, "7/dead", "the process died in turn 1"); !ok || m.State != MailFailed {
		t.Errorf("fail claim: %+v %v", m, ok)
	}
	if _, ok, _ := s.FailClaim(ctx, b.ID, "7/dead", "again"); ok {
		t.Error("failed twice")
	}
	if got := receiptStates(t, s, a.ID); got != "queued requeued" {
		t.Errorf("requeued receipts = %s", got)
	}
	if m, ok, _ := s.ExpireMail(ctx, a.ID, "the sender stopped waiting"); !ok || m.State != MailExpired {
		t.Errorf("expire: %+v %v", m, ok)
	}
	if _, ok, _ := s.ExpireMail(ctx, b.ID, "x"); ok {
		t.Error("expired a failed message")
	}
}

func TestResidents(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	sess := newSession(t, s, "target")
	alive := map[string]bool{"1/a": true}
	isAlive := func(o string) bool { return alive[o] }
	if _, err := s.AcquireResident(ctx, Resident{SessionID: sess.ID, Owner: "1/a", PID: 1, Command: "serve"}, isAlive); err != nil {
		t.Fatal(err)
	}
	holder, err := s.AcquireResident(ctx, Resident{SessionID: sess.ID, Owner: "2/b", PID: 2, Command: "chat"}, isAlive)
	if !errors.Is(err, ErrResident) || holder.PID != 1 || !strings.Contains(err.Error(), "serve (pid 1)") {
		t.Fatalf("second resident: %+v %v", holder, err)
	}
	list, _ := s.ListSessions(ctx, 0)
	if list[0].ResidentOwner != "1/a" {
		t.Errorf("listed resident %q", list[0].ResidentOwner)
	}
	alive["1/a"] = false // it died: the next process takes over
	if _, err := s.AcquireResident(ctx, Resident{SessionID: sess.ID, Owner: "2/b", PID: 2, Command: "chat"}, isAlive); err != nil {
		t.Fatal(err)
	}
	s.ReleaseResident(ctx, sess.ID, "1/a") // not its row any more
	if r, ok, _ := s.ResidentOf(ctx, sess.ID); !ok || r.Owner != "2/b" {
		t.Errorf("resident = %+v %v", r, ok)
	}
	s.ReleaseResident(ctx, sess.ID, "2/b")
	if _, ok, _ := s.ResidentOf(ctx, sess.ID); ok {
		t.Error("released resident still listed")
	}
	post(t, s, sess.ID, "user", "x")
	list, _ = s.ListSessions(ctx, 0)
	if list[0].Queued != 1 || list[0].ResidentOwner != "" {
		t.Errorf("listed %d queued, resident %q", list[0].Queued, list[0].ResidentOwner)
	}
}

// Several stores over one file stand for several processes: ten senders
// post twenty messages each while three claimers take them; every
// message is claimed exactly once.
func TestConcurrentClaimsAcrossConnections(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "godwit.db")
	ctx := context.Background()
	open := func() *Store {
		s, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	first := open()
	target := newSession(t, first, "target")
	const senders, each, claimers = 10, 20, 3
	var wg sync.WaitGroup
	errs := make(chan error, senders*each+claimers)
	for i := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := open()
			for j := range each {
				if _, err := s.PostMail(ctx, Mail{To: target.ID, FromKind: FromProgram, From: fmt.Sprintf("p%d", i), Body: fmt.Sprintf("%d.%d", i, j)}); err != nil {
					errs <- err
				}
			}
		}()
	}
	var mu sync.Mutex
	seen := map[int64]string{}
	stop := make(chan struct{})
	var cw sync.WaitGroup
	for c := range claimers {
		cw.Add(1)
		go func() {
			defer cw.Done()
			s := open()
			owner := fmt.Sprintf("%d/c", c)
			for {
				// Whether the senders were done is read before the claim:
				// an empty claim made after they were sees every message.
				var done bool
				select {
				case <-stop:
					done = true
				default:
				}
				got, err := s.ClaimMail(ctx, target.ID, owner, 7)
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				for _, m := range got {
					if prev, dup := seen[m.ID]; dup {
						errs <- fmt.Errorf("m%d claimed by %s and %s", m.ID, prev, owner)
					}
					seen[m.ID] = owner
				}
				mu.Unlock()
				if len(got) == 0 {
					if done {
						return
					}
					time.Sleep(time.Millisecond) // as a resident waits between claims
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	cw.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if len(seen) != senders*each {
		t.Errorf("%d messages claimed, want %d", len(seen), senders*each)
	}
}

func TestWatchSeesOtherConnections(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "godwit.db")
	ctx := context.Background()
	a, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	w, err := a.NewWatch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ch, _ := w.Changed(ctx); ch {
		t.Error("changed before any write")
	}
	newSession(t, b, "x")
	if ch, _ := w.Changed(ctx); !ch {
		t.Error("another connection's commit went unseen")
	}
	if ch, _ := w.Changed(ctx); ch {
		t.Error("changed twice for one commit")
	}
	newSession(t, a, "y") // this process's writer is another connection too
	if ch, _ := w.Changed(ctx); !ch {
		t.Error("the writer's commit went unseen")
	}
}

// BenchmarkWatchChanged is what an idle resident pays per poll.
func BenchmarkWatchChanged(b *testing.B) {
	s, err := Open(context.Background(), filepath.Join(b.TempDir(), "godwit.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	w, err := s.NewWatch(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := w.Changed(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
