package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/store/storetest"
	"github.com/godwit/godwit/internal/window"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/fake"
	"github.com/godwit/godwit/tool"
)

// harness builds a Runtime over a fake provider, a real store in a temp
// dir and small in-memory tools.
type harness struct {
	t     *testing.T
	st    *store.Store
	fake  *fake.Provider
	rec   *agent.Recorder
	rt    *agent.Runtime
	tools []tool.Tool
	ws    string // every runtime's workspace, as in one folder's processes
}

type opt func(*agent.Config)

func newHarness(t *testing.T, steps []fake.Step, opts ...opt) *harness {
	t.Helper()
	st := storetest.Open(t)
	h := &harness{t: t, st: st, fake: fake.New(steps...), rec: &agent.Recorder{}, ws: t.TempDir()}
	h.tools = []tool.Tool{
		&tool.Func{ToolSpec: llm.ToolSpec{Name: "echo", Description: "echo", Schema: json.RawMessage(`{"type":"object"}`)},
			Fn: func(_ context.Context, raw json.RawMessage) (tool.Result, error) {
				return tool.Result{Content: "echo " + string(raw)}, nil
			}},
		&tool.Func{ToolSpec: llm.ToolSpec{Name: "fail"},
			Fn: func(context.Context, json.RawMessage) (tool.Result, error) {
				return tool.Result{}, tool.Errorf(tool.CodeNotFound, "look elsewhere", "nothing there")
			}},
		&tool.Func{ToolSpec: llm.ToolSpec{Name: "block"},
			Fn: func(ctx context.Context, _ json.RawMessage) (tool.Result, error) {
				<-ctx.Done()
				return tool.Result{}, ctx.Err()
			}},
	}
	h.rt = h.runtime(opts...)
	return h
}

func (h *harness) runtime(opts ...opt) *agent.Runtime {
	reg, err := tool.NewRegistry(h.tools...)
	if err != nil {
		h.t.Fatal(err)
	}
	cfg := agent.Config{
		Provider:  h.fake,
		Model:     "scripted",
		Assembler: window.New(window.Options{System: "sys", Tools: reg.Specs()}),
		Runner:    tool.NewRunner(reg, tool.RunnerOptions{}),
		Store:     h.st,
		Workspace: h.ws,
	}
	for _, o := range opts {
		o(&cfg)
	}
	rt, err := agent.New(cfg)
	if err != nil {
		h.t.Fatal(err)
	}
	return rt
}

func types(evs []agent.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return out
}

