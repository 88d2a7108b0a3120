package wiring

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/window"
	"github.com/godwit/godwit/llm/fake"
)

// The fixed prefix is paid for on every request: the system prompt and
// every built-in tool schema together stay at or under 3,000 o200k tokens
// (issue 4). Measured on the request the engine really sends.
const prefixBudget = 3000

func TestPrefixBudget(t *testing.T) {
	t.Parallel()
	builtins := []string{"file_read", "file_write", "file_edit", "file_list", "grep", "shell_exec", "plan", "recall", "search_memory", "subagent"}
	for _, c := range []struct {
		name string
		mail bool
		want []string
	}{
		// Where no session has mail, send_message costs nothing.
		{"no mail", false, builtins},
		// send_message is deferred even with tools.deferred off: listed in
		// the system prompt, reached through tool_call.
		{"mail", true, append(slices.Clone(builtins), "tool_call")},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := fake.New(fake.Step{Text: "ok"})
			env, err := Build(context.Background(), Options{Home: t.TempDir(), Workspace: t.TempDir(), Model: "demo/m", Provider: p, Mail: c.mail})
			if err != nil {
				t.Fatal(err)
			}
			defer env.Close()
			if _, err := env.Runtime.Run(context.Background(), agent.RunInput{Prompt: "hi"}); err != nil {
				t.Fatal(err)
			}
			req := p.Requests()[0]
			tools, _ := json.Marshal(req.Tools)
			counter := window.NewCounter()
			sys, tbl := counter.Count(req.System), counter.Count(string(tools))
			t.Logf("system prompt %d tokens, tool table %d tokens (%d tools), total %d of %d", sys, tbl, len(req.Tools), sys+tbl, prefixBudget)
			if sys+tbl > prefixBudget {
				t.Errorf("system prompt + tool schemas = %d o200k tokens; the budget is %d", sys+tbl, prefixBudget)
			}
			var names []string
			for _, s := range req.Tools {
				names = append(names, s.Name)
			}
			if listed := strings.Contains(req.System, "- send_message("); listed != c.mail {
				t.Errorf("send_message listed in the system prompt: %v, want %v:\n%s", listed, c.mail, req.System)
			}
			if !slices.Equal(names, c.want) {
				t.Errorf("tools = %v, want %v (the order is part of the cached prefix)", names, c.want)
			}
		})
	}
}

func TestContextWindowPrecedence(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		flag, cfg, catalog, want int
	}{{0, 0, 0, 0}, {0, 0, 200_000, 200_000}, {0, 64_000, 200_000, 64_000}, {32_000, 64_000, 200_000, 32_000}} {
		if got := contextWindow(tc.flag, tc.cfg, tc.catalog); got != tc.want {
			t.Errorf("contextWindow(%d, %d, %d) = %d, want %d", tc.flag, tc.cfg, tc.catalog, got, tc.want)
		}
	}
}
