package godwit_test

import (
	"context"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godwit/godwit"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/fake"
)

func open(t *testing.T, p godwit.Provider) *godwit.Agent {
	t.Helper()
	a, err := godwit.Open(context.Background(), godwit.Options{Workspace: t.TempDir(), Home: t.TempDir(), Provider: p})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// echoModel answers each request with the last user message, upper-cased.
func echoModel() *fake.Provider {
	return fake.NewFunc(func(req llm.Request) fake.Step {
		for i := len(req.Messages) - 1; i >= 0; i-- {
			if req.Messages[i].Role == llm.RoleUser {
				return fake.Step{Text: strings.ToUpper(req.Messages[i].Text())}
			}
		}
		return fake.Step{Text: "?"}
	})
}

// TestConcurrentSessionsGetOnlyTheirEvents starts several new sessions
// at once: each must see its own events and nobody else's.
func TestConcurrentSessionsGetOnlyTheirEvents(t *testing.T) {
	a := open(t, echoModel())
	const n = 6
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := a.NewSession()
			prompt := fmt.Sprintf("message %d", i)
			var events []godwit.Event
			res, err := s.Send(context.Background(), prompt, func(e godwit.Event) { events = append(events, e) })
			if err != nil {
				t.Error(err)
				return
			}
			if res.Text != strings.ToUpper(prompt) || s.ID() == "" || res.SessionID != s.ID() {
				t.Errorf("session %d: %+v, id %q", i, res, s.ID())
			}
			if len(events) == 0 || events[0].Type != godwit.EventSessionStarted || events[len(events)-1].Type != godwit.EventTurnFinished {
				t.Errorf("session %d: events %v", i, types(events))
			}
			for _, e := range events {
				if e.SessionID != s.ID() {
					t.Errorf("session %d got an event of %s", i, e.SessionID)
				}
			}
		}()
	}
	wg.Wait()
}

// TestFirstTurnsOfNewSessionsOverlap: two new sessions' first turns run
// at once. The model answers the first request only once the second has
// arrived, so turns that waited for each other would never end; and each
// session's onEvent gets its own turn's events, whole, and no others.
func TestFirstTurnsOfNewSessionsOverlap(t *testing.T) {
	var (
		mu      sync.Mutex
		n       int
		arrived = make(chan struct{})
	)
	model := fake.NewFunc(func(req llm.Request) fake.Step {
		mu.Lock()
		n++
		me := n
		mu.Unlock()
		switch me {
		case 1:
			select {
			case <-arrived:
			case <-time.After(30 * time.Second): // a deadlock guard, not a timing assertion
				t.Error("the second session's request never came while the first's waited: the first turns did not overlap")
			}
		case 2:
			close(arrived)
		}
		return fake.Step{Text: "re: " + req.Messages[len(req.Messages)-1].Text()}
	})
	a := open(t, model)
	sessions := []*godwit.Session{a.NewSession(), a.NewSession()}
	events := make([][]godwit.Event, 2)
	var wg sync.WaitGroup
	for i, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := s.Send(context.Background(), fmt.Sprintf("session %d", i), func(e godwit.Event) { events[i] = append(events[i], e) })
			if err != nil {
				t.Error(err)
			}
			if want := fmt.Sprintf("re: session %d", i); res.Text != want {
				t.Errorf("session %d answered %q, want %q", i, res.Text, want)
			}
		}()
	}
	wg.Wait()
	if sessions[0].ID() == "" || sessions[0].ID() == sessions[1].ID() {
		t.Fatalf("ids %q and %q", sessions[0].ID(), sessions[1].ID())
	}
	for i, s := range sessions {
		got := strings.Join(types(events[i]), " ")
		// "session 0" may be kept as a rule (decision.kept) before the request.
		if !strings.HasPrefix(got, "session.started turn.started ") || !strings.Contains(got, " model.request ") || !strings.HasSuffix(got, "turn.finished") {
			t.Errorf("session %d: events %s", i, got)
		}
		for _, e := range events[i] {
			if e.SessionID != s.ID() {
				t.Errorf("session %d (%s) got a %s of session %s", i, s.ID(), e.Type, e.SessionID)
			}
		}
	}
}

