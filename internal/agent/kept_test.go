package agent

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/handoff"
	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/window"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/fake"
	"github.com/godwit/godwit/tool"
)

func newTestRuntime(t *testing.T, st *store.Store) *Runtime {
	t.Helper()
	reg, _ := tool.NewRegistry()
	win := window.New(window.Options{System: "sys", Budget: window.Scaled(32_000), Pages: &window.MemPages{}})
	rt, err := New(Config{Provider: fake.NewFunc(func(llm.Request) fake.Step { return fake.Step{Text: "ok"} }), Model: "m", Assembler: win, Runner: tool.NewRunner(reg, tool.RunnerOptions{}), Store: st})
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// TestLoadElidesStubsAndHydrates: a resumed session is read without the
// outputs its segment shows only as stubs; the handoff gets them back.
func TestLoadElidesStubsAndHydrates(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.CreateSession(ctx, store.Session{ID: "s1"}); err != nil {
		t.Fatal(err)
	}
	if err := st.StartSegment(ctx, "s1", 1, "start"); err != nil {
		t.Fatal(err)
	}
	big, small := strings.Repeat("a long file line\n", 500), "a short output"
	for _, m := range []llm.Message{
		llm.UserText("read them"),
		{Role: llm.RoleAssistant, Parts: []llm.Part{
			{Kind: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "c1", Name: "file_read", Args: json.RawMessage(`{"path":"a"}`)}},
			{Kind: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "c2", Name: "file_read", Args: json.RawMessage(`{"path":"b"}`)}}}},
		{Role: llm.RoleTool, Parts: []llm.Part{
			{Kind: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: "c1", Content: big}},
			{Kind: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: "c2", Content: small}}}},
		{Role: llm.RoleAssistant, Parts: []llm.Part{llm.TextPart("read")}},
	} {
		if _, err := st.AppendMessage(ctx, "s1", 0, 1, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.RecordCompaction(ctx, store.Compaction{SessionID: "s1", Segment: 1, CallID: "c1", Level: window.LevelStub, PageID: "p1", Text: "[paged out p1]"}); err != nil {
		t.Fatal(err)
	}
	rt := newTestRuntime(t, st)
	s, err := rt.open(ctx, "s1", &runSink{})
	if err != nil {
		t.Fatal(err)
	}
	res := s.history[2].Parts
	if res[0].ToolResult.Content != "" || res[1].ToolResult.Content != small || len(s.elided) != 1 {
		t.Fatalf("loaded: c1 %d bytes, c2 %q, elided %v; want c1 left out", len(res[0].ToolResult.Content), res[1].ToolResult.Content, s.elided)
	}
	if err := s.hydrate(ctx); err != nil {
		t.Fatal(err)
	}
	if got := handoff.FactsFrom(s.history).Outputs; len(got) != 2 || got[0] != big || got[1] != small || s.elided != nil {
		t.Errorf("hydrated: %d outputs, first whole %v", len(got), len(got) > 0 && got[0] == big)
	}
}

// TestRuntimeKeepsHistoryBetweenTurns: a resident runtime reuses the
// history of its last turn, unless another process added to the segment.
func TestRuntimeKeepsHistoryBetweenTurns(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a, b := newTestRuntime(t, st), newTestRuntime(t, st)
	res, err := a.Run(ctx, RunInput{Prompt: "one"})
	if err != nil {
		t.Fatal(err)
	}
	k := a.kept[res.SessionID]
	if k == nil || len(k.history) != 2 {
		t.Fatalf("kept after turn 1: %+v", k)
	}
	// A mark only the kept copy has shows whether turn 2 reused it.
	k.history[0] = llm.UserText("kept in memory")
	if _, err := a.Run(ctx, RunInput{SessionID: res.SessionID, Prompt: "two"}); err != nil {
		t.Fatal(err)
	}
	if k := a.kept[res.SessionID]; len(k.history) != 4 || k.history[0].Text() != "kept in memory" {
		t.Errorf("turn 2 did not reuse the kept history (%d messages, first %q)", len(k.history), k.history[0].Text())
	}
	// Another process's turn: a's kept history is stale and is read anew.
	if _, err := b.Run(ctx, RunInput{SessionID: res.SessionID, Prompt: "three, elsewhere"}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Run(ctx, RunInput{SessionID: res.SessionID, Prompt: "four"}); err != nil {
		t.Fatal(err)
	}
	k = a.kept[res.SessionID]
	var texts []string
	for _, m := range k.history {
		texts = append(texts, m.Text())
	}
	if got := strings.Join(texts, "|"); !strings.Contains(got, "three, elsewhere") || !strings.HasPrefix(got, "one|") || len(k.history) != 8 {
		t.Errorf("after another process's turn: %q", got)
	}
}

// TestRuntimeKeepsAtMostMaxKept: the sessions kept are the newest few,
// and a session's own turns never evict it.
func TestRuntimeKeepsAtMostMaxKept(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rt := newTestRuntime(t, st)
	res, err := rt.Run(ctx, RunInput{Prompt: "first"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 * maxKept {
		if _, err := rt.Run(ctx, RunInput{SessionID: res.SessionID, Prompt: "again"}); err != nil {
			t.Fatal(err)
		}
		if rt.kept[res.SessionID] == nil {
			t.Fatalf("turn %d: its own session was evicted", i+2)
		}
	}
	for range maxKept + 2 {
		if _, err := rt.Run(ctx, RunInput{Prompt: "another session"}); err != nil {
			t.Fatal(err)
		}
	}
	if len(rt.kept) != maxKept || len(rt.keptOrder) != maxKept || rt.kept[res.SessionID] != nil {
		t.Errorf("kept %d sessions (order %d), oldest still kept: %v", len(rt.kept), len(rt.keptOrder), rt.kept[res.SessionID] != nil)
	}
}
