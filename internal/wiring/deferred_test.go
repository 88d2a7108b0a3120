package wiring

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/fake"
)

func specNames(specs []llm.ToolSpec) []string {
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
	}
	return names
}

// With tools.deferred: on, rarely used tools leave the table for a
// one-line listing, tool_call reaches them, and a tool used that way
// joins the table at the next segment, never within one.
func TestDeferredToolsEndToEnd(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte("tools:\n  deferred: on\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := fake.New(
		fake.Step{ToolCalls: []llm.ToolCall{fake.Call("1", "tool_call", map[string]any{"name": "search_memory", "args": map[string]string{"query": "parser"}})}},
		fake.Step{Text: "nothing remembered"},
		fake.Step{Text: "next turn"},
		fake.Step{Text: "## Current task\nAnswer the user.\n## Next step\nAnswer."}, // the handoff
		fake.Step{Text: "after reset"},
	)
	env, err := Build(context.Background(), Options{Home: home, Workspace: t.TempDir(), Model: "demo/m", Provider: p})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	res, err := env.Runtime.Run(context.Background(), agent.RunInput{Prompt: "what do you remember about the parser?"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Runtime.Run(context.Background(), agent.RunInput{SessionID: res.SessionID, Prompt: "go on"}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Runtime.Run(context.Background(), agent.RunInput{SessionID: res.SessionID, Prompt: "again", Reset: true}); err != nil {
		t.Fatal(err)
	}
	reqs := p.Requests()
	first := specNames(reqs[0].Tools)
	if slices.Contains(first, "search_memory") || slices.Contains(first, "subagent") || !slices.Contains(first, "tool_call") {
		t.Errorf("first segment's table = %v", first)
	}
	if !strings.Contains(reqs[0].System, "search_memory") || !strings.Contains(reqs[0].System, "tool_call") {
		t.Error("the deferred tools are not listed in the system prompt")
	}
	if res := reqs[1].Messages[len(reqs[1].Messages)-1].Parts[0].ToolResult; res == nil || res.IsError {
		t.Errorf("tool_call to search_memory failed: %+v", res)
	}
	for i := 1; i < 3; i++ {
		if got := specNames(reqs[i].Tools); !slices.Equal(got, first) {
			t.Errorf("request %d changed the table within the segment: %v", i, got)
		}
	}
	last := specNames(reqs[len(reqs)-1].Tools)
	if !slices.Contains(last, "search_memory") {
		t.Errorf("after the reset, the used tool did not join the table: %v", last)
	}
}
