package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/window"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/fake"
	"github.com/godwit/godwit/tool"
)

// BenchmarkLongSession200 runs a 200-turn scripted session in a 32k
// window, each turn reading a large file, and reports the largest
// request, the heap after the session, and how much it grew between turn
// 50 and turn 200 (flat memory means the engine keeps no per-turn state
// beyond the store):
//
//	go test -run '^$' -bench LongSession200 -benchtime 1x ./internal/agent
func BenchmarkLongSession200(b *testing.B) {
	for range b.N {
		ctx := context.Background()
		st, err := store.Open(ctx, filepath.Join(b.TempDir(), "godwit.db"))
		if err != nil {
			b.Fatal(err)
		}
		provider := fake.NewFunc(brain(0))
		big := &tool.Func{
			ToolSpec: llm.ToolSpec{Name: "read_big", Schema: json.RawMessage(`{"type":"object"}`)},
			Fn: func(_ context.Context, raw json.RawMessage) (tool.Result, error) {
				return tool.Result{Content: strings.Repeat("padding line of a large unrelated file "+string(raw)+"\n", 200)}, nil
			},
		}
		reg, _ := tool.NewRegistry(big)
		budget := window.Scaled(32_000)
		win := window.New(window.Options{System: "You are a test agent.", Tools: reg.Specs(), Budget: budget, Counter: window.NewCounter(), Pages: &window.MemPages{}})
		rec := &maxTokens{}
		rt, _ := agent.New(agent.Config{Provider: provider, Model: "scripted", Assembler: win,
			Runner: tool.NewRunner(reg, tool.RunnerOptions{}), Store: st})
		var sid string
		var heap50 uint64
		for turn := 1; turn <= 200; turn++ {
			res, err := rt.Run(ctx, agent.RunInput{Sink: rec, SessionID: sid, Prompt: fmt.Sprintf("Task %d: summarise the next file. %s", turn, rule), Reset: turn%40 == 0})
			if err != nil {
				b.Fatalf("turn %d: %v", turn, err)
			}
			sid = res.SessionID
			if turn == 50 {
				heap50 = heapInUse()
			}
		}
		heap200 := heapInUse()
		st.Close()
		b.ReportMetric(float64(rec.max), "max-request-tokens")
		b.ReportMetric(float64(heap200)/(1<<20), "heap-MiB")
		b.ReportMetric((float64(heap200)-float64(heap50))/(1<<20), "heap-growth-50-to-200-MiB")
		b.ReportMetric(float64(rec.resets), "resets")
		if rec.max > budget.Input() {
			b.Errorf("a request of %d tokens passed the budget %d", rec.max, budget.Input())
		}
	}
}

type maxTokens struct {
	max, resets int
}

func (m *maxTokens) Emit(e agent.Event) {
	switch e.Type {
	case agent.EventModelRequest:
		m.max = max(m.max, e.Request.Tokens)
	case agent.EventSegmentReset:
		m.resets++
	}
}

func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}
