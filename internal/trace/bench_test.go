package trace_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/store/storetest"
	"github.com/godwit/godwit/internal/trace"
	"github.com/godwit/godwit/llm"
)

// bigSession records, through the store's API, a session of calls model
// calls, perTurn to a turn, and tools tool calls per model call, with
// their messages and events, shaped like a real one: reads, edits, shell
// and test runs (three in five tool calls read, one edits, one runs the
// tests), a few KB of output each. It returns the session id.
func bigSession(tb testing.TB, st *store.Store, calls, perTurn, tools int) string {
	tb.Helper()
	ctx := context.Background()
	id := store.NewID()
	t0 := time.Date(2025, 3, 4, 9, 0, 0, 0, time.UTC)
	if err := st.CreateSession(ctx, store.Session{ID: id, Title: "big", Workspace: "/ws", Model: "fake/big", CreatedAt: t0}); err != nil {
		tb.Fatal(err)
	}
	event := func(turnID int64, e agent.Event) {
		e.SessionID = id
		b, _ := json.Marshal(e)
		if _, err := st.AppendEvent(ctx, store.Event{SessionID: id, TurnID: turnID, Type: e.Type, Time: e.Time, Data: b}); err != nil {
			tb.Fatal(err)
		}
	}
	output := strings.Repeat("some output line of a tool, long enough to be realistic\n", 40) // ~2.3 KB
	var turn store.Turn
	for i := range calls {
		at := t0.Add(time.Duration(i) * time.Second)
		if i%perTurn == 0 {
			var err error
			if turn, err = st.StartTurn(ctx, id, fmt.Sprintf("task %d", i/perTurn+1), 1); err != nil {
				tb.Fatal(err)
			}
		}
		step := i%perTurn + 1
		u := llm.Usage{InputTokens: int64(20000 + 100*step), CacheReadTokens: int64(19000 + 100*step), OutputTokens: 300}
		parts := []llm.PartStat{{Name: "system", Bytes: 8000, Tokens: 2000}, {Name: "tools", Bytes: 12000, Tokens: 3000}, {Name: "messages", Bytes: 60000, Tokens: 15000}}
		event(turn.ID, agent.Event{Type: agent.EventModelRequest, Turn: turn.Seq, Step: step, Time: at, Request: &agent.RequestInfo{Model: "big", Parts: parts}})
		if _, err := st.RecordModelCall(ctx, store.ModelCall{SessionID: id, TurnID: turn.ID, Segment: 1, Step: step, Provider: "fake", Model: "big",
			StartedAt: at, Latency: 900 * time.Millisecond, Usage: u, Cost: 0.01, Parts: parts}); err != nil {
			tb.Fatal(err)
		}
		event(turn.ID, agent.Event{Type: agent.EventModelResponse, Turn: turn.Seq, Step: step, Time: at, Response: &agent.ResponseInfo{Usage: u, Text: "working on it", ToolCalls: tools}})
		msg := llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{{Kind: llm.PartText, Text: "working on it"}}}
		results := llm.Message{Role: llm.RoleTool}
		for j := range tools {
			callID := fmt.Sprintf("c%d_%d", i, j)
			name, args, exit := "file_read", fmt.Sprintf(`{"path":"pkg/f%d.go"}`, (i*tools+j)%300), (*int)(nil)
			switch (i*tools + j) % 5 {
			case 3:
				name, args = "file_edit", fmt.Sprintf(`{"path":"pkg/f%d.go","old_text":"a","new_text":"b"}`, i%300)
			case 4:
				code := i % 3 % 2
				name, args, exit = "shell_exec", `{"command":"go test ./..."}`, &code
			}
			msg.Parts = append(msg.Parts, llm.Part{Kind: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: callID, Name: name, Args: json.RawMessage(args)}})
			results.Parts = append(results.Parts, llm.Part{Kind: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: callID, Name: name, Content: output}})
			event(turn.ID, agent.Event{Type: agent.EventToolStarted, Turn: turn.Seq, Step: step, Time: at, Tool: &agent.ToolInfo{CallID: callID, Name: name, Args: args}})
			if _, err := st.RecordToolCall(ctx, store.ToolCall{SessionID: id, TurnID: turn.ID, Step: step, CallID: callID, Name: name,
				Args: json.RawMessage(args), Output: output, ExitCode: exit, StartedAt: at, Duration: 40 * time.Millisecond}); err != nil {
				tb.Fatal(err)
			}
			event(turn.ID, agent.Event{Type: agent.EventToolFinished, Turn: turn.Seq, Step: step, Time: at, Tool: &agent.ToolInfo{CallID: callID, Name: name, Output: output, ExitCode: exit}})
		}
		for _, m := range []llm.Message{msg, results} {
			if _, err := st.AppendMessage(ctx, id, turn.ID, 1, m); err != nil {
				tb.Fatal(err)
			}
		}
		if step == perTurn || i == calls-1 {
			turn.Status = store.TurnDone
			if err := st.FinishTurn(ctx, turn); err != nil {
				tb.Fatal(err)
			}
		}
	}
	return id
}

