package eval

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godwit/godwit/llm/llmtest"
)

// With a model named, the task's script is ignored and the configured
// provider answers over its real wire (here an OpenAI-compatible fake
// server): the config comes from the user's home, the price from it too.
func TestRunRealModel(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewTestServer(t,
		llmtest.ChatReply(llmtest.ChatToolCall("c1", "file_write", `{"path":"note.go","content":"hello\n"}`), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(1000, 20)),
		llmtest.ChatTextReply("Written.", 1200, 10),
		// The engine's end-of-turn check asks about the unchecked write
		// (of code: prose files need none).
		llmtest.ChatTextReply("A note needs no tests.", 1300, 5),
	)
	home := t.TempDir()
	cfg := "providers:\n  local:\n    type: openai-chat\n    base_url: " + srv.URL() + "/v1\n    no_key: true\n" +
		"models:\n  - {provider: local, id: tiny, context_window: 32000, price: {input: 1, output: 2}}\n"
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	y := "id: note\nversion: 1\nturns: [write the note]\nchecks: {files: [{path: note.go, contains: [hello]}]}\n" +
		"model: {rules: [{say: 'the script must not answer'}]}\n"
	task, err := LoadTask(writeTask(t, t.TempDir(), "s", "note", y, nil))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), []*Task{task}, Options{Model: "local/tiny", Home: home, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Runs[0]
	if !r.Pass || res.Model != "local/tiny" || r.Model != "local/tiny" || res.Scripted {
		t.Fatalf("result %+v (model %s)", r, res.Model)
	}
	if r.Calls != 3 || r.InputTokens != 3500 || r.OutputTokens != 35 || r.SystemHash == "" || r.ToolsHash == "" {
		t.Errorf("numbers: %+v", r)
	}
	// 3500 input at $1/M and 35 output at $2/M.
	if want := (3500*1.0 + 35*2.0) / 1e6; math.Abs(r.Cost-want) > 1e-12 {
		t.Errorf("cost %v, want %v", r.Cost, want)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || !strings.Contains(string(reqs[0].Body), `"model":"tiny"`) {
		t.Errorf("the provider got %d requests: %s", len(reqs), reqs[0].Body)
	}
}
