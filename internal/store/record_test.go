package store

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/godwit/godwit/llm"
)

func TestMessages(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	sess := newSession(t, s, "")
	turn, _ := s.StartTurn(ctx, sess.ID, "hi", 0)
	msgs := []struct {
		segment int
		turn    int64
		m       llm.Message
	}{
		{0, turn.ID, llm.UserText("fix the Add function")},
		{0, turn.ID, llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{
			{Kind: llm.PartThinking, Thinking: &llm.Thinking{Text: "hmm", Signature: "c2ln\x00bytes", Provider: "anthropic"}},
			llm.TextPart("reading"),
			{Kind: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "c1", Name: "file_read", Args: json.RawMessage(`{"path":"add.go"}`)}},
		}}},
		{0, turn.ID, llm.Message{Role: llm.RoleTool, Parts: []llm.Part{
			{Kind: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: "c1", Name: "file_read", Content: "func Add(a, b int) int { return a - b }", IsError: false}},
		}}},
		{1, 0, llm.UserText("handoff: carry on")},
	}
	var ids []int64
	for _, c := range msgs {
		id, err := s.AppendMessage(ctx, sess.ID, c.turn, c.segment, c.m)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	for _, c := range []struct {
		segment int
		want    []int
	}{{-1, []int{0, 1, 2, 3}}, {0, []int{0, 1, 2}}, {1, []int{3}}, {2, nil}} {
		got, err := s.Messages(ctx, sess.ID, c.segment)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(c.want) {
			t.Fatalf("Messages(segment %d) = %d messages, want %d", c.segment, len(got), len(c.want))
		}
		for i, w := range c.want {
			g := got[i]
			if g.ID != ids[w] || g.SessionID != sess.ID || g.TurnID != msgs[w].turn || g.Segment != msgs[w].segment || g.CreatedAt.IsZero() {
				t.Errorf("segment %d message %d = %+v", c.segment, i, g)
			}
			if !reflect.DeepEqual(g.Message, msgs[w].m) {
				t.Errorf("message %d did not round-trip:\n got %+v\nwant %+v", w, g.Message, msgs[w].m)
			}
		}
	}
	if _, err := s.AppendMessage(ctx, sess.ID, 12345, 0, llm.UserText("x")); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("AppendMessage with a missing turn = %v", err)
	}
}

func TestModelCalls(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	sess := newSession(t, s, "")
	turn, _ := s.StartTurn(ctx, sess.ID, "hi", 0)
	at := time.Date(2026, 2, 3, 4, 5, 6, 7_000_000, time.UTC)
	want := []ModelCall{
		{SessionID: sess.ID, TurnID: turn.ID, Segment: 2, Step: 3, Provider: "openai", Model: "gpt-5", StartedAt: at,
			Latency: 1234567 * time.Microsecond, TTFT: 250 * time.Millisecond,
			Usage: llm.Usage{InputTokens: 1000, OutputTokens: 50, ReasoningTokens: 20, CacheReadTokens: 800, CacheWriteTokens: 100},
			Cost:  0.0123, StopReason: "tool_use", Parts: []llm.PartStat{{Name: "system", Bytes: 4000, Tokens: 1000}, {Name: "messages", Bytes: 120, Tokens: 30}},
			RequestBytes: 4500, Retries: 2, Fallback: "anthropic/claude", Error: ""},
		{SessionID: sess.ID, StartedAt: at, Error: "llm: HTTP 500"},
	}
	for i := range want {
		id, err := s.RecordModelCall(ctx, want[i])
		if err != nil {
			t.Fatal(err)
		}
		want[i].ID = id
	}
	got, err := s.ModelCalls(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ModelCalls:\n got %+v\nwant %+v", got, want)
	}
	if _, err := s.RecordModelCall(ctx, ModelCall{SessionID: "missing"}); err == nil {
		t.Error("RecordModelCall for a missing session succeeded")
	}
}

func TestToolCalls(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	sess := newSession(t, s, "")
	turn, _ := s.StartTurn(ctx, sess.ID, "hi", 0)
	at := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	exit1 := 1
	want := []ToolCall{
		{SessionID: sess.ID, TurnID: turn.ID, Step: 1, CallID: "c1", Name: "shell_exec", Args: json.RawMessage(`{"command":"go test ./..."}`),
			Output: "FAIL", IsError: true, Code: "EXIT", ExitCode: &exit1, StartedAt: at, Duration: 1500 * time.Microsecond, Approval: "user"},
		{SessionID: sess.ID, TurnID: turn.ID, Step: 2, CallID: "c2", Name: "file_edit", Args: json.RawMessage(`{not json`),
			Output: "ok", StartedAt: at, Approval: "rule", Changed: []string{"add.go", "add_test.go"}},
		{SessionID: sess.ID, Name: "file_read", StartedAt: at},
	}
	for i := range want {
		id, err := s.RecordToolCall(ctx, want[i])
		if err != nil {
			t.Fatal(err)
		}
		want[i].ID = id
	}
	got, err := s.ToolCalls(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ToolCalls:\n got %+v\nwant %+v", got, want)
	}
	for _, c := range []struct {
		tc   ToolCall
		want string
	}{
		{ToolCall{SessionID: sess.ID}, "empty Name"},
		{ToolCall{SessionID: sess.ID, Name: "x", Approval: "yes"}, "unknown Approval"},
	} {
		if _, err := s.RecordToolCall(ctx, c.tc); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("RecordToolCall(%+v) = %v, want %q", c.tc, err, c.want)
		}
	}
}

