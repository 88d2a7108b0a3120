package openai

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/llmtest"
)

func TestResponsesStreamParsing(t *testing.T) {
	call := func(id, name, args string) llm.ToolCall {
		return llm.ToolCall{ID: id, Name: name, Args: json.RawMessage(args)}
	}
	ev := func(typ, data string) string { return "event: " + typ + "\ndata: " + data }
	tests := []struct {
		name      string
		body      string
		text      string
		thinking  string
		calls     []llm.ToolCall
		stop      llm.StopReason
		usage     llm.Usage
		eventKind string
	}{
		{
			name:      "text",
			body:      llmtest.ResponsesReply(llmtest.ResponsesText("Hel", "lo"), llmtest.ResponsesCompletedCached(50, 5, 32, 2)).Body,
			text:      "Hello",
			stop:      llm.StopEndTurn,
			usage:     llm.Usage{InputTokens: 50, OutputTokens: 5, CacheReadTokens: 32, ReasoningTokens: 2},
			eventKind: "text_delta usage stop",
		},
		{
			name: "reasoning then calls",
			body: llmtest.ResponsesReply(
				llmtest.ResponsesReasoning("rs_1", "enc", "First.", "Second."),
				llmtest.ResponsesFunctionCall("call_a", "add", `{"a":2,"b":3}`),
				llmtest.ResponsesFunctionCall("call_m", "plan", ""),
				llmtest.ResponsesCompleted(10, 20)).Body,
			thinking:  "First.\n\nSecond.",
			calls:     []llm.ToolCall{call("call_a", "add", `{"a":2,"b":3}`), call("call_m", "plan", "{}")},
			stop:      llm.StopToolUse,
			eventKind: "thinking_delta thinking_end tool_call_start tool_call_delta tool_call_end tool_call_start tool_call_end usage stop",
		},
		{
			name: "reasoning item without content or summary is skipped",
			body: llmtest.ResponsesReply(llmtest.ResponsesReasoning("rs_1", ""), llmtest.ResponsesText("hi"), llmtest.ResponsesCompleted(1, 1)).Body,
			text: "hi",
			stop: llm.StopEndTurn,
		},
		{
			name: "raw reasoning text (gpt-oss servers) and a message without deltas",
			body: llmtest.SSE(
				ev("response.output_item.added", `{"type":"response.output_item.added","output_index":0,"item":{"id":"rs","type":"reasoning","summary":[]}}`),
				ev("response.reasoning_text.delta", `{"type":"response.reasoning_text.delta","item_id":"rs","output_index":0,"content_index":0,"delta":"thinking hard"}`),
				ev("response.output_item.done", `{"type":"response.output_item.done","output_index":0,"item":{"id":"rs","type":"reasoning","summary":[]}}`),
				ev("response.output_item.done", `{"type":"response.output_item.done","output_index":1,"item":{"id":"m","type":"message","content":[{"type":"output_text","text":"whole"}]}}`),
				ev("response.completed", `{"type":"response.completed","response":{"status":"completed"}}`)),
			thinking: "thinking hard",
			text:     "whole",
			stop:     llm.StopEndTurn,
		},
		{
			name: "arguments only in the done item, no item id",
			body: llmtest.SSE(
				ev("response.output_item.added", `{"type":"response.output_item.added","output_index":3,"item":{"type":"function_call","call_id":"c","name":"f","arguments":""}}`),
				ev("response.output_item.done", `{"type":"response.output_item.done","output_index":3,"item":{"type":"function_call","call_id":"c","name":"f","arguments":"{\"x\":1}"}}`),
				ev("response.completed", `{"type":"response.completed","response":{"status":"completed"}}`)),
			calls: []llm.ToolCall{call("c", "f", `{"x":1}`)},
			stop:  llm.StopToolUse,
		},
		{
			name: "incomplete at max_output_tokens",
			body: llmtest.ResponsesReply(llmtest.ResponsesText("cut"),
				ev("response.incomplete", `{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":3,"output_tokens":4}}}`)+"\n\n").Body,
			text:  "cut",
			stop:  llm.StopMaxTokens,
			usage: llm.Usage{InputTokens: 3, OutputTokens: 4},
		},
		{
			name: "refusal",
			body: llmtest.SSE(
				ev("response.refusal.delta", `{"type":"response.refusal.delta","item_id":"m","output_index":0,"delta":"No."}`),
				ev("response.completed", `{"type":"response.completed","response":{"status":"completed"}}`)),
			text: "No.",
			stop: llm.StopRefusal,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := llmtest.NewTestServer(t, llmtest.Reply{Body: tt.body})
			evs, err := run(t, responsesFor(s), userReq("hi"))
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

func TestResponsesReasoningKept(t *testing.T) {
	s := llmtest.NewTestServer(t, llmtest.ResponsesReply(
		llmtest.ResponsesReasoning("rs_1", "opaque+/=", "Look first."),
		llmtest.ResponsesFunctionCall("call_1", "file_read", `{"path":"a.go"}`),
		llmtest.ResponsesCompleted(10, 5)))
	evs, err := run(t, responsesFor(s), userReq("hi"))
	if err != nil {
		t.Fatal(err)
	}
	ends := ofType(evs, llm.EventThinkingEnd)
	if len(ends) != 1 {
		t.Fatalf("thinking ends = %d, want 1", len(ends))
	}
	want := llm.Thinking{ID: "rs_1", Signature: "opaque+/=", Summary: []string{"Look first."}, Text: "Look first.", Provider: ProviderResponses}
	got := *ends[0].Thinking
	if got.ID != want.ID || got.Signature != want.Signature || got.Text != want.Text || got.Provider != want.Provider ||
		len(got.Summary) != 1 || got.Summary[0] != want.Summary[0] {
		t.Errorf("thinking = %+v, want %+v", got, want)
	}
}

func TestResponsesRequestShape(t *testing.T) {
	temp := 0.2
	sig := func(id, enc, provider string, summary ...string) llm.Part {
		return llm.Part{Kind: llm.PartThinking, Thinking: &llm.Thinking{ID: id, Signature: enc, Summary: summary, Text: strings.Join(summary, "\n\n"), Provider: provider}}
	}
	req := llm.Request{
		Model: "gpt-5", System: "Be brief.", MaxOutputTokens: 900, Temperature: &temp, Reasoning: "high", CacheKey: "sess",
		Tools: []llm.ToolSpec{{Name: "file_read", Description: "Read.", Schema: json.RawMessage(`{"type":"object","properties":{"z":{},"a":{}}}`)}},
		Messages: []llm.Message{
			llm.UserText("go"),
			{Role: llm.RoleAssistant, Parts: []llm.Part{
				sig("rs_1", "ENC1", ProviderResponses, "s1", "s2"),
				sig("", "anthropic-sig", "anthropic"),
				sig("rs_x", "", ProviderResponses, "no content"),
				llm.TextPart("Reading."),
				callPart("call_1", "file_read", `{"path":"a.go"}`),
				callPart("call_2", "file_read", ""),
			}},
			toolResults(llm.ToolResult{CallID: "call_1", Content: "package a"}, llm.ToolResult{CallID: "call_2", Content: "err"}),
		},
	}
	s := llmtest.NewTestServer(t, llmtest.ResponsesTextReply("ok", 1, 1))
	if _, err := run(t, responsesFor(s), req); err != nil {
		t.Fatal(err)
	}
	c := s.Requests()[0]
	if c.Path != "/v1/responses" {
		t.Errorf("path = %s", c.Path)
	}
	body := bodyOf(t, c)
	var items []map[string]any
	for _, it := range body["input"].([]any) {
		items = append(items, it.(map[string]any))
	}
	kindOf := func(it map[string]any) string {
		if ty, ok := it["type"].(string); ok && ty != "message" {
			return ty
		}
		return it["role"].(string)
	}
	var got []string
	for _, it := range items {
		got = append(got, kindOf(it))
	}
	want := "system user reasoning assistant function_call function_call function_call_output function_call_output"
	if strings.Join(got, " ") != want {
		t.Fatalf("items = %s\nwant    %s\n%s", strings.Join(got, " "), want, c.Body)
	}
	r := items[2]
	if r["id"] != "rs_1" || r["encrypted_content"] != "ENC1" {
		t.Errorf("reasoning item = %v", r)
	}
	if sm := r["summary"].([]any); len(sm) != 2 || sm[1].(map[string]any)["text"] != "s2" || sm[1].(map[string]any)["type"] != "summary_text" {
		t.Errorf("reasoning summary = %v", r["summary"])
	}
	if items[3]["content"] != "Reading." {
		t.Errorf("assistant text = %v", items[3])
	}
	if items[4]["call_id"] != "call_1" || items[4]["arguments"] != `{"path":"a.go"}` || items[5]["arguments"] != "{}" {
		t.Errorf("function calls = %v / %v", items[4], items[5])
	}
	if items[6]["call_id"] != "call_1" || items[6]["output"] != "package a" {
		t.Errorf("function_call_output = %v", items[6])
	}
	checks := map[string]any{"store": false, "max_output_tokens": 900.0, "temperature": 0.2, "prompt_cache_key": "sess", "stream": true}
	for k, v := range checks {
		if body[k] != v {
			t.Errorf("%s = %v, want %v", k, body[k], v)
		}
	}
	if inc, _ := json.Marshal(body["include"]); string(inc) != `["reasoning.encrypted_content"]` {
		t.Errorf("include = %s", inc)
	}
	if rs, _ := json.Marshal(body["reasoning"]); string(rs) != `{"effort":"high","summary":"auto"}` {
		t.Errorf("reasoning = %s", rs)
	}
	if !strings.Contains(string(c.Body), `"parameters":{"type":"object","properties":{"z":{},"a":{}}}`) {
		t.Errorf("schema not sent as given:\n%s", c.Body)
	}
	if tool := body["tools"].([]any)[0].(map[string]any); tool["strict"] != false || tool["type"] != "function" || tool["name"] != "file_read" {
		t.Errorf("tool = %v", tool)
	}
	llmtest.CheckResponses(t, s.Requests())
}

func TestResponsesIncludeOnlyForReasoning(t *testing.T) {
	s := llmtest.NewTestServer(t, llmtest.ResponsesTextReply("ok", 1, 1))
	if _, err := run(t, responsesFor(s), llm.Request{Model: "gpt-4o", Messages: []llm.Message{llm.UserText("hi")}}); err != nil {
		t.Fatal(err)
	}
	body := bodyOf(t, s.Requests()[0])
	for _, k := range []string{"include", "reasoning", "max_output_tokens", "temperature", "prompt_cache_key"} {
		if _, ok := body[k]; ok {
			t.Errorf("%s sent for a plain gpt-4o request: %v", k, body[k])
		}
	}
}

func TestResponsesFailures(t *testing.T) {
	tests := []struct {
		name string
		body string
		kind llm.Kind
		msg  string
	}{
		{"response.failed", llmtest.ResponsesReply(llmtest.ResponsesText("par"), llmtest.ResponsesFailed("server_error", "The server had an error")).Body, llm.KindRetryable, "The server had an error"},
		{"failed on context", llmtest.ResponsesReply(llmtest.ResponsesFailed("context_length_exceeded", "Your input exceeds the context window of this model.")).Body, llm.KindContextTooLong, "context window"},
		{"error event", llmtest.SSE("event: error\ndata: " + `{"type":"error","code":"rate_limit_exceeded","message":"Slow down","param":null}`), llm.KindRetryable, "Slow down"},
		{"error object in stream", llmtest.SSE(`{"error":{"message":"bad key","type":"invalid_request_error","code":"invalid_api_key"}}`), llm.KindAuth, "bad key"},
		{"invalid request in stream", llmtest.SSE(`{"error":{"message":"bad tool","type":"invalid_request_error"}}`), llm.KindBadRequest, "bad tool"},
		{"cut before response.completed", llmtest.ResponsesReply(llmtest.ResponsesText("half")).Body, llm.KindRetryable, "ended before the model finished"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := llmtest.NewTestServer(t, llmtest.Reply{Body: tt.body})
			_, err := run(t, responsesFor(s), userReq("hi"))
			var le *llm.Error
			if !errors.As(err, &le) || le.Kind != tt.kind || !strings.Contains(err.Error(), tt.msg) || le.Provider != "test" {
				t.Errorf("err = %#v (%v), want kind %d containing %q", le, err, tt.kind, tt.msg)
			}
		})
	}
}
