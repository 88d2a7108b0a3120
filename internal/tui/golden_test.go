package tui

import (
	tea "charm.land/bubbletea/v2"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/policy"
	"github.com/godwit/godwit/llm"
)

var t0 = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

func intp(n int) *int { return &n }

// conversation is one scripted turn with thinking, text, four tool calls
// (a read, an edit with a diff, a command, a denied command) and an
// answer in markdown.
func conversation() []agent.Event {
	req := func(tokens int) agent.Event {
		return agent.Event{Type: agent.EventModelRequest, Request: &agent.RequestInfo{Provider: "local", Model: "m", Segment: 1, Tokens: tokens, Bytes: tokens * 4,
			Parts: []llm.PartStat{{Name: "system", Bytes: 4000, Tokens: 1000}, {Name: "rules", Bytes: 800, Tokens: 200}, {Name: "memory", Bytes: 0, Tokens: 0},
				{Name: "tools", Bytes: 6000, Tokens: 1500}, {Name: "messages", Bytes: tokens*4 - 10800, Tokens: tokens - 2700}}}}
	}
	resp := func(in, cached, out int64, cost float64) agent.Event {
		return agent.Event{Type: agent.EventModelResponse, Response: &agent.ResponseInfo{Provider: "local", Model: "m", Cost: cost,
			Usage: llm.Usage{InputTokens: in, CacheReadTokens: cached, OutputTokens: out}}}
	}
	return []agent.Event{
		{Type: agent.EventSessionStarted, SessionID: "s1", Session: &agent.SessionInfo{Model: "local/m", Segment: 1}},
		{Type: agent.EventTurnStarted, Turn: 1, Prompt: "fix the failing test in calc", Time: t0},
		req(12_000),
		{Type: agent.EventThinkingDelta, Text: "The test fails because Add subtracts. "},
		{Type: agent.EventThinkingDelta, Text: "I will read calc.go first."},
		{Type: agent.EventTextDelta, Text: "Let me look at `calc.go`.\n"},
		resp(12_000, 0, 120, 0.01),
		{Type: agent.EventToolStarted, Tool: &agent.ToolInfo{CallID: "c1", Name: "file_read", Summary: "read calc.go"}},
		{Type: agent.EventToolFinished, Tool: &agent.ToolInfo{CallID: "c1", Name: "file_read", Summary: "read calc.go", DurationMS: 3,
			Output: "1\tpackage calc\n2\t\n3\tfunc Add(a, b int) int { return a - b }\n"}},
		req(12_400),
		resp(12_400, 11_900, 80, 0.002),
		{Type: agent.EventApproval, Approval: &agent.ApprovalInfo{CallID: "c2", Tool: "file_edit", Summary: "edit calc.go", Allow: true, Manual: true}},
		{Type: agent.EventToolStarted, Tool: &agent.ToolInfo{CallID: "c2", Name: "file_edit", Summary: "edit calc.go"}},
		{Type: agent.EventToolFinished, Tool: &agent.ToolInfo{CallID: "c2", Name: "file_edit", Summary: "edit calc.go", DurationMS: 2, Output: "edited calc.go",
			Diff: "--- a/calc.go\n+++ b/calc.go\n@@ -3 +3 @@\n-func Add(a, b int) int { return a - b }\n+func Add(a, b int) int { return a + b }\n"}},
		{Type: agent.EventToolStarted, Tool: &agent.ToolInfo{CallID: "c3", Name: "shell_exec", Summary: "run: go test ./..."}},
		{Type: agent.EventToolFinished, Tool: &agent.ToolInfo{CallID: "c3", Name: "shell_exec", Summary: "run: go test ./...", DurationMS: 1234, ExitCode: intp(0),
			Output: "ok  \tcalc\t0.012s\n"}},
		{Type: agent.EventApproval, Approval: &agent.ApprovalInfo{CallID: "c4", Tool: "shell_exec", Summary: "run: rm -rf build", Allow: false, Reason: "the user said no"}},
		{Type: agent.EventToolFinished, Tool: &agent.ToolInfo{CallID: "c4", Name: "shell_exec", Summary: "run: rm -rf build", IsError: true, Code: "DENIED",
			Output: "DENIED: denied: the user said no"}},
		req(12_900),
		{Type: agent.EventTextDelta, Text: "Fixed: `Add` now adds.\n\n```go\nfunc Add(a, b int) int { return a + b }\n```\n\n"},
		{Type: agent.EventTextDelta, Text: "- ran `go test ./...`: **pass**\n- left `build/` alone\n"},
		resp(12_900, 12_300, 60, 0.003),
		{Type: agent.EventTurnFinished, Time: t0.Add(12 * time.Second), Finished: &agent.TurnInfo{Status: "done", Steps: 3,
			Usage: llm.Usage{InputTokens: 37_300, OutputTokens: 260}, Cost: 0.015}},
	}
}

func conversationModel(t testing.TB, width, height int) *Model {
	m := staticModel(t, width, height)
	m.t.add(&userItem{text: "fix the failing test in calc"}) // typed, as in a live chat
	feedEvents(m, conversation()...)
	return m
}

