package anthropic

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/godwit/godwit/llm/llmtest"
)

// sameMeaning fails t where got (the adapter's request i) differs in
// meaning from want (the recorded one): model, max_tokens, system text,
// tools, whether thinking is on, and every message's role and blocks. It
// ignores what the two clients legitimately choose differently:
// cache_control markers, the thinking budget, tool_choice, and the byte
// layout of JSON values.
func sameMeaning(t *testing.T, i int, got, want *llmtest.AnthropicRequest) {
	t.Helper()
	if !got.Stream {
		t.Errorf("request %d: not streamed", i)
	}
	if got.Model != want.Model || got.MaxTokens != want.MaxTokens {
		t.Errorf("request %d: model %q max_tokens %d; recorded %q %d", i, got.Model, got.MaxTokens, want.Model, want.MaxTokens)
	}
	if got.System.Text() != want.System.Text() {
		t.Errorf("request %d: system %q; recorded %q", i, got.System.Text(), want.System.Text())
	}
	if (got.Thinking == nil) != (want.Thinking == nil) || (got.Thinking != nil && got.Thinking.Type != want.Thinking.Type) {
		t.Errorf("request %d: thinking %+v; recorded %+v", i, got.Thinking, want.Thinking)
	}
	if len(got.Tools) != len(want.Tools) {
		t.Fatalf("request %d: %d tools; recorded %d", i, len(got.Tools), len(want.Tools))
	}
	for j, tl := range got.Tools {
		w := want.Tools[j]
		if tl.Name != w.Name || tl.Description != w.Description || !sameJSON(tl.InputSchema, w.InputSchema) {
			t.Errorf("request %d tool %d: %s %q %s; recorded %s %q %s", i, j, tl.Name, tl.Description, tl.InputSchema, w.Name, w.Description, w.InputSchema)
		}
	}
	if len(got.Messages) != len(want.Messages) {
		t.Fatalf("request %d: %d messages; recorded %d", i, len(got.Messages), len(want.Messages))
	}
	for j, m := range got.Messages {
		w := want.Messages[j]
		if m.Role != w.Role || len(m.Content) != len(w.Content) {
			t.Errorf("request %d message %d: %s with %d blocks; recorded %s with %d", i, j, m.Role, len(m.Content), w.Role, len(w.Content))
			continue
		}
		for k, b := range m.Content {
			if !sameBlock(b, w.Content[k]) {
				t.Errorf("request %d message %d block %d:\n  got      %+v\n  recorded %+v", i, j, k, b, w.Content[k])
			}
		}
	}
}

func sameBlock(a, b llmtest.AnthropicBlock) bool {
	if a.Type != b.Type {
		return false
	}
	switch a.Type {
	case "text":
		return a.Text == b.Text
	case "thinking":
		return a.Thinking == b.Thinking && a.Signature == b.Signature
	case "redacted_thinking":
		return a.Data == b.Data
	case "tool_use":
		return a.ID == b.ID && a.Name == b.Name && sameJSON(a.Input, b.Input)
	case "tool_result":
		return a.ToolUseID == b.ToolUseID && a.IsError == b.IsError && a.Content.Text() == b.Content.Text()
	}
	return false
}

// sameJSON reports whether a and b are the same JSON value.
func sameJSON(a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}
