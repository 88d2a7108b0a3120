// Package demo is `godwit demo`: a sample Go repository with one bug and
// a scripted model that fixes it through the real tools, store and turn
// loop, so a new user sees a whole session without an API key.
//
// Of godwit's packages it imports only llm and llm/fake.
package demo

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/fake"
)

//go:embed testdata/sample
var sample embed.FS

// Prompt is the user message the demo sends.
const Prompt = "The tests in this repository fail. Find the bug, fix it, and show me the tests pass."

// Model names the scripted model in records.
const Model = "demo/scripted"

// WriteSample copies the sample repository into dir. Files are embedded
// with a .txt suffix where the Go tool would otherwise treat them as part
// of godwit's own module (go.mod); it is removed on the way out.
func WriteSample(dir string) error {
	return fs.WalkDir(sample, "testdata/sample", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := sample.ReadFile(p)
		if err != nil {
			return err
		}
		rel := strings.TrimSuffix(strings.TrimPrefix(p, "testdata/sample/"), ".txt")
		dst := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		return nil
	})
}

// Provider returns the scripted model: it looks around, runs the tests,
// fixes Add, runs the tests again, and answers from what the last command
// really showed, not from the script's hopes.
func Provider() *fake.Provider {
	return fake.New(
		fake.Step{
			Text: "I'll look at the repository first.",
			ToolCalls: []llm.ToolCall{
				fake.Call("call_1", "file_list", map[string]any{"path": "."}),
				fake.Call("call_2", "file_read", map[string]any{"path": "calc.go"}),
			},
		},
		fake.Step{
			Text:      "Now the tests, to see what fails.",
			ToolCalls: []llm.ToolCall{fake.Call("call_3", "shell_exec", map[string]any{"command": "go test ./..."})},
		},
		fake.Step{Respond: func(req llm.Request) fake.Step {
			if !strings.Contains(lastResult(req), "Add(") {
				return fake.Step{Text: "The tests did not fail the way I expected:\n\n" + lastResult(req)}
			}
			return fake.Step{
				Text: "`Add` subtracts instead of adding. Fixing it.",
				ToolCalls: []llm.ToolCall{fake.Call("call_4", "file_edit", map[string]any{
					"path": "calc.go", "old_text": "return a - b", "new_text": "return a + b",
				})},
			}
		}},
		fake.Step{
			Text:      "Running the tests again.",
			ToolCalls: []llm.ToolCall{fake.Call("call_5", "shell_exec", map[string]any{"command": "go test ./..."})},
		},
		fake.Step{Respond: func(req llm.Request) fake.Step {
			out := lastResult(req)
			if strings.Contains(out, "ok") && !strings.Contains(out, "FAIL") {
				return fake.Step{Text: "Fixed: `Add` in calc.go returned `a - b`; it now returns `a + b`. `go test ./...` passes:\n\n" + firstLines(out, 3)}
			}
			return fake.Step{Text: "I changed `Add` in calc.go, but the tests still fail:\n\n" + firstLines(out, 12)}
		}},
	)
}

// lastResult is the content of the newest tool result in the request.
func lastResult(req llm.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		for _, p := range req.Messages[i].Parts {
			if p.Kind == llm.PartToolResult {
				return p.ToolResult.Content
			}
		}
	}
	return ""
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(strings.TrimSpace(s), "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
