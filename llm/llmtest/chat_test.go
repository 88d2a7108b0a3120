package llmtest

import (
	"encoding/json"
	"strings"
	"testing"
)

// chatChunks decodes a chat stream built here into its chunks.
func chatChunks(t *testing.T, body string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, d := range sseData(body) {
		if d == "[DONE]" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(d), &m); err != nil {
			t.Fatalf("chunk is not JSON: %v\n%s", err, d)
		}
		out = append(out, m)
	}
	return out
}

func TestChatBuilders(t *testing.T) {
	body := ChatReply(ChatReasoning("hmm"), ChatText("Hi"), ChatToolCallAt(1, "c1", "grep", `{"pattern":"x"}`), ChatFinish("tool_calls"), ChatUsageCached(10, 2, 4)).Body
	if !strings.HasSuffix(body, ChatDone) {
		t.Errorf("reply does not end with [DONE]")
	}
	var reasoning, text, args, id, name, finish string
	var usage map[string]any
	for _, c := range chatChunks(t, body) {
		if c["object"] != "chat.completion.chunk" {
			t.Errorf("object = %v", c["object"])
		}
		if u, ok := c["usage"].(map[string]any); ok {
			usage = u
		}
		for _, ch := range c["choices"].([]any) {
			ch := ch.(map[string]any)
			if f, ok := ch["finish_reason"].(string); ok {
				finish = f
			}
			d := ch["delta"].(map[string]any)
			reasoning += str(d["reasoning_content"])
			text += str(d["content"])
			for _, tc := range asList(d["tool_calls"]) {
				tc := tc.(map[string]any)
				if tc["index"] != 1.0 {
					t.Errorf("tool call index = %v, want 1", tc["index"])
				}
				id += str(tc["id"])
				f := tc["function"].(map[string]any)
				name += str(f["name"])
				args += str(f["arguments"])
			}
		}
	}
	if reasoning != "hmm" || text != "Hi" || id != "c1" || name != "grep" || args != `{"pattern":"x"}` || finish != "tool_calls" {
		t.Errorf("decoded reasoning=%q text=%q id=%q name=%q args=%q finish=%q", reasoning, text, id, name, args, finish)
	}
	if usage["prompt_tokens"] != 10.0 || usage["completion_tokens"] != 2.0 || usage["prompt_tokens_details"].(map[string]any)["cached_tokens"] != 4.0 {
		t.Errorf("usage = %v", usage)
	}
}

func str(v any) string { s, _ := v.(string); return s }

func asList(v any) []any { l, _ := v.([]any); return l }
