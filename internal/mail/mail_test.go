package mail_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/goldentest"
	"github.com/godwit/godwit/internal/mail"
	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/window"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/fake"
	"github.com/godwit/godwit/tool"
)

const poll = 5 * time.Millisecond

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "godwit.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func session(t *testing.T, st *store.Store, workspace string) string {
	t.Helper()
	id := store.NewID()
	ctx := context.Background()
	if err := st.CreateSession(ctx, store.Session{ID: id, Workspace: workspace, Title: "s " + id[len(id)-4:]}); err != nil {
		t.Fatal(err)
	}
	if err := st.StartSegment(ctx, id, 1, "start"); err != nil {
		t.Fatal(err)
	}
	return id
}

// runtime is an engine over a scripted model and no tools.
func runtime(t *testing.T, st *store.Store, p llm.Provider) *agent.Runtime {
	t.Helper()
	reg, _ := tool.NewRegistry()
	rt, err := agent.New(agent.Config{Provider: p, Model: "scripted", Store: st, Workspace: "/w",
		Assembler: window.New(window.Options{System: "sys"}), Runner: tool.NewRunner(reg, tool.RunnerOptions{})})
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

func runWith(rt *agent.Runtime, id string) mail.RunFunc {
	return func(ctx context.Context, ms []store.Mail) (agent.Result, error) {
		return rt.Run(ctx, agent.RunInput{SessionID: id, Mail: ms, NoChecks: true})
	}
}

// lastUser is the text of a request's last user message.
func lastUser(req llm.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == llm.RoleUser {
			return req.Messages[i].Text()
		}
	}
	return ""
}

func TestServeMergesWhatArrivesDuringATurn(t *testing.T) {
	st := openStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	id := session(t, st, "/w")
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	p := fake.NewFunc(func(req llm.Request) fake.Step {
		if strings.Contains(lastUser(req), "slow") {
			started <- struct{}{}
			<-release
		}
		return fake.Step{Text: "answered: " + lastUser(req)}
	})
	box, err := mail.Open(ctx, st, id, mail.Options{Command: "test", Poll: poll})
	if err != nil {
		t.Fatal(err)
	}
	defer box.Close()
	done := make(chan error, 1)
	go func() { done <- mail.Serve(ctx, box, runWith(runtime(t, st, p), id), mail.ServeOptions{}) }()

	first, err := mail.Post(ctx, st, mail.Program("ci"), id, "slow one")
	if err != nil {
		t.Fatal(err)
	}
	<-started
	var later []store.Mail
	for i := range 3 {
		pm, err := mail.Post(ctx, st, mail.Program(fmt.Sprintf("p%d", i)), id, fmt.Sprintf("quick %d", i))
		if err != nil {
			t.Fatal(err)
		}
		later = append(later, pm.Mail)
	}
	close(release)
	for _, m := range append([]store.Mail{first.Mail}, later...) {
		got, err := mail.Await(ctx, st, m.ID, mail.AwaitOptions{FollowOptions: mail.FollowOptions{Poll: poll}, Timeout: time.Minute}) // a hang guard
		if err != nil {
			t.Fatalf("m%d: %v", m.ID, err)
		}
		want := 1
		if m.ID != first.Mail.ID {
			want = 2
		}
		if got.Turn != want {
			t.Errorf("m%d answered in turn %d, want %d", m.ID, got.Turn, want)
		}
	}
	reqs := p.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2 (one turn each)", len(reqs))
	}
	text := lastUser(reqs[1])
	for _, m := range later {
		if !strings.Contains(text, fmt.Sprintf("[m%d from program p", m.ID)) {
			t.Errorf("the merged turn lacks m%d:\n%s", m.ID, text)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve: %v", err)
	}
}

