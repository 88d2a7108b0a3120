package openai

import (
	"encoding/json"
	"testing"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/llmtest"
)

func TestChatStreamParsing(t *testing.T) {
	call := func(id, name, args string) llm.ToolCall {
		return llm.ToolCall{ID: id, Name: name, Args: json.RawMessage(args)}
	}
	tests := []struct {
		name      string
		body      string
		text      string
		thinking  string
		calls     []llm.ToolCall
		stop      llm.StopReason
		usage     llm.Usage
		eventKind string // collapsed event order, when it matters
	}{
		{
			name:      "text",
			body:      llmtest.ChatReply(llmtest.ChatText("Hel"), llmtest.ChatText("lo"), llmtest.ChatFinish("stop"), llmtest.ChatUsageCached(12, 3, 8)).Body,
			text:      "Hello",
			stop:      llm.StopEndTurn,
			usage:     llm.Usage{InputTokens: 12, OutputTokens: 3, CacheReadTokens: 8},
			eventKind: "text_delta usage stop",
		},
		{
			name:  "split tool call with empty arguments",
			body:  llmtest.ChatReply(llmtest.ChatToolCall("c1", "plan", ""), llmtest.ChatFinish("tool_calls")).Body,
			calls: []llm.ToolCall{call("c1", "plan", "{}")},
			stop:  llm.StopToolUse,
		},
		{
			name: "parallel calls by index",
			body: llmtest.ChatReply(llmtest.ChatText("Both."), llmtest.ChatToolCallAt(0, "a", "add", `{"a":2,"b":3}`),
				llmtest.ChatToolCallAt(1, "m", "multiply", `{"a":2}`), llmtest.ChatFinish("tool_calls")).Body,
			text:      "Both.",
			calls:     []llm.ToolCall{call("a", "add", `{"a":2,"b":3}`), call("m", "multiply", `{"a":2}`)},
			stop:      llm.StopToolUse,
			eventKind: "text_delta tool_call_start tool_call_delta tool_call_start tool_call_delta tool_call_end stop",
		},
		{
			name: "interleaved deltas of two calls",
			body: llmtest.SSE(
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"x\""}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"b","function":{"name":"g","arguments":"{\"y\""}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":":2}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`, "[DONE]"),
			calls: []llm.ToolCall{call("a", "f", `{"x":1}`), call("b", "g", `{"y":2}`)},
			stop:  llm.StopToolUse,
		},
		{
			name: "id repeated on every delta",
			body: llmtest.SSE(
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"x\""}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"arguments":":1}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`),
			calls: []llm.ToolCall{call("a", "f", `{"x":1}`)},
			stop:  llm.StopToolUse,
		},
		{
			name: "every call at index 0 with its own id",
			body: llmtest.SSE(
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"b","function":{"name":"g","arguments":"{\"k\":1}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`),
			calls: []llm.ToolCall{call("a", "f", `{}`), call("b", "g", `{"k":1}`)},
			stop:  llm.StopToolUse,
		},
		{
			name: "no id from the server",
			body: llmtest.SSE(
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"f","arguments":"null"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`),
			calls: []llm.ToolCall{call("call_0", "f", `{}`)},
			stop:  llm.StopToolUse, // "stop" with calls is still a tool turn
		},
		{
			name: "reasoning_content before text and calls",
			body: llmtest.ChatReply(llmtest.ChatReasoning("Let me "), llmtest.ChatReasoning("think."), llmtest.ChatText("OK."),
				llmtest.ChatToolCall("c", "f", `{}`), llmtest.ChatFinish("tool_calls")).Body,
			thinking:  "Let me think.",
			text:      "OK.",
			calls:     []llm.ToolCall{call("c", "f", `{}`)},
			stop:      llm.StopToolUse,
			eventKind: "thinking_delta thinking_end text_delta tool_call_start tool_call_delta tool_call_end stop",
		},
		{
			name: "OpenRouter reasoning field, answer cut by length",
			body: llmtest.SSE(
				`{"choices":[{"index":0,"delta":{"reasoning":"hmm","content":null}}]}`,
				`{"choices":[{"index":0,"delta":{"reasoning":"","content":"partial"},"finish_reason":"length"}]}`, "[DONE]"),
			thinking: "hmm",
			text:     "partial",
			stop:     llm.StopMaxTokens,
		},
		{
			name: "DeepSeek cache hits, usage in the finish chunk",
			body: llmtest.SSE(
				`{"choices":[{"index":0,"delta":{"content":"x"}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":100,"completion_tokens":20,"prompt_cache_hit_tokens":64,"prompt_cache_miss_tokens":36,"completion_tokens_details":{"reasoning_tokens":7}}}`),
			text:  "x",
			stop:  llm.StopEndTurn,
			usage: llm.Usage{InputTokens: 100, OutputTokens: 20, CacheReadTokens: 64, ReasoningTokens: 7},
		},
		{
			name: "refusal",
			body: llmtest.SSE(`{"choices":[{"index":0,"delta":{"refusal":"I can't."}}]}`, `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`),
			text: "I can't.",
			stop: llm.StopRefusal,
		},
		{
			name: "content filter",
			body: llmtest.SSE(`{"choices":[{"index":0,"delta":{},"finish_reason":"content_filter"}]}`),
			stop: llm.StopRefusal,
		},
		{
			name: "other choices ignored",
			body: llmtest.SSE(`{"choices":[{"index":1,"delta":{"content":"no"}},{"index":0,"delta":{"content":"yes"},"finish_reason":"stop"}]}`),
			text: "yes",
			stop: llm.StopEndTurn,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := llmtest.NewTestServer(t, llmtest.Reply{Body: tt.body})
			evs, err := run(t, chatFor(s), userReq("hi"))
			if err != nil {
				t.Fatalf("stream failed: %v", err)
			}
			checkAnswer(t, evs, tt.text, tt.thinking, tt.calls, tt.stop)
			if tt.usage != (llm.Usage{}) {
				u := ofType(evs, llm.EventUsage)
				if len(u) != 1 || *u[0].Usage != tt.usage {
					t.Errorf("usage events = %+v, want one with %+v", u, tt.usage)
				}
			}
			if tt.eventKind != "" {
				if got := kinds(evs); got != tt.eventKind {
					t.Errorf("event order:\n got %s\nwant %s", got, tt.eventKind)
				}
			}
		})
	}
}

// checkAnswer asserts the streamed answer, both as deltas and as the
// accumulated message.
func checkAnswer(t *testing.T, evs []llm.Event, text, thinking string, calls []llm.ToolCall, stop llm.StopReason) {
	t.Helper()
	if got := deltas(evs, llm.EventTextDelta); got != text {
		t.Errorf("text deltas = %q, want %q", got, text)
	}
	if got := deltas(evs, llm.EventThinkingDelta); got != thinking {
		t.Errorf("thinking deltas = %q, want %q", got, thinking)
	}
	resp := response(evs)
	if got := resp.Message.Text(); got != text {
		t.Errorf("message text = %q, want %q", got, text)
	}
	var thought []string
	for _, p := range resp.Message.Parts {
		if p.Kind == llm.PartThinking {
			thought = append(thought, p.Thinking.Text)
		}
	}
	if thinking == "" && len(thought) > 0 || thinking != "" && (len(thought) != 1 || thought[0] != thinking) {
		t.Errorf("thinking parts = %q, want %q", thought, thinking)
	}
	got := resp.Message.ToolCalls()
	if len(got) != len(calls) {
		t.Fatalf("tool calls = %+v, want %+v", got, calls)
	}
	for i := range calls {
		if got[i].ID != calls[i].ID || got[i].Name != calls[i].Name || string(got[i].Args) != string(calls[i].Args) {
			t.Errorf("call %d = %s %s %s, want %s %s %s", i, got[i].ID, got[i].Name, got[i].Args, calls[i].ID, calls[i].Name, calls[i].Args)
		}
	}
	if last := evs[len(evs)-1]; last.Type != llm.EventStop || last.StopReason != stop {
		t.Errorf("last event = %s %q, want stop %q", last.Type, last.StopReason, stop)
	}
}
