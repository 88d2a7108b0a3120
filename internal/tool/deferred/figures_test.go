package deferred_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/store/storetest"
	"github.com/godwit/godwit/internal/subagent"
	"github.com/godwit/godwit/internal/tool/deferred"
	"github.com/godwit/godwit/internal/tool/fs"
	"github.com/godwit/godwit/internal/tool/plan"
	"github.com/godwit/godwit/internal/tool/recall"
	"github.com/godwit/godwit/internal/tool/shell"
	"github.com/godwit/godwit/internal/tool/workspace"
	"github.com/godwit/godwit/internal/window"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
)

// spec is a tool that is only a spec: the figures count tokens.
type spec struct{ s llm.ToolSpec }

func (s spec) Name() string       { return s.s.Name }
func (s spec) Spec() llm.ToolSpec { return s.s }
func (spec) Run(context.Context, json.RawMessage) (tool.Result, error) {
	return tool.Result{}, nil
}

// builtins are godwit's own tools, as wiring offers them, and subagent.
func builtins(t testing.TB) []tool.Tool {
	dir := t.TempDir()
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	st := storetest.Open(t)
	sh := shell.New(shell.Options{Workdir: dir})
	t.Cleanup(func() { sh.Close() })
	tools := append(fs.Tools(ws, fs.Options{}), sh, plan.New(), recall.New(st.In(dir)))
	reg, err := tool.NewRegistry(tools...)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := subagent.New(subagent.Options{Parent: reg, Store: st,
		New: func(context.Context, subagent.Child) (*agent.Runtime, error) { return nil, nil }})
	if err != nil {
		t.Fatal(err)
	}
	return append(tools, sub)
}

// everything is the tool list of the reference MCP server
// (@modelcontextprotocol/server-everything 2026.8.31, 13 tools), as godwit
// names them, repeated under n server names.
func everything(t testing.TB, n int) []tool.Tool {
	data, err := os.ReadFile("testdata/everything-tools.json")
	if err != nil {
		t.Fatal(err)
	}
	var specs []llm.ToolSpec
	if err := json.Unmarshal(data, &specs); err != nil {
		t.Fatal(err)
	}
	var out []tool.Tool
	for i := range n {
		for _, s := range specs {
			if i > 0 {
				s.Name = strings.Replace(s.Name, "__everything__", "__everything"+string(rune('a'+i))+"__", 1)
			}
			out = append(out, spec{s})
		}
	}
	return out
}

// prefixTokens is what the tool part of every request costs: the tool
// table plus the listing in the system prompt.
func prefixTokens(c *window.Counter, seg deferred.Segment) (table, listing int) {
	b, _ := json.Marshal(seg.Tools)
	return c.Count(string(b)), c.Count(seg.Listing)
}

// TestDeferralFigures measures, with o200k, the tokens per request the
// tool definitions cost with tools.deferred off, auto and on. Run with -v
// to see the figures recorded in docs.
func TestDeferralFigures(t *testing.T) {
	t.Parallel()
	counter := window.NewCounter()
	for _, tc := range []struct {
		name    string
		servers int
	}{{"built-ins only", 0}, {"built-ins + server-everything", 1}, {"built-ins + 4 servers like it", 4}} {
		tools := append(builtins(t), everything(t, tc.servers)...)
		var totals []int
		for _, mode := range []deferred.Mode{deferred.Off, deferred.Auto, deferred.On} {
			table, err := deferred.New(deferred.Options{Mode: mode, Count: counter.Count}, tools...)
			if err != nil {
				t.Fatal(err)
			}
			seg := table.Segment("s")
			tt, lt := prefixTokens(counter, seg)
			totals = append(totals, tt+lt)
			t.Logf("%-30s %-4s: %2d tools in the table, %2d deferred: table %5d + listing %4d = %5d tokens per request",
				tc.name, mode, len(seg.Tools), len(seg.Deferred), tt, lt, tt+lt)
		}
		off, auto, on := totals[0], totals[1], totals[2]
		if auto > off {
			t.Errorf("%s: auto costs %d tokens, more than off's %d", tc.name, auto, off)
		}
		if tc.servers >= 1 && on >= off {
			t.Errorf("%s: on costs %d tokens, not less than off's %d", tc.name, on, off)
		}
	}
}
