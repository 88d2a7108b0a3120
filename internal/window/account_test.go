package window

import (
	"fmt"
	"strings"
	"testing"

	"github.com/godwit/godwit/llm"
)

// BenchmarkAccountGrowingHistory measures accounting as a session does
// it: every request adds one step (an answer and a 4.5 KB output) to a
// history that starts at 60 steps, so each request's history is new.
//
//	go test -run '^$' -bench AccountGrowing -benchtime 200x ./internal/window
func BenchmarkAccountGrowingHistory(b *testing.B) {
	w := New(Options{System: "sys", Counter: NewCounter()})
	w.opts.Counter.Count("warm up")
	st := &segState{toolsJSON: "[]"}
	out := strings.Repeat("a line of tool output that is fairly typical\n", 100)
	step := func(msgs []llm.Message, i int) []llm.Message {
		return append(msgs, llm.AssistantText(fmt.Sprint("step ", i)), llm.Message{Role: llm.RoleTool, Parts: []llm.Part{{Kind: llm.PartToolResult,
			ToolResult: &llm.ToolResult{CallID: "c", Content: fmt.Sprint(i) + out}}}})
	}
	var msgs []llm.Message
	for i := range 60 {
		msgs = step(msgs, i)
		w.account(st, msgs)
	}
	b.ResetTimer()
	for i := range b.N {
		msgs = step(msgs, 60+i)
		w.account(st, msgs)
	}
}

func TestAccountSumsPieces(t *testing.T) {
	w := New(Options{System: "system text"})
	st := &segState{toolsJSON: `[{"name":"x"}]`, prefix: Prefix{Base: "system text", Parts: []Text{{Part: PartRules, Body: "rule"}}}}
	msgs := []llm.Message{
		llm.UserText(HandoffPrefix + ": old"),
		llm.UserText("hello"),
		{Role: llm.RoleTool, Parts: []llm.Part{{Kind: llm.PartToolResult, ToolResult: &llm.ToolResult{Content: "12345678"}}}},
	}
	stats, total, est, acc := w.account(st, msgs)
	if acc.prefix+acc.msgs[0]+acc.msgs[1]+acc.msgs[2] != total {
		t.Errorf("accounting %+v does not sum to %d", acc, total)
	}
	got := map[string]int{}
	sum := 0
	for _, s := range stats {
		got[s.Name] = s.Bytes
		sum += s.Tokens
	}
	if !est || total != sum || got[PartHandoff] != len(HandoffPrefix)+5 || got[PartMessages] != 5 || got[PartToolOutputs] != 8 || got[PartRules] != 4 {
		t.Errorf("stats = %+v, total %d", stats, total)
	}
}