func TestOneResidentAtATime(t *testing.T) {
	st := openStore(t)
	ctx := context.Background()
	id := session(t, st, "/w")
	// Another live process (our parent stands for it) holds the session.
	other := fmt.Sprintf("%d/", os.Getppid())
	if _, err := st.AcquireResident(ctx, store.Resident{SessionID: id, Owner: other, PID: os.Getppid(), Command: "serve"}, mail.Alive); err != nil {
		t.Fatal(err)
	}
	if _, err := mail.Open(ctx, st, id, mail.Options{Command: "chat"}); !errors.Is(err, store.ErrResident) || !strings.Contains(err.Error(), "godwit send "+id) {
		t.Errorf("a second resident: %v", err)
	}
	st.ReleaseResident(ctx, id, other)
	// Within this process a newer box takes over, and the older one's
	// Close leaves the newer one's hold alone.
	a, err := mail.Open(ctx, st, id, mail.Options{Command: "acp"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := mail.Open(ctx, st, id, mail.Options{Command: "acp"})
	if err != nil {
		t.Fatalf("a newer box in the same process: %v", err)
	}
	a.Close()
	if r, ok, _ := st.ResidentOf(ctx, id); !ok || r.PID != os.Getpid() {
		t.Errorf("resident after the older box closed: %+v %v", r, ok)
	}
	b.Close()
	if r, ok, _ := st.ResidentOf(ctx, id); ok {
		t.Errorf("resident after the newer box closed: %+v", r)
	}
}

// deadOwner names a process that is not running.
const deadOwner = "2147483000/1"

func TestRecoverDeadClaims(t *testing.T) {
	st := openStore(t)
	ctx := context.Background()
	id := session(t, st, "/w")
	notStarted, _ := mail.Post(ctx, st, mail.User(), id, "a")
	midTurn, _ := mail.Post(ctx, st, mail.Program("ci"), id, "b")
	ms, _ := st.ClaimMail(ctx, id, deadOwner, 0)
	if len(ms) != 2 || mail.Alive(deadOwner) || !mail.Alive(mail.Self()) {
		t.Fatalf("claimed %d; alive(dead)=%v alive(self)=%v", len(ms), mail.Alive(deadOwner), mail.Alive(mail.Self()))
	}
	turn, _ := st.StartTurn(ctx, id, "", 1)
	st.MailInTurn(ctx, []int64{midTurn.Mail.ID}, turn.ID)

	// The waiting sender learns of the death without anyone restarting
	// the session.
	got, err := mail.Await(ctx, st, midTurn.Mail.ID, mail.AwaitOptions{FollowOptions: mail.FollowOptions{Poll: poll}, Timeout: time.Minute}) // a hang guard
	if err == nil || got.State != store.MailFailed || !strings.Contains(got.Error, "died before the turn answered") {
		t.Fatalf("await: %+v %v", got, err)
	}
	// Opening the session requeues the claim whose turn never started.
	box, err := mail.Open(ctx, st, id, mail.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer box.Close()
	m, _ := st.MailByID(ctx, notStarted.Mail.ID)
	if m.State != store.MailQueued {
		t.Errorf("unstarted claim is %s, want queued", m.State)
	}
	evs, _ := st.Events(ctx, id)
	var types []string
	for _, e := range evs {
		types = append(types, e.Type)
	}
	if got := strings.Join(types, " "); got != "mail.sent mail.sent mail.failed mail.requeued" {
		t.Errorf("timeline = %s", got)
	}
	// A claim of a live process is left alone.
	st.ClaimMail(ctx, id, mail.Self(), 0)
	if changed, _ := mail.Recover(ctx, st, id); len(changed) != 0 {
		t.Errorf("recovered a live claim: %+v", changed)
	}
}

func TestAwaitTimeoutExpiresAndHeld(t *testing.T) {
	st := openStore(t)
	ctx := context.Background()
	id := session(t, st, "/w")
	p, _ := mail.Post(ctx, st, mail.Program("ci"), id, "nobody serves this")
	got, err := mail.Await(ctx, st, p.Mail.ID, mail.AwaitOptions{FollowOptions: mail.FollowOptions{Poll: poll}, Timeout: 50 * time.Millisecond, Expire: true})
	if err == nil || got.State != store.MailExpired {
		t.Fatalf("await with expire: %+v %v", got, err)
	}
	q, _ := mail.Post(ctx, st, mail.Program("ci"), id, "still queued")
	if _, err := mail.Await(ctx, st, q.Mail.ID, mail.AwaitOptions{Timeout: 20 * time.Millisecond}); !errors.Is(err, mail.ErrTimeout) {
		t.Errorf("await without expire: %v", err)
	}

	// A failure holds the sender's later messages.
	ms, _ := st.ClaimMail(ctx, id, mail.Self(), 0)
	turn, _ := st.StartTurn(ctx, id, "", 1)
	st.MailInTurn(ctx, []int64{ms[0].ID}, turn.ID)
	st.FinishMail(ctx, []int64{ms[0].ID}, store.MailFailed, "boom")
	r, err := mail.Post(ctx, st, mail.Program("ci"), id, "next step")
	if err != nil || r.HeldBy == nil || r.HeldBy.ID != q.Mail.ID {
		t.Fatalf("post behind a failure: %+v %v", r, err)
	}
	if _, err := mail.Await(ctx, st, r.Mail.ID, mail.AwaitOptions{}); !errors.Is(err, mail.ErrHeld) || !strings.Contains(err.Error(), "godwit send --ack m") {
		t.Errorf("await a held message: %v", err)
	}
	if _, err := mail.Ack(ctx, st, r.Mail.ID, "user"); err == nil {
		t.Error("acknowledged a queued message")
	}
	if _, err := mail.Ack(ctx, st, q.Mail.ID, "user"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := st.Claimable(ctx, id); !ok {
		t.Error("the ack released nothing")
	}
}

func TestPostRefuses(t *testing.T) {
	st := openStore(t)
	ctx := context.Background()
	id := session(t, st, "/w")
	child := store.NewID()
	st.CreateSession(ctx, store.Session{ID: child, ParentID: id})
	for _, tc := range []struct {
		from      mail.Sender
		to, body  string
		wantError string
	}{
		{mail.User(), id, "  ", "empty message"},
		{mail.User(), id, strings.Repeat("x", mail.MaxBody+1), "write it to a file"},
		{mail.Program("bad name!"), id, "x", "use letters"},
		{mail.User(), "zzz", "x", "godwit sessions"},
		{mail.User(), child, "x", "sub-agent"},
		{mail.FromSession(id), id, "x", "itself"},
	} {
		if _, err := mail.Post(ctx, st, tc.from, tc.to, tc.body); err == nil || !strings.Contains(err.Error(), tc.wantError) {
			t.Errorf("post %+v to %s: %v, want %q", tc.from, tc.to, err, tc.wantError)
		}
	}
	for _, s := range []string{"m12", "12", " M3 "} {
		if _, err := mail.ParseID(s); err != nil {
			t.Errorf("ParseID(%q): %v", s, err)
		}
	}
	if _, err := mail.ParseID("x12"); err == nil {
		t.Error("ParseID(x12) passed")
	}
}

func call(t *testing.T, tl *mail.Tool, session string, args any) (tool.Result, error) {
	t.Helper()
	raw, _ := json.Marshal(args)
	ctx := tool.WithSession(context.Background(), tool.Session{ID: session})
	return tl.Run(ctx, raw)
}

func TestTool(t *testing.T) {
	st := openStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sup, worker, elsewhere := session(t, st, "/w"), session(t, st, "/w"), session(t, st, "/other")
	p := fake.NewFunc(func(req llm.Request) fake.Step {
		if strings.Contains(lastUser(req), "explode") {
			return fake.Step{Err: &llm.Error{Kind: llm.KindBadRequest, Message: "model refused"}}
		}
		return fake.Step{Text: "done: " + lastUser(req)[strings.LastIndex(lastUser(req), "\n")+1:]}
	})
	box, err := mail.Open(ctx, st, worker, mail.Options{Poll: poll})
	if err != nil {
		t.Fatal(err)
	}
	defer box.Close()
	go mail.Serve(ctx, box, runWith(runtime(t, st, p), worker), mail.ServeOptions{})
	tl := mail.NewTool(mail.ToolOptions{Store: st, Workspace: "/w", Poll: poll})

	res, err := call(t, tl, sup, map[string]any{"to": worker[:12], "text": "port parser.go", "wait": true})
	if err != nil || !strings.Contains(res.Content, "answered by session "+worker) || !strings.Contains(res.Content, "done: port parser.go") {
		t.Fatalf("send and wait: %q %v", res.Content, err)
	}
	res, err = call(t, tl, sup, map[string]any{"to": worker, "text": "explode"})
	if err != nil || !strings.Contains(res.Content, "queued for session "+worker) {
		t.Fatalf("send: %q %v", res.Content, err)
	}
	failedID := res.Content[:strings.IndexByte(res.Content, ' ')]
	res, _ = call(t, tl, sup, map[string]any{"action": "wait", "id": failedID})
	if !strings.Contains(res.Content, "failed in session") || !strings.Contains(res.Content, "model refused") {
		t.Fatalf("wait on a failure: %q", res.Content)
	}
	res, _ = call(t, tl, sup, map[string]any{"to": worker, "text": "after the failure"})
	if !strings.Contains(res.Content, "held: your "+failedID) {
		t.Errorf("send behind a failure: %q", res.Content)
	}
	heldID := res.Content[:strings.IndexByte(res.Content, ' ')]
	if _, err := call(t, tl, worker, map[string]any{"action": "ack", "id": failedID}); err == nil {
		t.Error("another session acknowledged sup's failure")
	}
	res, err = call(t, tl, sup, map[string]any{"action": "ack", "id": failedID})
	if err != nil || !strings.Contains(res.Content, "acknowledged") {
		t.Fatalf("ack: %q %v", res.Content, err)
	}
	res, _ = call(t, tl, sup, map[string]any{"action": "wait", "id": heldID, "timeout_s": 60})
	if !strings.Contains(res.Content, "done: after the failure") {
		t.Errorf("the held message after the ack: %q", res.Content)
	}
	res, _ = call(t, tl, sup, map[string]any{"action": "receipts"})
	if strings.Count(res.Content, "\n") != 2 || !strings.Contains(res.Content, failedID+" to "+worker+": failed (turn 2)") {
		t.Errorf("receipts list:\n%s", res.Content)
	}
	res, _ = call(t, tl, sup, map[string]any{"action": "receipts", "id": failedID})
	for _, want := range []string{"queued", "delivered (turn 2)", "failed (turn 2): model refused", "acknowledged (turn 2): by session " + sup} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("receipts of %s lack %q:\n%s", failedID, want, res.Content)
		}
	}

	for _, tc := range []struct {
		args any
		code string
	}{
		{map[string]any{"to": elsewhere, "text": "x"}, tool.CodeDenied},
		{map[string]any{"to": "nope", "text": "x"}, tool.CodeNotFound},
		{map[string]any{"to": worker}, tool.CodeBadArgs},
		{map[string]any{"action": "wait"}, tool.CodeBadArgs},
		{map[string]any{"action": "fly"}, tool.CodeBadArgs},
		{map[string]any{"action": "wait", "id": "m99999"}, tool.CodeNotFound},
		{map[string]any{"to": sup, "text": "me"}, tool.CodeFailed},
	} {
		if _, err := call(t, tl, sup, tc.args); tool.AsToolError(err).Code != tc.code {
			t.Errorf("%v: %v, want %s", tc.args, err, tc.code)
		}
	}
	// The user may allow other workspaces.
	wide := mail.NewTool(mail.ToolOptions{Store: st, Workspace: "/w", Allow: []string{"/other"}})
	if _, err := call(t, wide, sup, map[string]any{"to": elsewhere, "text": "x"}); err != nil {
		t.Errorf("an allowed workspace: %v", err)
	}

	// Sending is put to the approval policy like a write; waiting is not.
	acc, err := tl.Access(json.RawMessage(`{"to":"abc","text":"rm -rf vendor\nnow"}`))
	if err != nil || !acc.Mutates || acc.Summary != "message session abc: rm -rf vendor …" {
		t.Errorf("send access = %+v, %v", acc, err)
	}
	if acc, _ := tl.Access(json.RawMessage(`{"action":"wait","id":"m1"}`)); acc.Mutates {
		t.Error("wait asks for approval")
	}
}

// Concurrent tool calls of one supervisor: two sends and two waits in
// parallel, as the runner runs one response's calls.
func TestToolConcurrentWaits(t *testing.T) {
	st := openStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sup := session(t, st, "/w")
	var workers []string
	for range 2 {
		w := session(t, st, "/w")
		workers = append(workers, w)
		box, err := mail.Open(ctx, st, w, mail.Options{Poll: poll})
		if err != nil {
			t.Fatal(err)
		}
		defer box.Close()
		p := fake.NewFunc(func(req llm.Request) fake.Step { return fake.Step{Text: w + " did it"} })
		go mail.Serve(ctx, box, runWith(runtime(t, st, p), w), mail.ServeOptions{})
	}
	tl := mail.NewTool(mail.ToolOptions{Store: st, Workspace: "/w", Poll: poll})
	var wg sync.WaitGroup
	out := make([]string, 2)
	for i, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := call(t, tl, sup, map[string]any{"to": w, "text": "task", "wait": true, "timeout_s": 60})
			if err != nil {
				t.Error(err)
			}
			out[i] = res.Content
		}()
	}
	wg.Wait()
	for i, w := range workers {
		if !strings.Contains(out[i], w+" did it") {
			t.Errorf("worker %d's answer: %q", i, out[i])
		}
	}
}

