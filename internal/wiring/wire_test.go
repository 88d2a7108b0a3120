package wiring

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/llm/llmtest"
)

// TestWirePrefixStability runs a three-step tool loop through the real
// engine and each real adapter against llmtest, then checks on the
// captured HTTP requests that each one extends the one before it (the
// provider's cache prefix holds) and that each wire format's invariants
// hold: every tool call answered once, no null tool input, signatures and
// reasoning echoed unchanged.
func TestWirePrefixStability(t *testing.T) {
	t.Parallel()
	tests := []struct {
		typ     string
		replies []llmtest.Reply
		check   func(t testing.TB, reqs []llmtest.Captured, served ...llmtest.Reply)
	}{
		{"openai-chat", []llmtest.Reply{
			llmtest.ChatReply(llmtest.ChatToolCall("c1", "file_read", `{"path":"a.txt"}`), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(1000, 10)),
			llmtest.ChatReply(llmtest.ChatToolCall("c2", "file_list", `{}`), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsageCached(1100, 10, 1000)),
			llmtest.ChatTextReply("done", 1200, 2),
		}, func(t testing.TB, reqs []llmtest.Captured, _ ...llmtest.Reply) { llmtest.CheckChat(t, reqs) }},
		{"openai-responses", []llmtest.Reply{
			llmtest.ResponsesReply(llmtest.ResponsesReasoning("rs_1", "enc-1", "thinking"), llmtest.ResponsesFunctionCall("c1", "file_read", `{"path":"a.txt"}`), llmtest.ResponsesCompleted(1000, 10)),
			llmtest.ResponsesReply(llmtest.ResponsesFunctionCall("c2", "file_list", `{}`), llmtest.ResponsesCompletedCached(1100, 10, 1000, 0)),
			llmtest.ResponsesTextReply("done", 1200, 2),
		}, llmtest.CheckResponses},
		{"anthropic", []llmtest.Reply{
			llmtest.AnthropicReply(llmtest.AnthropicThinking("hmm", "sig-1"), llmtest.AnthropicToolUse("c1", "file_read", `{"path":"a.txt"}`), llmtest.AnthropicUsage(1000, 10, 0, 900), llmtest.AnthropicStop("tool_use")),
			llmtest.AnthropicReply(llmtest.AnthropicToolUse("c2", "file_list", `{}`), llmtest.AnthropicUsage(100, 10, 900, 100), llmtest.AnthropicStop("tool_use")),
			llmtest.AnthropicReply(llmtest.AnthropicText("done"), llmtest.AnthropicUsage(100, 2, 1000, 100), llmtest.AnthropicStop("end_turn")),
		}, llmtest.CheckAnthropic},
	}
	for _, tc := range tests {
		t.Run(tc.typ, func(t *testing.T) {
			srv := llmtest.NewTestServer(t, tc.replies...)
			home, ws := t.TempDir(), t.TempDir()
			base := srv.URL() + "/v1"
			if tc.typ == "anthropic" {
				base = srv.URL()
			}
			cfg := "providers:\n  wire:\n    type: " + tc.typ + "\n    base_url: " + base + "\n    api_key_env: WIRE_KEY\n"
			if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("alpha\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			getenv := func(k string) string {
				if k == "WIRE_KEY" {
					return "test-key"
				}
				return ""
			}
			env, err := Build(context.Background(), Options{Home: home, Workspace: ws, Model: "wire/test-model", Getenv: getenv})
			if err != nil {
				t.Fatal(err)
			}
			defer env.Close()
			res, err := env.Runtime.Run(context.Background(), agent.RunInput{Prompt: "look around"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Text != "done" || res.Steps != 3 {
				t.Errorf("result = %+v", res)
			}
			reqs := srv.Requests()
			llmtest.CheckAppendOnly(t, reqs)
			tc.check(t, reqs, tc.replies...)
		})
	}
}
