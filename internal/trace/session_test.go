package trace_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/store/storetest"
	"github.com/godwit/godwit/internal/trace"
	"github.com/godwit/godwit/internal/window"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/fake"
	"github.com/godwit/godwit/tool"
)

// clock is a deterministic clock: each reading is step later than the
// one before.
type clock struct {
	mu   sync.Mutex
	t    time.Time
	step time.Duration
}

func newClock() *clock {
	return &clock{t: time.Date(2025, 3, 4, 9, 30, 0, 0, time.UTC), step: 250 * time.Millisecond}
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(c.step)
	return c.t
}

// workspace is an in-memory project the scripted tools act on.
type workspace struct {
	mu    sync.Mutex
	files map[string]string
}

const (
	buggyCalc = "package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n\n// Sub returns a-b.\nfunc Sub(a, b int) int {\n\treturn a - b\n}\n"
	brokenFix = "package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int {\n\treturn sum\n}\n\n// Sub returns a-b.\nfunc Sub(a, b int) int {\n\treturn a - b\n}\n"
	calcTest  = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n\t\tt.Fatalf(\"Add(2, 3) = %d, want 5\", got)\n\t}\n}\n\nfunc TestSub(t *testing.T) {\n\tif got := Sub(5, 3); got != 2 {\n\t\tt.Fatalf(\"Sub(5, 3) = %d, want 2\", got)\n\t}\n}\n"
)

func newWorkspace() *workspace {
	return &workspace{files: map[string]string{"calc.go": buggyCalc, "calc_test.go": calcTest, "go.mod": "module example/calc\n\ngo 1.22\n"}}
}

func spec(name string) llm.ToolSpec {
	return llm.ToolSpec{Name: name, Description: name, Schema: json.RawMessage(`{"type":"object"}`)}
}

func decode[T any](raw json.RawMessage) T {
	var v T
	_ = json.Unmarshal(raw, &v)
	return v
}

// tools returns scripted stand-ins for the built-in tools, under their
// model-facing names, over ws.
func (ws *workspace) tools() []tool.Tool {
	type pathArgs struct {
		Path      string `json:"path"`
		Content   string `json:"content"`
		OldText   string `json:"old_text"`
		NewText   string `json:"new_text"`
		StartLine int    `json:"start_line"`
		EndLine   int    `json:"end_line"`
		Pattern   string `json:"pattern"`
		Command   string `json:"command"`
	}
	writes := func(raw json.RawMessage) (tool.Access, error) {
		a := decode[pathArgs](raw)
		return tool.Access{Mutates: true, Paths: []tool.PathAccess{{Path: "/ws/" + a.Path, Write: true}}, Summary: "write " + a.Path}, nil
	}
	return []tool.Tool{
		&tool.Func{ToolSpec: spec("file_list"), Fn: func(context.Context, json.RawMessage) (tool.Result, error) {
			return tool.Result{Content: "calc.go\ncalc_test.go\ngo.mod"}, nil
		}},
		&tool.Func{ToolSpec: spec("grep"), Fn: func(_ context.Context, raw json.RawMessage) (tool.Result, error) {
			a := decode[pathArgs](raw)
			ws.mu.Lock()
			defer ws.mu.Unlock()
			var hits []string
			for _, name := range []string{"calc.go", "calc_test.go", "go.mod"} {
				for i, l := range strings.Split(ws.files[name], "\n") {
					if strings.Contains(l, a.Pattern) {
						hits = append(hits, fmt.Sprintf("%s:%d:%s", name, i+1, l))
					}
				}
			}
			return tool.Result{Content: strings.Join(hits, "\n")}, nil
		}},
		&tool.Func{ToolSpec: spec("file_read"), Fn: func(_ context.Context, raw json.RawMessage) (tool.Result, error) {
			a := decode[pathArgs](raw)
			ws.mu.Lock()
			body, ok := ws.files[path.Clean(a.Path)]
			ws.mu.Unlock()
			if !ok {
				return tool.Result{}, tool.Errorf(tool.CodeNotFound, "List the directory with file_list.", "no file %s", a.Path)
			}
			var b strings.Builder
			for i, l := range strings.Split(strings.TrimSuffix(body, "\n"), "\n") {
				n := i + 1
				if (a.StartLine > 0 && n < a.StartLine) || (a.EndLine > 0 && n > a.EndLine) {
					continue
				}
				fmt.Fprintf(&b, "%d\t%s\n", n, l)
			}
			return tool.Result{Content: b.String()}, nil
		}},
		&tool.Func{ToolSpec: spec("file_write"), AccessFn: writes, Fn: func(_ context.Context, raw json.RawMessage) (tool.Result, error) {
			a := decode[pathArgs](raw)
			ws.mu.Lock()
			old := ws.files[a.Path]
			ws.files[a.Path] = a.Content
			ws.mu.Unlock()
			return tool.Result{Content: fmt.Sprintf("wrote %s (%d bytes)", a.Path, len(a.Content)),
				Changed: []string{a.Path}, Diff: lineDiff(a.Path, old, a.Content)}, nil
		}},
		&tool.Func{ToolSpec: spec("file_edit"), AccessFn: writes, Fn: func(_ context.Context, raw json.RawMessage) (tool.Result, error) {
			a := decode[pathArgs](raw)
			ws.mu.Lock()
			defer ws.mu.Unlock()
			old := ws.files[a.Path]
			if !strings.Contains(old, a.OldText) {
				return tool.Result{}, tool.Errorf(tool.CodeEditNoMatch, "Re-read the file with file_read.", "old_text not found in %s", a.Path)
			}
			ws.files[a.Path] = strings.Replace(old, a.OldText, a.NewText, 1)
			return tool.Result{Content: "edited " + a.Path, Changed: []string{a.Path},
				Diff: lineDiff(a.Path, old, ws.files[a.Path])}, nil
		}},
		&tool.Func{ToolSpec: spec("shell_exec"),
			AccessFn: func(raw json.RawMessage) (tool.Access, error) {
				a := decode[pathArgs](raw)
				return tool.Access{Exclusive: true, Mutates: true, Command: a.Command, Summary: "run: " + a.Command}, nil
			},
			Fn: func(_ context.Context, raw json.RawMessage) (tool.Result, error) {
				out, code := ws.shell(decode[pathArgs](raw).Command)
				return tool.Result{Content: out, ExitCode: &code}, nil
			}},
	}
}

// shell fakes the commands the script runs, from the workspace's state.
func (ws *workspace) shell(cmd string) (string, int) {
	ws.mu.Lock()
	calc := ws.files["calc.go"]
	ws.mu.Unlock()
	switch {
	case strings.HasPrefix(cmd, "go test"):
		switch {
		case strings.Contains(calc, "return sum"):
			return "# example/calc [example/calc.test]\n./calc.go:5:9: undefined: sum\nFAIL\texample/calc [build failed]\nFAIL\n[exit 1 · 0.31s]", 1
		case strings.Contains(calc, "return a - b\n}\n\n// Sub"):
			var b strings.Builder
			b.WriteString("--- FAIL: TestAdd (0.00s)\n    calc_test.go:7: Add(2, 3) = -1, want 5\n")
			for i := range 12 {
				fmt.Fprintf(&b, "    trace line %d\n", i+1)
			}
			b.WriteString("FAIL\nFAIL\texample/calc\t0.004s\nFAIL\n[exit 1 · 0.42s]")
			return b.String(), 1
		}
		return "ok  \texample/calc\t0.003s\n[exit 0 · 0.38s]", 0
	case strings.HasPrefix(cmd, "go vet"):
		return "# example/calc\nwarning: GOPATH set to GOROOT (/usr/local/go) has no effect\n[exit 0 · 0.20s]", 0
	}
	return "sh: 1: " + cmd + ": not found\n[exit 127 · 0.01s]", 127
}

// lineDiff is a minimal unified diff: the changed lines only.
func lineDiff(path, old, new string) string {
	a, b := strings.Split(old, "\n"), strings.Split(new, "\n")
	var out strings.Builder
	fmt.Fprintf(&out, "--- a/%s\n+++ b/%s\n", path, path)
	for i := 0; i < max(len(a), len(b)); i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			fmt.Fprintf(&out, "@@ -%d +%d @@\n-%s\n+%s\n", i+1, i+1, x, y)
		}
	}
	return out.String()
}