// BenchmarkLoadAnalyze is the `inspect trace --analyze` bar: load a
// 1,000-call, 5,000-tool-call session from the store (as the command
// does, without the messages), analyze it and render the summary. Run:
//
//	go test ./internal/trace -run '^$' -bench LoadAnalyze -benchtime 10x
func BenchmarkLoadAnalyze(b *testing.B) {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "godwit.db")
	st := storetest.OpenAt(b, path)
	id := bigSession(b, st, 1000, 50, 5)
	cpu0 := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		t, err := trace.LoadUnordered(ctx, st, id)
		if err != nil {
			b.Fatal(err)
		}
		r := trace.Analyze(t)
		if r.ModelCalls != 1000 || r.ToolCalls != 5000 {
			b.Fatalf("report: %d model calls, %d tool calls", r.ModelCalls, r.ToolCalls)
		}
		if err := r.WriteText(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
	// The database with its WAL: the store's size per model call.
	var size int64
	for _, p := range []string{path, path + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			size += fi.Size()
		}
	}
	b.ReportMetric(float64(size)/1000, "db-bytes/call")
}

// BenchmarkWebView is what each poll of the page costs on the same
// session: load, analyze and build the view.
func BenchmarkWebView(b *testing.B) {
	ctx := context.Background()
	st := storetest.Open(b)
	id := bigSession(b, st, 1000, 50, 5)
	b.ResetTimer()
	for b.Loop() {
		t, err := trace.Load(ctx, st, id)
		if err != nil {
			b.Fatal(err)
		}
		if v := trace.NewView(t); len(v.Turns) != 20 {
			b.Fatalf("%d turns", len(v.Turns))
		}
	}
}

// BenchmarkWebPoll is what one poll of the page costs the server on a
// 300-turn session (three model calls and six tool calls a turn):
// "unchanged" is the page's every-two-seconds poll while nothing
// happens (it sends the ETag it has and gets 304), "changed" the poll
// after a write, which sends the whole view. Run:
//
//	go test ./internal/trace -run '^$' -bench WebPoll -benchtime 200x
func BenchmarkWebPoll(b *testing.B) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(b.TempDir(), "godwit.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	id := bigSession(b, st, 900, 3, 2)
	h, path := trace.Handler(st, id)
	poll := func(tb testing.TB, etag string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1"+path+"api/trace", nil)
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	first := poll(b, "")
	if first.Code != http.StatusOK {
		b.Fatalf("first poll: %d %s", first.Code, first.Body)
	}
	var v trace.View
	if err := json.Unmarshal(first.Body.Bytes(), &v); err != nil || len(v.Turns) != 300 {
		b.Fatalf("first poll: %d turns, %v", len(v.Turns), err)
	}
	etag := first.Header().Get("ETag")

	b.Run("unchanged", func(b *testing.B) {
		cpu0 := cpuTime()
		for b.Loop() {
			if rec := poll(b, etag); rec.Code != http.StatusNotModified {
				b.Fatalf("unchanged poll: %d", rec.Code)
			}
		}
		b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	})
	b.Run("changed", func(b *testing.B) {
		cpu0 := cpuTime()
		for b.Loop() {
			if rec := poll(b, ""); rec.Code != http.StatusOK {
				b.Fatalf("full poll: %d", rec.Code)
			}
		}
		b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	})
}
