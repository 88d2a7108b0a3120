package tui

import (
	"context"
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/policy"
)

func TestBridgeMergesDeltasAndKeepsOrder(t *testing.T) {
	b := NewBridge()
	var want strings.Builder
	for i := range 1000 {
		b.Emit(agent.Event{Type: agent.EventTextDelta, Turn: 1, Step: 1, Text: "x"})
		want.WriteString("x")
		if i == 499 {
			b.Emit(agent.Event{Type: agent.EventToolStarted, Turn: 1, Step: 1, Tool: &agent.ToolInfo{CallID: "c"}})
		}
	}
	b.Emit(agent.Event{Type: agent.EventThinkingDelta, Turn: 1, Step: 2, Text: "t"})
	b.Emit(agent.Event{Type: agent.EventTextDelta, Turn: 1, Step: 2, Text: "y"})

	q := b.drain()
	var got []string
	var text strings.Builder
	for _, m := range q {
		e := agent.Event(m.(eventMsg))
		got = append(got, e.Type)
		if e.Type == agent.EventTextDelta && e.Step == 1 {
			text.WriteString(e.Text)
		}
	}
	wantTypes := "text.delta tool.started text.delta thinking.delta text.delta"
	if strings.Join(got, " ") != wantTypes {
		t.Errorf("queued %v, want %s", got, wantTypes)
	}
	if text.String() != want.String() {
		t.Errorf("merged text has %d bytes, want %d: text was lost", text.Len(), want.Len())
	}
	if len(b.drain()) != 0 {
		t.Error("Drain left something behind")
	}
}

func TestBridgeEmitNeverWaitsForTheUI(t *testing.T) {
	b := NewBridge()
	// Nobody drains: Emit must still return (the agent's turn loop calls it).
	for range 100_000 {
		b.Emit(agent.Event{Type: agent.EventToolStarted})
	}
	if n := len(b.drain()); n != 100_000 {
		t.Errorf("kept %d events, want every one", n)
	}
}

func TestBridgeAsk(t *testing.T) {
	b := NewBridge()
	q := policy.Question{Tool: "file_write", Summary: "write a"}

	done := make(chan policy.Answer)
	go func() {
		a, _ := b.Ask(context.Background(), q)
		done <- a
	}()
	req := waitFor[approvalRequestMsg](t, b)
	if req.q.Summary != "write a" {
		t.Fatalf("asked %+v", req.q)
	}
	req.reply <- policy.Answer{Choice: policy.Always}
	if a := <-done; a.Choice != policy.Always {
		t.Errorf("answer %v", a)
	}

	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error)
	go func() {
		_, err := b.Ask(ctx, q)
		errc <- err
	}()
	req = waitFor[approvalRequestMsg](t, b)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled question returned %v", err)
	}
	if gone := waitFor[approvalGoneMsg](t, b); gone.id != req.id {
		t.Errorf("withdrew question %d, want %d", gone.id, req.id)
	}

	b.Close()
	a, err := b.Ask(context.Background(), q)
	if err != nil || a.Choice != policy.No {
		t.Errorf("a closed chat answered %v, %v; want No", a, err)
	}
	b.Emit(agent.Event{Type: agent.EventToolStarted})
	if len(b.drain()) != 0 {
		t.Error("a closed bridge kept an event")
	}
}

func TestBridgeNextDeliversInOrder(t *testing.T) {
	b := NewBridge()
	b.Emit(agent.Event{Type: agent.EventTurnStarted})
	b.Emit(agent.Event{Type: agent.EventTurnFinished})
	q, ok := b.next(context.Background())
	if !ok || len(q) != 2 || q[1].(eventMsg).Type != agent.EventTurnFinished {
		t.Fatalf("next = %v, %v", q, ok)
	}
	b.Close()
	if _, ok := b.next(context.Background()); ok {
		t.Error("next on a closed bridge should report the end")
	}
}

// waitFor takes messages from the bridge until one of type T comes.
func waitFor[T tea.Msg](t *testing.T, b *Bridge) T {
	t.Helper()
	for {
		q, ok := b.next(context.Background())
		if !ok {
			t.Fatal("the bridge closed")
		}
		for _, m := range q {
			if x, ok := m.(T); ok {
				return x
			}
		}
	}
}