// TestOnEventIsCalledOneAtATime: the calls of one response run in
// parallel, but onEvent, which appends here without a lock, hears their
// events one at a time (the race detector checks it).
func TestOnEventIsCalledOneAtATime(t *testing.T) {
	ws := t.TempDir()
	for _, name := range []string{"a.txt", "b.txt", "c.txt"} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(name+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	model := fake.New(
		fake.Step{ToolCalls: []llm.ToolCall{
			fake.Call("a", "file_read", map[string]string{"path": "a.txt"}),
			fake.Call("b", "file_read", map[string]string{"path": "b.txt"}),
			fake.Call("c", "file_read", map[string]string{"path": "c.txt"}),
		}},
		fake.Step{Text: "read them"},
	)
	a, err := godwit.Open(context.Background(), godwit.Options{Workspace: ws, Home: t.TempDir(), Provider: model})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var events []godwit.Event
	if _, err := a.NewSession().Send(context.Background(), "read the files", func(e godwit.Event) { events = append(events, e) }); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range events {
		if e.Type == godwit.EventToolFinished {
			n++
		}
	}
	if n != 3 {
		t.Errorf("%d tool.finished events, want 3: %v", n, types(events))
	}
}

func types(evs []godwit.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return out
}

func TestStreamEndsWithTheTurnError(t *testing.T) {
	a := open(t, fake.New(fake.Step{Err: &llm.Error{Kind: llm.KindAuth, Message: "bad key"}}))
	var last error
	var seen []string
	for ev, err := range a.NewSession().Stream(context.Background(), "hi") {
		if err != nil {
			last = err
			continue
		}
		seen = append(seen, ev.Type)
	}
	if last == nil || !strings.Contains(last.Error(), "bad key") {
		t.Errorf("last error = %v", last)
	}
	if len(seen) == 0 || seen[len(seen)-1] != godwit.EventTurnFinished {
		t.Errorf("events = %v", seen)
	}
}

func TestBreakingOutOfStreamCancelsTheTurn(t *testing.T) {
	block := fake.NewFunc(func(llm.Request) fake.Step {
		return fake.Step{ToolCalls: []llm.ToolCall{fake.Call("c", "file_list", nil)}}
	})
	a := open(t, stall{block})
	s := a.NewSession()
	for ev := range s.Stream(context.Background(), "list forever") {
		if ev.Type == godwit.EventToolFinished {
			break
		}
	}
	// Stream returns once the turn has ended; had it not been
	// cancelled, the second request would never have been answered.
	if n := len(block.Requests()); n > 2 {
		t.Errorf("the model was asked %d times after the loop broke", n)
	}
}

// stall holds each request after the first until the turn is cancelled,
// so the turn cannot outrun the loop that breaks out of it.
type stall struct{ *fake.Provider }

func (s stall) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	if len(s.Requests()) > 0 {
		<-ctx.Done()
	}
	return s.Provider.Stream(ctx, req)
}

func TestOpenNeedsAWorkspace(t *testing.T) {
	_, err := godwit.Open(context.Background(), godwit.Options{Home: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "Workspace is required") {
		t.Errorf("err = %v", err)
	}
}

// TestAgentReportsModelAndWorkspace: an embedder shows what it opened,
// so the workspace comes back absolute and free of symlinks, and the
// model as "provider/model".
func TestAgentReportsModelAndWorkspace(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "ws")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	a, err := godwit.Open(context.Background(), godwit.Options{Workspace: link, Home: t.TempDir(), Model: "mine/m1", Provider: echoModel()})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	want, err := filepath.EvalSymlinks(real)
	if err != nil {
		t.Fatal(err)
	}
	if a.Workspace() != want || a.Model() != "mine/m1" {
		t.Errorf("Workspace() = %q, Model() = %q; want %q, %q", a.Workspace(), a.Model(), want, "mine/m1")
	}
}

func TestResumeUnknownSession(t *testing.T) {
	a := open(t, echoModel())
	if _, err := a.Resume(context.Background(), "nope"); err == nil || !strings.Contains(err.Error(), "no session") {
		t.Errorf("err = %v", err)
	}
}

// TestIDIsKnownFromTheFirstEvent: a caller may ask for the id while the
// first turn streams.
func TestIDIsKnownFromTheFirstEvent(t *testing.T) {
	a := open(t, echoModel())
	s := a.NewSession()
	n := 0
	for ev, err := range s.Stream(context.Background(), "hi") {
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 && (ev.Type != godwit.EventSessionStarted || s.ID() == "" || s.ID() != ev.SessionID) {
			t.Errorf("first event %s: id %q, event's %q", ev.Type, s.ID(), ev.SessionID)
		}
		n++
	}
}

func TestModeGovernsWrites(t *testing.T) {
	for _, tc := range []struct {
		mode  godwit.Mode
		wrote bool
	}{{godwit.ReadOnly, false}, {godwit.Auto, true}} {
		t.Run(tc.mode.String(), func(t *testing.T) {
			ws := t.TempDir()
			calls := 0 // the end-of-turn checks may ask once more after "done"
			model := fake.NewFunc(func(llm.Request) fake.Step {
				calls++
				if calls == 1 {
					return fake.Step{ToolCalls: []llm.ToolCall{fake.Call("w", "file_write", map[string]string{"path": "new.txt", "content": "x\n"})}}
				}
				return fake.Step{Text: "done"}
			})
			a, err := godwit.Open(context.Background(), godwit.Options{Workspace: ws, Home: t.TempDir(), Provider: model, Mode: tc.mode})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			if _, err := a.NewSession().Send(context.Background(), "write it", nil); err != nil {
				t.Fatal(err)
			}
			_, statErr := os.Stat(filepath.Join(ws, "new.txt"))
			if wrote := statErr == nil; wrote != tc.wrote {
				t.Errorf("wrote = %v, want %v", wrote, tc.wrote)
			}
		})
	}
}