func TestGoldenConversation(t *testing.T) {
	golden(t, "conversation", plainScreen(conversationModel(t, 80, 34)))
}

func TestGoldenNarrow(t *testing.T) {
	golden(t, "narrow", plainScreen(conversationModel(t, 44, 44)))
}

func TestGoldenExpandedDiff(t *testing.T) {
	m := conversationModel(t, 80, 34)
	// From no selection, Alt-Up selects the last item that opens (the
	// denied command); two more reach the edit.
	for range 3 {
		m.Update(keys["alt+up"])
	}
	m.Update(keys["ctrl+o"])
	if ti := m.t.entries[m.t.selected].it.(*toolItem); ti.callID != "c2" || !ti.expanded {
		t.Fatalf("selected %s (expanded %v), want c2 open", ti.callID, ti.expanded)
	}
	golden(t, "expanded", plainScreen(m))
}

func TestGoldenApproval(t *testing.T) {
	m := staticModel(t, 80, 20)
	m.t.add(&userItem{text: "write the notes"})
	feedEvents(m, agent.Event{Type: agent.EventTurnStarted, Turn: 1, Time: t0})
	m.Update(eventsMsg{approvalRequestMsg{id: 1, reply: make(chan policy.Answer, 1), q: policy.Question{
		Tool: "file_write", Summary: "write notes.md",
		Preview: "--- notes.md\n+++ notes.md\n@@ -0,0 +1,2 @@\n+# Notes\n+remember the milk\n",
		Reasons: []string{"writes a file"},
		Always:  []string{"file_write in ./*"},
	}}})
	m.Update(tea.CursorPositionMsg{}) // the terminal reports twice: the question is drawn
	m.Update(tea.CursorPositionMsg{})
	golden(t, "approval", plainScreen(m))
}

func TestGoldenNotices(t *testing.T) {
	m := staticModel(t, 80, 16)
	feedEvents(m,
		agent.Event{Type: agent.EventModelRetry, Retry: &llm.Retry{Attempt: 2, Wait: 1500 * time.Millisecond, Reason: "429 rate limited"}},
		agent.Event{Type: agent.EventCompacted, Compacted: &agent.CompactionInfo{Items: 3, Freed: 41_000, Pages: []string{"p7", "p8"}}},
		agent.Event{Type: agent.EventSegmentReset, Reset: &agent.ResetInfo{From: 1, To: 2, Reason: "budget", ByModel: true, Tokens: 2100, DecisionsTokens: 340}},
		agent.Event{Type: agent.EventVerify, Verify: &agent.VerifyInfo{Round: 1, Command: "go test ./...", ExitCode: 1, DurationMS: 2300}},
		agent.Event{Type: agent.EventNudge, Nudge: &agent.NudgeInfo{Check: "open_plan", Message: "Your plan has 2 open steps."}},
		agent.Event{Type: agent.EventError, Text: "agent: step limit reached"},
		agent.Event{Type: agent.EventTurnFinished, Finished: &agent.TurnInfo{Status: "failed", Steps: 60, Error: "agent: step limit reached"}},
	)
	golden(t, "notices", plainScreen(m))
}

func TestGoldenContextCommand(t *testing.T) {
	m := conversationModel(t, 80, 30)
	r, err := m.ctl.Exec(context.Background(), ":context")
	if err != nil {
		t.Fatal(err)
	}
	m.Update(commandDoneMsg{line: ":context", reply: r})
	golden(t, "context", plainScreen(m))
}

// TestDarkThemeFitsTheWidth renders the conversation in colour at several
// widths: no line may pass the width (the terminal would wrap it and
// tear the layout), and no line may be padded with trailing blanks.
func TestDarkThemeFitsTheWidth(t *testing.T) {
	for _, w := range []int{30, 44, 80, 133} {
		m := staticModel(t, w, 60)
		m.rc = &renderCtx{th: DarkTheme(), ink: newInks(DarkTheme()), md: newMarkdown(DarkTheme())}
		m.t.rc, m.feed.t.rc = m.rc, m.rc
		m.t.add(&userItem{text: "fix the failing test in calc"})
		feedEvents(m, conversation()...)
		m.Update(keys["alt+up"])
		m.Update(keys["ctrl+o"])
		content, _ := m.render()
		lines := strings.Split(content, "\n")
		if len(lines) != 60 {
			t.Errorf("width %d: %d lines, want the height 60", w, len(lines))
		}
		for i, l := range lines {
			if n := ansi.StringWidth(l); n > w {
				t.Errorf("width %d: line %d is %d wide: %q", w, i, n, ansi.Strip(l))
			}
			if strings.HasSuffix(ansi.Strip(l), "  ") && strings.Contains(l, "\x1b[38;5;252m") {
				t.Errorf("width %d: line %d is padded: %q", w, i, ansi.Strip(l))
			}
		}
		if !strings.Contains(content, "\x1b[") {
			t.Errorf("width %d: the dark theme drew no colour", w)
		}
	}
}
