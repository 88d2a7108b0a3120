package trace_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/store/storetest"
	"github.com/godwit/godwit/internal/trace"
	"github.com/godwit/godwit/llm"
)

// Parallel calls are recorded as they finish; Load puts them back in the
// order the model asked for them.
func TestLoadOrdersParallelCallsAsTheModelAsked(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t)
	id := store.NewID()
	if err := st.CreateSession(ctx, store.Session{ID: id}); err != nil {
		t.Fatal(err)
	}
	turn, err := st.StartTurn(ctx, id, "go", 1)
	if err != nil {
		t.Fatal(err)
	}
	asked := llm.Message{Role: llm.RoleAssistant}
	for _, cid := range []string{"x", "a", "m"} {
		asked.Parts = append(asked.Parts, llm.Part{Kind: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: cid, Name: "grep", Args: json.RawMessage(`{}`)}})
	}
	if _, err := st.AppendMessage(ctx, id, turn.ID, 1, asked); err != nil {
		t.Fatal(err)
	}
	// Step 2 first in the table, then step 1's calls finishing out of order.
	for _, c := range []struct {
		step int
		id   string
	}{{2, "z"}, {1, "m"}, {1, "x"}, {1, "a"}} {
		if _, err := st.RecordToolCall(ctx, store.ToolCall{SessionID: id, TurnID: turn.ID, Step: c.step, CallID: c.id, Name: "grep"}); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := trace.Load(ctx, st, id[:14])
	if err != nil {
		t.Fatal(err)
	}
	var got string
	for _, c := range tr.ToolCalls {
		got += c.CallID
	}
	if got != "xamz" {
		t.Errorf("order = %s, want xamz", got)
	}
}
