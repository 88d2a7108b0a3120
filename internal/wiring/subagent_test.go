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

// A sub-agent has a shell of its own for read-only commands: they run,
// a command that would write is refused, and it cannot start jobs.
func TestSubagentShellIsReadOnly(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := fake.New(
		fake.Step{ToolCalls: []llm.ToolCall{fake.Call("p1", "subagent", map[string]any{"task": "list the files"})}},
		fake.Step{ToolCalls: []llm.ToolCall{fake.Call("c1", "shell_exec", map[string]any{"command": "echo x > made.txt"})}},
		fake.Step{ToolCalls: []llm.ToolCall{fake.Call("c2", "shell_exec", map[string]any{"command": "ls"})}},
		fake.Step{Text: "main.go is the only file."},
		fake.Step{Text: "done"},
	)
	env, err := Build(context.Background(), Options{Home: t.TempDir(), Workspace: ws, Model: "demo/m", Provider: p})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if _, err := env.Runtime.Run(context.Background(), agent.RunInput{Prompt: "what files are there?"}); err != nil {
		t.Fatal(err)
	}
	reqs := p.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5", len(reqs))
	}
	child := reqs[1]
	var shellSpec *llm.ToolSpec
	for i, s := range child.Tools {
		if s.Name == "shell_exec" {
			shellSpec = &child.Tools[i]
		}
	}
	if shellSpec == nil || strings.Contains(string(shellSpec.Schema), "background") {
		t.Fatalf("the sub-agent's tools: %v (shell_exec must be there, without jobs)", specNames(child.Tools))
	}
	if slices.Contains(specNames(child.Tools), "file_write") {
		t.Error("the sub-agent can write files")
	}
	result := func(r llm.Request) *llm.ToolResult {
		m := r.Messages[len(r.Messages)-1]
		return m.Parts[0].ToolResult
	}
	if res := result(reqs[2]); res == nil || !res.IsError {
		t.Errorf("the write was not refused: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(ws, "made.txt")); err == nil {
		t.Error("the sub-agent's command wrote a file")
	}
	if res := result(reqs[3]); res == nil || res.IsError || !strings.Contains(res.Content, "main.go") {
		t.Errorf("ls in the sub-agent: %+v", res)
	}
}