func TestEvents(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	sess := newSession(t, s, "")
	turn, _ := s.StartTurn(ctx, sess.ID, "hi", 0)
	at := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	want := []Event{
		{SessionID: sess.ID, Type: "session.started", Time: at, Data: json.RawMessage(`{"model":"fake/m"}`)},
		{SessionID: sess.ID, TurnID: turn.ID, Type: "turn.started", Time: at.Add(time.Millisecond)},
	}
	for i := range want {
		id, err := s.AppendEvent(ctx, want[i])
		if err != nil {
			t.Fatal(err)
		}
		want[i].ID = id
	}
	got, err := s.Events(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Events:\n got %+v\nwant %+v", got, want)
	}
	if _, err := s.AppendEvent(ctx, Event{SessionID: sess.ID}); err == nil || !strings.Contains(err.Error(), "empty Type") {
		t.Errorf("AppendEvent without type = %v", err)
	}
	// A zero time is stamped by the store's clock.
	id, _ := s.AppendEvent(ctx, Event{SessionID: sess.ID, Type: "x"})
	got, _ = s.Events(ctx, sess.ID)
	if last := got[len(got)-1]; last.ID != id || last.Time.IsZero() {
		t.Errorf("event without time = %+v", last)
	}
}

func TestVerifyRunsAndSnapshots(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	sess := newSession(t, s, "")
	t1, _ := s.StartTurn(ctx, sess.ID, "one", 0)
	t2, _ := s.StartTurn(ctx, sess.ID, "two", 0)
	at := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)

	v := VerifyRun{SessionID: sess.ID, TurnID: t1.ID, Round: 1, Command: "go test ./...", ExitCode: 1, StartedAt: at, Duration: 2 * time.Second, OutputTail: "--- FAIL"}
	id, err := s.RecordVerifyRun(ctx, v)
	if err != nil {
		t.Fatal(err)
	}
	v.ID = id
	if got, _ := s.VerifyRuns(ctx, sess.ID); !reflect.DeepEqual(got, []VerifyRun{v}) {
		t.Errorf("VerifyRuns = %+v, want %+v", got, v)
	}
	if _, err := s.RecordVerifyRun(ctx, VerifyRun{SessionID: sess.ID}); err == nil {
		t.Error("RecordVerifyRun without a command succeeded")
	}

	snaps := []FileSnapshot{
		{SessionID: sess.ID, TurnID: t1.ID, Path: "add.go", Existed: true, Content: []byte("package x\n\x00binary"), CreatedAt: at},
		{SessionID: sess.ID, TurnID: t2.ID, Path: "new.go", Existed: false, CreatedAt: at},
		{SessionID: sess.ID, TurnID: t2.ID, Path: "empty.txt", Existed: true, Content: []byte{}, CreatedAt: at},
	}
	for i := range snaps {
		id, err := s.RecordSnapshot(ctx, snaps[i])
		if err != nil {
			t.Fatal(err)
		}
		snaps[i].ID = id
	}
	all, err := s.Snapshots(ctx, sess.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 3 {
		t.Fatalf("Snapshots(from 1) = %d, want 3", len(all))
	}
	if a := all[0]; a.TurnSeq != 1 || string(a.Content) != "package x\n\x00binary" || len(a.Hash) != 64 || !a.Existed || !a.CreatedAt.Equal(at) {
		t.Errorf("snapshot 0 = %+v", a)
	}
	if b := all[1]; b.Existed || b.Content != nil || b.Hash != "" || b.TurnSeq != 2 {
		t.Errorf("snapshot of a created file = %+v", b)
	}
	if c := all[2]; !c.Existed || len(c.Content) != 0 || c.Hash != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Errorf("snapshot of an empty file = %+v", c)
	}
	if later, _ := s.Snapshots(ctx, sess.ID, 2); len(later) != 2 || later[0].Path != "new.go" {
		t.Errorf("Snapshots(from 2) = %+v", later)
	}
	for _, f := range []FileSnapshot{
		{SessionID: sess.ID, Path: "x"},
		{SessionID: sess.ID, TurnID: t1.ID},
		{SessionID: sess.ID, TurnID: t1.ID, Path: "x", Content: []byte("y")},
	} {
		if _, err := s.RecordSnapshot(ctx, f); err == nil {
			t.Errorf("RecordSnapshot(%+v) succeeded", f)
		}
	}
}

func TestEventsSince(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, id := openWithSession(t)
	add := func(typ, data string) {
		t.Helper()
		if _, err := st.AppendEvent(ctx, Event{SessionID: id, Type: typ, Data: []byte(data)}); err != nil {
			t.Fatal(err)
		}
	}
	texts := func() []string {
		t.Helper()
		evs, err := st.EventsSince(ctx, id, EventUndo, "turn.started")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range evs {
			out = append(out, string(e.Data))
		}
		return out
	}
	add(EventUndo, `"before any turn"`)
	if got := texts(); len(got) != 1 {
		t.Errorf("no turn yet: %q, want the one undo", got)
	}
	add("turn.started", `{}`)
	add(EventUndo, `"u1"`)
	add("tool.started", `{}`)
	add(EventUndo, `"u2"`)
	if got := strings.Join(texts(), ","); got != `"u1","u2"` {
		t.Errorf("since the last turn: %s", got)
	}
	add("turn.started", `{}`)
	if got := texts(); len(got) != 0 {
		t.Errorf("after a new turn: %q, want none", got)
	}
}
