package tui

import (
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/fake"
	"github.com/godwit/godwit/tool"
)

// blocked is a step that waits for release before it answers text.
func blocked(release <-chan struct{}, text string) fake.Step {
	return fake.Step{Respond: func(llm.Request) fake.Step {
		<-release
		return fake.Step{Text: text}
	}}
}

// TestEscCancelsThenClears: Esc cancels a running turn as Ctrl-C does,
// and a second Esc in a row clears the input; when idle, the first Esc
// says what the second does.
func TestEscCancelsThenClears(t *testing.T) {
	release := make(chan struct{})
	h := newHarness(t, blocked(release, "too late"))
	h.send("take your time")
	h.until("the model call", func() bool { return len(h.prov.Requests()) == 1 })
	h.typ("next question")
	h.press("esc")
	if !h.m.cancelling {
		t.Fatal("Esc during a turn did not cancel it")
	}
	close(release)
	h.idle()
	if ts := items[*turnItem](h.m); len(ts) != 1 || ts[0].status != "cancelled" {
		t.Fatalf("turn items: %+v", ts)
	}
	if v := h.m.input.Value(); v != "next question" {
		t.Fatalf("the input after one Esc is %q", v)
	}
	h.press("esc")
	if v := h.m.input.Value(); v != "" {
		t.Fatalf("a second Esc left the input %q", v)
	}
	h.typ("draft")
	h.press("esc")
	if h.m.input.Value() != "draft" || !strings.Contains(h.m.hint, "Esc again clears") {
		t.Fatalf("one Esc when idle: input %q, hint %q", h.m.input.Value(), h.m.hint)
	}
	h.typ("s")
	h.press("esc") // not in a row with the first
	if h.m.input.Value() != "drafts" {
		t.Fatalf("an Esc after a key cleared the input: %q", h.m.input.Value())
	}
}

// TestQueuedMessages: what is sent while a turn runs is shown as queued
// and sent when the turn ends, as one message; when the turn is
// cancelled it goes back to the input instead.
func TestQueuedMessages(t *testing.T) {
	release, later := make(chan struct{}), make(chan struct{})
	h := newHarness(t, blocked(release, "first done"), fake.Step{Text: "second done"}, blocked(later, "never"))
	h.send("first")
	h.until("the turn", func() bool { return h.m.running })
	h.send("second")
	h.send("and third")
	if sc := h.screen(); !strings.Contains(sc, "⧗ queued: second") || !strings.Contains(sc, "⧗ queued: and third · sent when the turn ends") {
		t.Fatalf("the queued messages do not show:\n%s", sc)
	}
	close(release)
	h.until("both turns", func() bool { return len(items[*turnItem](h.m)) == 2 && !h.m.running })
	reqs := h.prov.Requests()
	if n := len(reqs); n != 2 || !strings.Contains(lastUser(reqs[1]), "second\n\nand third") {
		t.Fatalf("the queued messages were not sent as the next turn: %d requests", n)
	}
	if strings.Contains(h.screen(), "⧗") {
		t.Errorf("the queue still shows after it was sent:\n%s", h.screen())
	}

	h.send("fourth")
	h.until("the model call", func() bool { return len(h.prov.Requests()) == 3 })
	h.send("fifth")
	h.press("ctrl+c")
	close(later)
	h.idle()
	if v := h.m.input.Value(); v != "fifth" || len(h.m.queued) != 0 {
		t.Fatalf("after a cancelled turn the input is %q, queued %q", v, h.m.queued)
	}
}

func lastUser(req llm.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == llm.RoleUser {
			return req.Messages[i].Text()
		}
	}
	return ""
}

// TestPrintedTranscript: what the chat leaves in the terminal when it
// ends is the transcript as shown, one line per tool call, without the
// thinking.
func TestPrintedTranscript(t *testing.T) {
	m := staticModel(t, 60, 20)
	m.t.add(&userItem{text: "read a.go"})
	feedEvents(m,
		agent.Event{Type: agent.EventTurnStarted, Turn: 1, Time: t0},
		agent.Event{Type: agent.EventThinkingDelta, Text: "SECRET THOUGHTS"},
		agent.Event{Type: agent.EventToolStarted, Tool: &agent.ToolInfo{CallID: "c1", Name: "file_read", Summary: "read a.go"}},
		agent.Event{Type: agent.EventToolFinished, Tool: &agent.ToolInfo{CallID: "c1", Name: "file_read", Summary: "read a.go", Output: "package a\nfunc A() {}\n"}},
		agent.Event{Type: agent.EventTextDelta, Text: "It declares **A**."},
		agent.Event{Type: agent.EventModelResponse, Response: &agent.ResponseInfo{}},
		agent.Event{Type: agent.EventTurnFinished, Time: t0, Finished: &agent.TurnInfo{Status: "done", Steps: 2}},
	)
	m.toggle() // an open tool call is printed as its line
	got := strings.Join(m.t.printed(60), "\n")
	for _, want := range []string{"› read a.go", "\n  ✓ file_read: read a.go", "● It declares", "─ done"} {
		if !strings.Contains(got, want) {
			t.Errorf("the printed transcript lacks %q:\n%s", want, got)
		}
	}
	for _, bad := range []string{"SECRET", "thinking", "package a"} {
		if strings.Contains(got, bad) {
			t.Errorf("the printed transcript holds %q:\n%s", bad, got)
		}
	}
}

// TestLiveCommandLines: a running command's newest lines show under its
// line, and go once it ends.
func TestLiveCommandLines(t *testing.T) {
	m := staticModel(t, 60, 20)
	feedEvents(m,
		agent.Event{Type: agent.EventToolStarted, Tool: &agent.ToolInfo{CallID: "c1", Name: "shell_exec", Summary: "run: go test ./..."}},
		agent.Event{Type: agent.EventToolProgress, Tool: &agent.ToolInfo{CallID: "c1", Name: "shell_exec"}, Progress: &tool.Progress{Output: "ok  a\nok  b\x1b]0;T\x07"}},
	)
	sc := plainScreen(m)
	if !strings.Contains(sc, "⋯ shell_exec: run: go test ./... · running\n  │ ok  a\n  │ ok  b") {
		t.Fatalf("the running command's lines do not show under it:\n%s", sc)
	}
	feedEvents(m, agent.Event{Type: agent.EventToolFinished, Tool: &agent.ToolInfo{CallID: "c1", Name: "shell_exec", Summary: "run: go test ./...", Output: "ok  a\nok  b\n"}})
	if sc := plainScreen(m); strings.Contains(sc, "│ ok") {
		t.Fatalf("the lines stay after the command ended:\n%s", sc)
	}
}
