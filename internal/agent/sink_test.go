package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/fake"
	"github.com/godwit/godwit/tool"
)

// rendezvous is a scripted model whose first request waits until the
// second has arrived: two turns that could not overlap would never
// answer. It fails the test rather than hang when that happens.
func rendezvous(t *testing.T) *fake.Provider {
	var (
		mu      sync.Mutex
		n       int
		arrived = make(chan struct{})
	)
	return fake.NewFunc(func(req llm.Request) fake.Step {
		mu.Lock()
		n++
		me := n
		mu.Unlock()
		prompt := req.Messages[len(req.Messages)-1].Text()
		switch me {
		case 1:
			select {
			case <-arrived:
			case <-time.After(30 * time.Second): // a deadlock guard, not a timing assertion
				t.Error("the second turn's request never came while the first waited: turns of two sessions did not overlap")
			}
		case 2:
			close(arrived)
		}
		return fake.Step{Text: "re: " + prompt}
	})
}

// TestConcurrentRunsEachGetTheirOwnEvents: two new sessions' first
// turns on one Runtime overlap (the model answers neither until it has
// both requests), and each run's sink gets its own events, whole, and no
// others.
func TestConcurrentRunsEachGetTheirOwnEvents(t *testing.T) {
	h := newHarness(t, nil)
	rt := h.runtime(func(c *agent.Config) { c.Provider = rendezvous(t) })
	var wg sync.WaitGroup
	results := make([]agent.Result, 2)
	recs := []*agent.Recorder{{}, {}}
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := rt.Run(context.Background(), agent.RunInput{Prompt: fmt.Sprintf("session %d", i), Sink: recs[i], NoChecks: true})
			if err != nil {
				t.Error(err)
			}
			results[i] = res
		}()
	}
	wg.Wait()
	for i, rec := range recs {
		evs := rec.Events()
		got := types(evs)
		want := "session.started turn.started decision.kept model.request text.delta model.response turn.finished"
		if strings.Join(got, " ") != want {
			t.Errorf("run %d: events %v\nwant %s", i, got, want)
		}
		for _, e := range evs {
			if e.SessionID != results[i].SessionID {
				t.Errorf("run %d (session %s) got a %s of session %s", i, results[i].SessionID, e.Type, e.SessionID)
			}
		}
		if fin := rec.OfType(agent.EventTurnFinished); len(fin) == 1 && fin[0].Finished.Text != fmt.Sprintf("re: session %d", i) {
			t.Errorf("run %d answered %q", i, fin[0].Finished.Text)
		}
	}
	if results[0].SessionID == results[1].SessionID {
		t.Errorf("both runs in session %s", results[0].SessionID)
	}
}

// TestNoEventsAfterRunReturns: a tool goroutine that reports progress
// after its call (and the run) ended reaches nobody, so a caller may
// close what its sink writes to as soon as Run returns.
func TestNoEventsAfterRunReturns(t *testing.T) {
	h := newHarness(t, []fake.Step{{ToolCalls: []llm.ToolCall{fake.Call("l", "late", nil)}}, {Text: "done"}})
	release, reported := make(chan struct{}), make(chan struct{})
	h.tools = append(h.tools, &tool.Func{ToolSpec: llm.ToolSpec{Name: "late"},
		Fn: func(ctx context.Context, _ json.RawMessage) (tool.Result, error) {
			go func() {
				<-release
				tool.ReportProgress(ctx, tool.Progress{Progress: 1, Message: "too late"})
				close(reported)
			}()
			return tool.Result{Content: "started"}, nil
		}})
	rt := h.runtime()
	var mu sync.Mutex
	ended := false
	var late []string
	sink := agent.SinkFunc(func(e agent.Event) {
		mu.Lock()
		defer mu.Unlock()
		if ended {
			late = append(late, e.Type)
		}
	})
	if _, err := rt.Run(context.Background(), agent.RunInput{Prompt: "go", Sink: sink, NoChecks: true}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	ended = true
	mu.Unlock()
	close(release)
	<-reported
	mu.Lock()
	defer mu.Unlock()
	if len(late) > 0 {
		t.Errorf("the sink got %v after Run returned", late)
	}
}