// usage grows the input as a real session's does, with most of it read
// from the cache after the first call.
func usage(step int, out int64) *llm.Usage {
	in := int64(1200 + 450*step)
	var cached int64
	if step > 1 {
		cached = int64(1200 + 450*(step-1))
	}
	return &llm.Usage{InputTokens: in, CacheReadTokens: cached, OutputTokens: out, ReasoningTokens: out / 4}
}

// price is a fixed list price: $3/M input, $0.30/M cached, $15/M output.
func price(u llm.Usage) float64 {
	return (float64(u.InputTokens-u.CacheReadTokens)*3 + float64(u.CacheReadTokens)*0.3 + float64(u.OutputTokens)*15) / 1e6
}

// turn1 explores, reads calc.go twice, writes a broken fix, runs a
// failing test, fixes it, passes, runs vet (a warning) and a test again,
// and answers.
func turn1() []fake.Step {
	call := fake.Call
	return []fake.Step{
		{Text: "Let me look at the project first.", ToolCalls: []llm.ToolCall{
			call("c1", "file_list", map[string]string{"path": "."}),
			call("c2", "grep", map[string]string{"pattern": "func Add"}),
		}, Usage: usage(1, 60)},
		{ToolCalls: []llm.ToolCall{
			call("c3", "file_read", map[string]string{"path": "calc.go"}),
			call("c4", "file_read", map[string]string{"path": "calc_test.go"}),
		}, Usage: usage(2, 40)},
		{Text: "Running the tests to see the failure.", ToolCalls: []llm.ToolCall{
			call("c5", "shell_exec", map[string]string{"command": "go test ./..."}),
		}, Usage: usage(3, 30)},
		{Thinking: "Add subtracts.", ToolCalls: []llm.ToolCall{
			call("c6", "file_read", map[string]any{"path": "./calc.go", "start_line": 3, "end_line": 6}),
		}, Usage: usage(4, 35)},
		{Text: "Add subtracts instead of adding; rewriting it.", ToolCalls: []llm.ToolCall{
			call("c7", "file_write", map[string]string{"path": "calc.go", "content": brokenFix}),
		}, Usage: usage(5, 180)},
		{ToolCalls: []llm.ToolCall{
			call("c8", "shell_exec", map[string]string{"command": "go test ./..."}),
		}, Usage: usage(6, 25)},
		{Text: "A build error; checking what I wrote.", ToolCalls: []llm.ToolCall{
			call("c9", "file_read", map[string]string{"path": "calc.go"}),
		}, Usage: usage(7, 30)},
		{ToolCalls: []llm.ToolCall{
			call("c10", "file_edit", map[string]string{"path": "calc.go", "old_text": "return sum", "new_text": "return a + b"}),
		}, Usage: usage(8, 50)},
		{ToolCalls: []llm.ToolCall{
			call("c11", "shell_exec", map[string]string{"command": "go test ./..."}),
		}, Usage: usage(9, 25)},
		{Text: "Tests pass. Checking vet and the one test once more.", ToolCalls: []llm.ToolCall{
			call("c12", "shell_exec", map[string]string{"command": "go vet ./..."}),
			call("c13", "shell_exec", map[string]string{"command": "go test -run TestAdd ./..."}),
		}, Usage: usage(10, 45)},
		{Text: "Fixed: `Add` returned `a - b`; it now returns `a + b`.\n`go test ./...` passes.", Usage: usage(11, 40)},
	}
}

