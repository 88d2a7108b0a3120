package llmtest

import (
	"fmt"
	"hash/fnv"
	"strings"
)

// Responses API stream builders. Each returns complete SSE events; a
// stream is ResponsesReply of them, ended by ResponsesCompleted:
//
//	llmtest.ResponsesReply(
//		llmtest.ResponsesReasoning("rs_1", "enc-1", "Checking the file"),
//		llmtest.ResponsesFunctionCall("call_1", "file_read", `{"path":"a.go"}`),
//		llmtest.ResponsesCompleted(120, 30),
//	)
//
// Every event says output_index 0; items are told apart by item_id, as
// adapters should key them.

// sseEvent is one named SSE event whose data is fields with its type.
func sseEvent(typ string, fields map[string]any) string {
	fields["type"] = typ
	return "event: " + typ + "\ndata: " + mustJSON(fields) + "\n\n"
}

// shortID derives a stable item id from content, so builders need no
// counter (and no shared state).
func shortID(prefix string, parts ...string) string {
	h := fnv.New32a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return fmt.Sprintf("%s_%08x", prefix, h.Sum32())
}

// ResponsesCreated is the response.created event every stream starts with.
func ResponsesCreated() string {
	return sseEvent("response.created", map[string]any{
		"response": map[string]any{"id": "resp_llmtest", "object": "response", "status": "in_progress", "output": []any{}},
	})
}

// ResponsesText is an assistant message item: added, one output_text
// delta per piece, done.
func ResponsesText(pieces ...string) string {
	full := strings.Join(pieces, "")
	id := shortID("msg", full)
	var b strings.Builder
	b.WriteString(sseEvent("response.output_item.added", map[string]any{
		"output_index": 0, "item": map[string]any{"id": id, "type": "message", "role": "assistant", "status": "in_progress", "content": []any{}},
	}))
	for _, p := range pieces {
		b.WriteString(sseEvent("response.output_text.delta", map[string]any{
			"item_id": id, "output_index": 0, "content_index": 0, "delta": p,
		}))
	}
	b.WriteString(sseEvent("response.output_item.done", map[string]any{
		"output_index": 0, "item": map[string]any{"id": id, "type": "message", "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": full, "annotations": []any{}}}},
	}))
	return b.String()
}

// ResponsesFunctionCall is a function_call item: added, the arguments in
// two deltas, arguments done, item done.
func ResponsesFunctionCall(callID, name, args string) string {
	id := shortID("fc", callID)
	item := func(status, a string) map[string]any {
		return map[string]any{"id": id, "type": "function_call", "status": status, "call_id": callID, "name": name, "arguments": a}
	}
	var b strings.Builder
	b.WriteString(sseEvent("response.output_item.added", map[string]any{"output_index": 0, "item": item("in_progress", "")}))
	half := len(args) / 2
	for _, piece := range []string{args[:half], args[half:]} {
		if piece != "" {
			b.WriteString(sseEvent("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": 0, "delta": piece}))
		}
	}
	b.WriteString(sseEvent("response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": 0, "arguments": args}))
	b.WriteString(sseEvent("response.output_item.done", map[string]any{"output_index": 0, "item": item("completed", args)}))
	return b.String()
}

// ResponsesReasoning is a reasoning item with encrypted content and one
// summary part per summary string, streamed as summary deltas.
func ResponsesReasoning(id, encrypted string, summary ...string) string {
	var b strings.Builder
	b.WriteString(sseEvent("response.output_item.added", map[string]any{
		"output_index": 0, "item": map[string]any{"id": id, "type": "reasoning", "summary": []any{}, "encrypted_content": encrypted},
	}))
	parts := make([]any, len(summary))
	for i, s := range summary {
		b.WriteString(sseEvent("response.reasoning_summary_text.delta", map[string]any{
			"item_id": id, "output_index": 0, "summary_index": i, "delta": s,
		}))
		parts[i] = map[string]any{"type": "summary_text", "text": s}
	}
	b.WriteString(sseEvent("response.output_item.done", map[string]any{
		"output_index": 0, "item": map[string]any{"id": id, "type": "reasoning", "summary": parts, "encrypted_content": encrypted},
	}))
	return b.String()
}

// ResponsesCompleted is the final response.completed event with usage.
func ResponsesCompleted(in, out int64) string {
	return ResponsesCompletedCached(in, out, 0, 0)
}

// ResponsesCompletedCached is ResponsesCompleted with cached input and
// reasoning output tokens.
func ResponsesCompletedCached(in, out, cached, reasoning int64) string {
	return sseEvent("response.completed", map[string]any{
		"response": map[string]any{"id": "resp_llmtest", "object": "response", "status": "completed", "output": []any{},
			"usage": map[string]any{
				"input_tokens": in, "output_tokens": out, "total_tokens": in + out,
				"input_tokens_details":  map[string]any{"cached_tokens": cached},
				"output_tokens_details": map[string]any{"reasoning_tokens": reasoning},
			}},
	})
}

// ResponsesFailed is a response.failed event carrying error code and
// message.
func ResponsesFailed(code, message string) string {
	return sseEvent("response.failed", map[string]any{
		"response": map[string]any{"id": "resp_llmtest", "object": "response", "status": "failed",
			"error": map[string]any{"code": code, "message": message}},
	})
}

// ResponsesReply is a streamed reply: ResponsesCreated, then events.
func ResponsesReply(events ...string) Reply {
	return Reply{Body: ResponsesCreated() + strings.Join(events, "")}
}

// ResponsesTextReply is a whole answer: text and response.completed.
func ResponsesTextReply(text string, in, out int64) Reply {
	return ResponsesReply(ResponsesText(text), ResponsesCompleted(in, out))
}