// TestToolSpecSize pins what send_message costs where it is offered: its
// one-line listing (it is deferred by default) and its schema once used.
func TestToolSpecSize(t *testing.T) {
	spec := mail.NewTool(mail.ToolOptions{}).Spec()
	if !json.Valid(spec.Schema) {
		t.Fatalf("schema is not JSON: %s", spec.Schema)
	}
	whole, _ := json.Marshal(spec)
	got := fmt.Sprintf("%s description=%d schema=%d tokens=%d\n", spec.Name, len(spec.Description), len(spec.Schema), window.NewCounter().Count(string(whole)))
	goldentest.Check(t, "spec_size.golden", []byte(got))
}

// A session answering another's message does not block waiting on it:
// the other may be waiting for this very answer.
func TestToolRefusesAWaitThatWouldDeadlock(t *testing.T) {
	st := openStore(t)
	ctx := context.Background()
	sup, worker := session(t, st, "/w"), session(t, st, "/w")
	p, _ := mail.Post(ctx, st, mail.FromSession(sup), worker, "do it")
	ms, _ := st.ClaimMail(ctx, worker, mail.Self(), 0)
	turn, _ := st.StartTurn(ctx, worker, "", 1)
	st.MailInTurn(ctx, []int64{ms[0].ID}, turn.ID)
	tl := mail.NewTool(mail.ToolOptions{Store: st, Workspace: "/w", Poll: poll})
	raw, _ := json.Marshal(map[string]any{"to": sup, "text": "which branch?", "wait": true})
	tctx := tool.WithSession(ctx, tool.Session{ID: worker, TurnID: turn.ID})
	done := make(chan tool.Result, 1)
	go func() {
		res, _ := tl.Run(tctx, raw)
		done <- res
	}()
	select {
	case res := <-done:
		if !strings.Contains(res.Content, "Not waiting: this turn answers "+mail.ID(p.Mail.ID)) {
			t.Errorf("result: %q", res.Content)
		}
	case <-time.After(30 * time.Second): // a hang guard, not a timing assertion
		t.Fatal("the tool blocked waiting on the session whose message it answers")
	}
	if q, _ := st.QueuedAfter(ctx, sup, 0, 10); len(q) != 1 {
		t.Errorf("the question was not queued: %+v", q)
	}
}

// A prefix or "last" resolves across every workspace; what it finds in
// another, and the ids an ambiguous prefix lists, stay out of the
// model's view: the answer is the same as for no session at all.
func TestToolKeepsOtherWorkspacesIDs(t *testing.T) {
	st := openStore(t)
	sup := session(t, st, "/w")
	var others []string
	for range 3 {
		others = append(others, session(t, st, "/other"))
	}
	tl := mail.NewTool(mail.ToolOptions{Store: st, Workspace: "/w"})
	for _, to := range []string{"last", others[2][:len(others[2])-1], others[0][:1]} {
		res, err := call(t, tl, sup, map[string]any{"to": to, "text": "x"})
		te := tool.AsToolError(err)
		if te == nil || te.Code != tool.CodeNotFound {
			t.Errorf("to %q: %q, %v; want NOT_FOUND", to, res.Content, err)
			continue
		}
		for _, id := range others {
			if strings.Contains(te.Message+te.Remedy, id) {
				t.Errorf("to %q shows another workspace's session %s: %s", to, id, te.Message)
			}
		}
	}
}