// turn2 edits a comment and answers without checking; the end-of-turn
// check sends it back to run the tests.
func turn2() []fake.Step {
	return []fake.Step{
		{ToolCalls: []llm.ToolCall{fake.Call("d1", "file_edit", map[string]string{"path": "calc.go",
			"old_text": "// Sub returns a-b.", "new_text": "// Sub returns the difference a-b."})}, Usage: usage(12, 40)},
		{Text: "Done.", Usage: usage(13, 5)},
		{ToolCalls: []llm.ToolCall{fake.Call("d2", "shell_exec", map[string]string{"command": "go test ./..."})}, Usage: usage(14, 20)},
		{Text: "Done; the tests still pass.", Usage: usage(15, 10)},
	}
}

// recordedSession runs the script through the real runtime over a real
// store in a temp dir and returns the store and the session id.
func recordedSession(t testing.TB) (*store.Store, string) {
	t.Helper()
	ctx := context.Background()
	st := storetest.Open(t, store.WithClock(newClock().Now))
	ws := newWorkspace()
	reg, err := tool.NewRegistry(ws.tools()...)
	if err != nil {
		t.Fatal(err)
	}
	provider := fake.New(append(turn1(), turn2()...)...)
	rt, err := agent.New(agent.Config{
		Provider:     provider,
		ProviderName: "fake",
		Model:        "scripted-1",
		Assembler:    window.New(window.Options{System: "You are a test.", Tools: reg.Specs()}),
		Runner:       tool.NewRunner(reg, tool.RunnerOptions{Approver: tool.AllowAll{}}),
		Store:        st,
		Workspace:    "/ws",
		Cost:         price,
		Now:          newClock().Now,
		Verify: func(_ context.Context, cmd string, _ time.Duration) agent.VerifyOutcome {
			out, code := ws.shell(cmd)
			return agent.VerifyOutcome{ExitCode: code, Output: out, Duration: 380 * time.Millisecond}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := rt.Run(ctx, agent.RunInput{Prompt: "The Add function in calc.go returns the wrong sum; fix it and make the tests pass.",
		Verify: "go test ./..."})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Run(ctx, agent.RunInput{SessionID: res.SessionID, Prompt: "Thanks. Make Sub's comment say it is the difference."}); err != nil {
		t.Fatal(err)
	}
	if n := provider.Remaining(); n != 0 {
		t.Fatalf("%d scripted steps unused", n)
	}
	return st, res.SessionID
}

func loadRecorded(t testing.TB) (*store.Store, *trace.Trace) {
	t.Helper()
	st, id := recordedSession(t)
	tr, err := trace.Load(context.Background(), st, id)
	if err != nil {
		t.Fatal(err)
	}
	return st, tr
}
