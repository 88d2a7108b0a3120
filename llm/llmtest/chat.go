package llmtest

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Chat Completions stream builders. Each returns complete SSE events, so
// a stream is their concatenation:
//
//	llmtest.ChatReply(
//		llmtest.ChatText("Hello"),
//		llmtest.ChatToolCall("call_1", "file_read", `{"path":"a.go"}`),
//		llmtest.ChatFinish("tool_calls"),
//		llmtest.ChatUsage(120, 30),
//	)

// chatChunk renders one chat.completion.chunk with choices[0] = choice
// (nil: empty choices) and optional usage.
func chatChunk(choice map[string]any, usage map[string]any) string {
	c := map[string]any{
		"id":      "chatcmpl-llmtest",
		"object":  "chat.completion.chunk",
		"created": 1700000000,
		"model":   "llmtest-model",
		"choices": []any{},
	}
	if choice != nil {
		choice["index"] = 0
		if _, ok := choice["finish_reason"]; !ok {
			choice["finish_reason"] = nil
		}
		c["choices"] = []any{choice}
	}
	if usage != nil {
		c["usage"] = usage
	}
	return "data: " + mustJSON(c) + "\n\n"
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("llmtest: %v", err)) // only for values built here
	}
	return string(b)
}

func chatDelta(delta map[string]any) string {
	return chatChunk(map[string]any{"delta": delta}, nil)
}

// ChatText is one chunk carrying answer text in delta.content.
func ChatText(text string) string {
	return chatDelta(map[string]any{"role": "assistant", "content": text})
}

// ChatReasoning is one chunk carrying reasoning in delta.reasoning_content
// (DeepSeek, GLM, Kimi, vLLM).
func ChatReasoning(text string) string {
	return chatDelta(map[string]any{"role": "assistant", "reasoning_content": text})
}

// ChatToolCall is a call at index 0, split as OpenAI streams it: the id
// and name with empty arguments, then the arguments in two pieces.
func ChatToolCall(id, name, args string) string {
	return ChatToolCallAt(0, id, name, args)
}

// ChatToolCallAt is ChatToolCall for a parallel call at index.
func ChatToolCallAt(index int, id, name, args string) string {
	head := map[string]any{"index": index, "id": id, "type": "function",
		"function": map[string]any{"name": name, "arguments": ""}}
	var b strings.Builder
	b.WriteString(chatDelta(map[string]any{"tool_calls": []any{head}}))
	half := len(args) / 2
	for _, piece := range []string{args[:half], args[half:]} {
		if piece == "" {
			continue
		}
		d := map[string]any{"index": index, "function": map[string]any{"arguments": piece}}
		b.WriteString(chatDelta(map[string]any{"tool_calls": []any{d}}))
	}
	return b.String()
}

// ChatFinish is the chunk with finish_reason ("stop", "tool_calls",
// "length", "content_filter").
func ChatFinish(reason string) string {
	return chatChunk(map[string]any{"delta": map[string]any{}, "finish_reason": reason}, nil)
}

// ChatUsage is the final usage chunk (empty choices) that
// stream_options.include_usage asks for.
func ChatUsage(in, out int64) string {
	return ChatUsageCached(in, out, 0)
}

// ChatUsageCached is ChatUsage with cached prompt tokens.
func ChatUsageCached(in, out, cached int64) string {
	return chatChunk(nil, map[string]any{
		"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out,
		"prompt_tokens_details":     map[string]any{"cached_tokens": cached},
		"completion_tokens_details": map[string]any{"reasoning_tokens": 0},
	})
}

// ChatDone is the stream's terminator.
const ChatDone = "data: [DONE]\n\n"

// ChatReply joins events into a streamed reply and appends ChatDone.
func ChatReply(events ...string) Reply {
	return Reply{Body: strings.Join(events, "") + ChatDone}
}

// ChatTextReply is a whole answer: text, finish "stop", usage.
func ChatTextReply(text string, in, out int64) Reply {
	return ChatReply(ChatText(text), ChatFinish("stop"), ChatUsage(in, out))
}