func TestFinalAnswer(t *testing.T) {
	h := newHarness(t, []fake.Step{{Text: "hello"}})
	res, err := h.rt.Run(context.Background(), agent.RunInput{Sink: h.rec, Prompt: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "hello" || res.Status != store.TurnDone || res.Steps != 1 {
		t.Errorf("result = %+v", res)
	}
	want := []string{"session.started", "turn.started", "model.request", "text.delta", "model.response", "turn.finished"}
	if got := types(h.rec.Events()); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("events = %v\nwant %v", got, want)
	}
	turns, err := h.st.Turns(context.Background(), res.SessionID)
	if err != nil || len(turns) != 1 || turns[0].Status != store.TurnDone || turns[0].Usage.InputTokens == 0 {
		t.Errorf("turns = %+v, %v", turns, err)
	}
	sess, _ := h.st.Session(context.Background(), res.SessionID)
	if sess.Title != "hi" {
		t.Errorf("title = %q", sess.Title)
	}
	for _, e := range h.rec.Events() {
		if e.SessionID != res.SessionID {
			t.Errorf("%s has session %q", e.Type, e.SessionID)
		}
	}
}

func TestToolLoopKeepsOrderAndAnswersEveryCall(t *testing.T) {
	h := newHarness(t, []fake.Step{
		{Text: "looking", ToolCalls: []llm.ToolCall{
			fake.Call("a", "echo", map[string]int{"n": 1}),
			fake.Call("b", "nope", nil),
			fake.Call("c", "echo", `{"n":`),
			fake.Call("d", "echo", map[string]int{"n": 4}),
		}},
		{Text: "done"},
	})
	res, err := h.rt.Run(context.Background(), agent.RunInput{Sink: h.rec, Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "done" || res.Steps != 2 {
		t.Fatalf("result = %+v", res)
	}
	reqs := h.fake.Requests()
	last := reqs[1].Messages
	if len(last) != 3 || last[2].Role != llm.RoleTool {
		t.Fatalf("second request messages = %+v", last)
	}
	results := last[2].Parts
	wantIDs := []string{"a", "b", "c", "d"}
	wantPrefix := []string{`echo {"n":1}`, "ERROR UNKNOWN_TOOL", "ERROR BAD_ARGS", `echo {"n":4}`}
	for i, p := range results {
		if p.ToolResult.CallID != wantIDs[i] || !strings.HasPrefix(p.ToolResult.Content, wantPrefix[i]) {
			t.Errorf("result %d = %s %q", i, p.ToolResult.CallID, p.ToolResult.Content)
		}
	}
	// The invalid arguments are replaced by {} in the history the
	// vendor sees; the error result quotes them.
	if args := string(last[1].ToolCalls()[2].Args); args != "{}" {
		t.Errorf("invalid args in history = %s", args)
	}
	// Within a turn each request extends the previous one.
	prev, _ := json.Marshal(reqs[0].Messages)
	next, _ := json.Marshal(reqs[1].Messages[:len(reqs[0].Messages)])
	if string(prev) != string(next) {
		t.Error("second request does not extend the first")
	}
	calls, err := h.st.ToolCalls(context.Background(), res.SessionID)
	if err != nil || len(calls) != 4 {
		t.Fatalf("recorded tool calls = %d, %v", len(calls), err)
	}
}

func TestResumeContinuesTheStoredSession(t *testing.T) {
	h := newHarness(t, []fake.Step{{Text: "first"}, {Text: "second"}})
	res1, err := h.rt.Run(context.Background(), agent.RunInput{Sink: h.rec, Prompt: "one"})
	if err != nil {
		t.Fatal(err)
	}
	// A new Runtime, as in a new process, over the same store.
	rt2 := h.runtime()
	res2, err := rt2.Run(context.Background(), agent.RunInput{Sink: h.rec, SessionID: res1.SessionID, Prompt: "two"})
	if err != nil {
		t.Fatal(err)
	}
	if res2.SessionID != res1.SessionID || res2.Turn != 2 {
		t.Errorf("res2 = %+v", res2)
	}
	msgs := h.fake.Requests()[1].Messages
	var texts []string
	for _, m := range msgs {
		texts = append(texts, string(m.Role)+":"+m.Text())
	}
	if got := strings.Join(texts, " "); got != "user:one assistant:first user:two" {
		t.Errorf("resumed history = %s", got)
	}
}

func TestCancelRecordsTheTurnAndAnswersTheCall(t *testing.T) {
	h := newHarness(t, []fake.Step{{ToolCalls: []llm.ToolCall{fake.Call("x", "block", nil)}}, {Text: "after"}})
	ctx, cancel := context.WithCancel(context.Background())
	cancelAtTool := agent.SinkFunc(func(e agent.Event) {
		if e.Type == agent.EventToolStarted {
			cancel()
		}
	})
	res, err := h.rt.Run(ctx, agent.RunInput{Sink: cancelAtTool, Prompt: "wait"})
	if !errors.Is(err, agent.ErrCancelled) || res.Status != store.TurnCancelled {
		t.Fatalf("res = %+v, err = %v", res, err)
	}
	// The next turn sees a whole history: the call has its result.
	rt2 := h.runtime()
	if _, err := rt2.Run(context.Background(), agent.RunInput{Sink: h.rec, SessionID: res.SessionID, Prompt: "again"}); err != nil {
		t.Fatal(err)
	}
	msgs := h.fake.Requests()[1].Messages
	if len(msgs) != 4 || msgs[2].Role != llm.RoleTool || !msgs[2].Parts[0].ToolResult.IsError {
		t.Errorf("history after cancel = %+v", msgs)
	}
}

// TestErrorAfterCancelIsACancel: once the caller cancels, whatever then
// fails (here the stream, with an error of its own, not ctx's) fails
// because of it: the turn is cancelled, not failed.
func TestErrorAfterCancelIsACancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	h := newHarness(t, []fake.Step{{Respond: func(llm.Request) fake.Step {
		cancel()
		return fake.Step{Err: errors.New("stream cut mid-read")}
	}}})
	res, err := h.rt.Run(ctx, agent.RunInput{Prompt: "wait"})
	if err == nil || res.Status != store.TurnCancelled {
		t.Fatalf("res = %+v, err = %v", res, err)
	}
}

func TestRepeatedFailureStopsTheTurn(t *testing.T) {
	var steps []fake.Step
	for range agent.DefaultRepeatCap {
		steps = append(steps, fake.Step{ToolCalls: []llm.ToolCall{fake.Call("f", "fail", map[string]string{"p": "x"})}})
	}
	h := newHarness(t, steps)
	res, err := h.rt.Run(context.Background(), agent.RunInput{Sink: h.rec, Prompt: "try"})
	if !errors.Is(err, agent.ErrRepeated) || res.Status != store.TurnFailed {
		t.Fatalf("res = %+v, err = %v", res, err)
	}
	third := h.fake.Requests()[3].Messages
	last := third[len(third)-1].Parts[0].ToolResult.Content
	if !strings.Contains(last, tool.CodeRepeated) {
		t.Errorf("third failure carries no warning: %q", last)
	}
}

func TestStepLimit(t *testing.T) {
	steps := []fake.Step{
		{ToolCalls: []llm.ToolCall{fake.Call("1", "echo", nil)}},
		{ToolCalls: []llm.ToolCall{fake.Call("2", "echo", nil)}},
	}
	h := newHarness(t, steps, func(c *agent.Config) { c.MaxSteps = 2 })
	_, err := h.rt.Run(context.Background(), agent.RunInput{Sink: h.rec, Prompt: "loop"})
	if !errors.Is(err, agent.ErrStepLimit) {
		t.Fatalf("err = %v", err)
	}
}

func TestProviderErrorFailsTheTurnWithAdvice(t *testing.T) {
	h := newHarness(t, []fake.Step{{Err: &llm.Error{Kind: llm.KindAuth, Provider: "openai", StatusCode: 401, Message: "bad key"}}})
	res, err := h.rt.Run(context.Background(), agent.RunInput{Sink: h.rec, Prompt: "hi"})
	if !errors.Is(err, llm.ErrAuth) || res.Status != store.TurnFailed {
		t.Fatalf("res = %+v, err = %v", res, err)
	}
	calls, _ := h.st.ModelCalls(context.Background(), res.SessionID)
	if len(calls) != 1 || !strings.Contains(calls[0].Error, "bad key") {
		t.Errorf("model call record = %+v", calls)
	}
	if got := h.rec.OfType(agent.EventError); len(got) != 1 {
		t.Errorf("error events = %d", len(got))
	}
}

// The chat and --json show the turn's recorded error, not the error Run
// returns: it must carry the same advice.
func TestProviderOutageAdviceReachesTheTurnRecord(t *testing.T) {
	h := newHarness(t, []fake.Step{{Err: &llm.Error{Kind: llm.KindRetryable, Provider: "fake", StatusCode: 500, Message: "internal boom"}}})
	res, err := h.rt.Run(context.Background(), agent.RunInput{Sink: h.rec, Prompt: "hi"})
	if err == nil || !strings.Contains(err.Error(), "try again later") {
		t.Fatalf("err = %v", err)
	}
	fin := h.rec.OfType(agent.EventTurnFinished)
	if len(fin) != 1 || !strings.Contains(fin[0].Finished.Error, "internal boom") || !strings.Contains(fin[0].Finished.Error, "try again later or configure a fallback model") {
		t.Errorf("turn.finished = %+v", fin)
	}
	turns, _ := h.st.Turns(context.Background(), res.SessionID)
	if len(turns) != 1 || !strings.Contains(turns[0].Error, "try again later") {
		t.Errorf("recorded turn = %+v", turns)
	}
}

func TestInterruptedTurnIsMarkedOnResume(t *testing.T) {
	h := newHarness(t, []fake.Step{{Text: "one"}, {Text: "two"}})
	res, err := h.rt.Run(context.Background(), agent.RunInput{Sink: h.rec, Prompt: "a"})
	if err != nil {
		t.Fatal(err)
	}
	// A turn that started and never finished: the process died.
	if _, err := h.st.StartTurn(context.Background(), res.SessionID, "lost", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := h.rt.Run(context.Background(), agent.RunInput{Sink: h.rec, SessionID: res.SessionID, Prompt: "b"}); err != nil {
		t.Fatal(err)
	}
	turns, _ := h.st.Turns(context.Background(), res.SessionID)
	var got []string
	for _, tr := range turns {
		got = append(got, string(tr.Status))
	}
	if strings.Join(got, ",") != "done,interrupted,done" {
		t.Errorf("statuses = %v", got)
	}
}

// summarizing is a window that reports summary model calls, as compaction
// does when summary_model is set, on its first request.
type summarizing struct {
	agent.Assembler
	calls []window.SummaryCall
}

func (s *summarizing) Assemble(ctx context.Context, in window.Input) (window.Assembly, error) {
	asm, err := s.Assembler.Assemble(ctx, in)
	asm.Summaries, s.calls = s.calls, nil
	return asm, err
}

// Every model call is in the record, the summary model's too: with the
// turn's calls in the store (so the session's cost counts them) and as
// model.response events marked "summary".
func TestSummaryModelCallsAreRecorded(t *testing.T) {
	h := newHarness(t, []fake.Step{{Text: "done"}})
	calls := []window.SummaryCall{
		{Provider: "local", Model: "cheap", Started: time.Now(), Latency: 40 * time.Millisecond,
			Usage: llm.Usage{InputTokens: 900, OutputTokens: 60}, Cost: 0.01, Text: "go test: 1 failure"},
		{Provider: "local", Model: "cheap", Started: time.Now(), Err: errors.New("summary model: down")},
	}
	rt := h.runtime(func(c *agent.Config) {
		c.Assembler = &summarizing{Assembler: c.Assembler, calls: calls}
	})
	res, err := rt.Run(context.Background(), agent.RunInput{Sink: h.rec, Prompt: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	mcs, err := h.st.ModelCalls(context.Background(), res.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if len(mcs) != 3 {
		t.Fatalf("model calls = %+v, want the two summary calls and the step", mcs)
	}
	if m := mcs[0]; m.Model != "cheap" || m.Provider != "local" || m.Cost != 0.01 || m.Usage.InputTokens != 900 || m.Error != "" || m.Step != 1 {
		t.Errorf("summary call = %+v", m)
	}
	if m := mcs[1]; m.Model != "cheap" || !strings.Contains(m.Error, "down") {
		t.Errorf("failed summary call = %+v", m)
	}
	if mcs[2].Model != "scripted" {
		t.Errorf("step call = %+v", mcs[2])
	}
	var purposes []string
	for _, e := range h.rec.Events() {
		if e.Type == agent.EventModelResponse {
			purposes = append(purposes, e.Response.Purpose)
		}
	}
	if strings.Join(purposes, ",") != "summary,summary," {
		t.Errorf("model.response purposes = %q", purposes)
	}
	list, _ := h.st.ListSessions(context.Background(), 0)
	if len(list) != 1 || list[0].Cost < 0.01 {
		t.Errorf("session cost = %+v, want the summary's 0.01 counted", list)
	}
}

// A session is continued only in its own workspace: elsewhere the tools
// would edit another tree while its record, undo and trace name the first.
func TestSessionOfAnotherWorkspaceIsRefused(t *testing.T) {
	h := newHarness(t, []fake.Step{{Text: "first"}})
	res, err := h.rt.Run(context.Background(), agent.RunInput{Sink: h.rec, Prompt: "one"})
	if err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	rt := h.runtime(func(c *agent.Config) { c.Workspace = other })
	_, err = rt.Run(context.Background(), agent.RunInput{Sink: h.rec, SessionID: res.SessionID, Prompt: "two"})
	var we *agent.WorkspaceError
	if !errors.As(err, &we) || we.SessionWorkspace != h.ws || we.Workspace != other || we.SessionID != res.SessionID {
		t.Fatalf("err = %v, want a WorkspaceError", err)
	}
	turns, _ := h.st.Turns(context.Background(), res.SessionID)
	if len(turns) != 1 || len(h.fake.Requests()) != 1 {
		t.Errorf("the refused turn left a record or reached the model: %d turns, %d requests", len(turns), len(h.fake.Requests()))
	}
}

// What a headless consumer learns from the events: what the session runs
// with, the thinking the model showed, how long the turn took.
func TestEventsDescribeTheSession(t *testing.T) {
	h := newHarness(t, []fake.Step{{Thinking: "The file is short.", Text: "It says hi."}})
	h.rt = h.runtime(func(c *agent.Config) {
		c.About = func() agent.SessionInfo {
			return agent.SessionInfo{Version: "v1", Mode: "ask", Tools: []string{"echo"}, Skills: []string{"review"},
				MCPServers: []agent.MCPServerInfo{{Name: "fs", Source: "config.yaml", State: "failed", Error: "exit 1"}},
				Workspace:  "ignored", Model: "ignored"}
		}
	})
	if _, err := h.rt.Run(context.Background(), agent.RunInput{Sink: h.rec, Prompt: "what does it say?"}); err != nil {
		t.Fatal(err)
	}
	started := h.rec.OfType(agent.EventSessionStarted)[0].Session
	if started.Version != "v1" || started.Mode != "ask" || len(started.Tools) != 1 || len(started.Skills) != 1 ||
		len(started.MCPServers) != 1 || started.MCPServers[0].State != "failed" {
		t.Errorf("session.started = %+v", started)
	}
	if started.Workspace != h.ws || started.Model != "scripted/scripted" && started.Model != "fake/scripted" {
		t.Errorf("the runtime's own facts were replaced: %+v", started)
	}
	if r := h.rec.OfType(agent.EventModelResponse)[0].Response; r.Thinking != "The file is short." || r.Text != "It says hi." {
		t.Errorf("model.response = %+v", r)
	}
	if f := h.rec.OfType(agent.EventTurnFinished)[0].Finished; f.DurationMS < 0 || f.Text != "It says hi." {
		t.Errorf("turn.finished = %+v", f)
	}
}
