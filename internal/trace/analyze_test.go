package trace_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/trace"
	"github.com/godwit/godwit/llm"
)

// builder makes a Trace by hand: one turn, steps added in order.
type builder struct{ t trace.Trace }

func newBuilder() *builder {
	return &builder{t: trace.Trace{
		Session: store.Session{ID: "s1", Workspace: "/ws"},
		Turns:   []store.Turn{{ID: 7, Seq: 1, Status: store.TurnDone}},
	}}
}

func (b *builder) model(step int, cost float64, errText string) *builder {
	b.t.ModelCalls = append(b.t.ModelCalls, store.ModelCall{TurnID: 7, Step: step, Provider: "p", Model: "m",
		Usage: llm.Usage{InputTokens: 100, OutputTokens: 10}, Cost: cost, Error: errText})
	return b
}

func (b *builder) tool(step int, name, args string, exit *int, isErr bool, code string) *builder {
	b.t.ToolCalls = append(b.t.ToolCalls, store.ToolCall{TurnID: 7, Step: step, Name: name, Args: json.RawMessage(args),
		ExitCode: exit, IsError: isErr, Code: code, CallID: name + args})
	return b
}

func exitOf(n int) *int { return &n }

func TestAnalyzePhasesWithoutWriteOrGreen(t *testing.T) {
	b := newBuilder().model(1, 0.01, "").tool(1, "file_read", `{"path":"a.go"}`, nil, false, "").
		model(2, 0.01, "").tool(2, "file_read", `{"path":"a.go","start_line":1,"end_line":5}`, nil, false, "")
	r := trace.Analyze(&b.t)
	if r.Phases.Explore.Calls != 2 || r.Phases.ToGreen.Calls != 0 || r.Phases.FirstWrite != nil {
		t.Errorf("no write: phases = %+v", r.Phases)
	}
	if len(r.ReReads) != 1 {
		t.Errorf("a partial read of a file read whole is a re-read: %+v", r.ReReads)
	}

	b = b.model(3, 0.01, "").tool(3, "file_edit", `{"path":"a.go"}`, nil, false, "").
		model(4, 0.01, "").tool(4, "shell_exec", `{"command":"go test ./..."}`, exitOf(1), false, "").
		model(5, 0.01, "")
	r = trace.Analyze(&b.t)
	if r.Phases.Explore.Calls != 2 || r.Phases.ToGreen.Calls != 3 || r.Phases.Green != nil || r.Tests.FirstPass != nil {
		t.Errorf("never green: phases = %+v, tests = %+v", r.Phases, r.Tests)
	}
	var text strings.Builder
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"never passed", "not green", "first write t1s3"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
}

func TestAnalyzeCountsFailuresDenialsAndPrices(t *testing.T) {
	b := newBuilder().
		model(1, 0, "").
		tool(1, "shell_exec", `{"command":"rm -rf /"}`, nil, true, "DENIED").
		tool(1, "shell_exec", `{"command":"sleep 999"}`, nil, true, "TIMEOUT").
		tool(1, "shell_exec", `{"action":"list"}`, nil, false, "").
		tool(1, "file_read", `{"path":"gone.go"}`, nil, true, "ENOENT").
		tool(1, "shell_exec", `{"command":"go test ./..."}`, nil, true, "CANCELLED").
		model(2, 0.5, "provider said no")
	r := trace.Analyze(&b.t)
	if r.Shell.Runs != 1 || r.Shell.Failed != 1 || r.Shell.Denied != 1 || r.Shell.Cancelled != 1 || r.Tests.Runs != 0 {
		t.Errorf("shell = %+v, tests = %+v", r.Shell, r.Tests)
	}
	// A refusal and the user's cancel are not failures.
	if r.ToolErrors != 2 || r.ToolDenied != 1 || r.ToolCancelled != 1 || r.ModelErrors != 1 || r.MaxParallel != 5 || r.ParallelSteps != 1 {
		t.Errorf("errors %d/%d/%d/%d, parallel %d/%d", r.ToolErrors, r.ToolDenied, r.ToolCancelled, r.ModelErrors, r.MaxParallel, r.ParallelSteps)
	}
	var text strings.Builder
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"tool calls 5 (2 failed, 1 denied, 1 cancelled)", "shell_exec 4 (1 failed, 1 denied, 1 cancelled)", "denied 1 · cancelled 1"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	if r.Cost.Total != 0.5 || r.Cost.Unpriced != 1 || len(r.Cost.ByModel) != 1 || r.Cost.ByModel[0].Model != "p/m" {
		t.Errorf("cost = %+v", r.Cost)
	}
	if tc := r.Tools[0]; tc.Name != "shell_exec" || tc.Calls != 4 || tc.Errors != 1 || tc.Denied != 1 || tc.Cancelled != 1 {
		t.Errorf("tools = %+v", r.Tools)
	}
	if len(r.ReReads) != 0 || len(r.ReadsAfterWrite) != 0 {
		t.Errorf("a failed read counted: %+v %+v", r.ReReads, r.ReadsAfterWrite)
	}
}

func TestAnalyzeEmptySession(t *testing.T) {
	r := trace.Analyze(&trace.Trace{Session: store.Session{ID: "s"}})
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "model calls 0") || r.Verify.LastExit != nil {
		t.Errorf("empty session:\n%s", b.String())
	}
	var tb strings.Builder
	if err := trace.WriteTranscript(&tb, &trace.Trace{Session: store.Session{ID: "s"}}); err != nil || !strings.Contains(tb.String(), "# Session s") {
		t.Errorf("empty transcript %q, %v", tb.String(), err)
	}
}
