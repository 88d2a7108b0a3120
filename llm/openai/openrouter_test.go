package openai

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/llmtest"
)

// OpenRouter's stream, as it sends it for Anthropic, Gemini and OpenAI
// models (the shapes of its recorded streams: reasoning as text in
// "reasoning", the upstream blocks in fragments of "reasoning_details").
func orChunk(delta string) string {
	return `data: {"id":"gen-1","provider":"Anthropic","model":"m","object":"chat.completion.chunk","created":1,"choices":[{"index":0,"delta":` + delta + `,"finish_reason":null,"native_finish_reason":null,"logprobs":null}]}` + "\n\n"
}

func orFinish(reason string) string {
	return `data: {"id":"gen-1","provider":"Anthropic","model":"m","object":"chat.completion.chunk","created":1,"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":"` + reason + `","native_finish_reason":"` + reason + `","logprobs":null}]}` + "\n\n" +
		`data: {"id":"gen-1","object":"chat.completion.chunk","created":1,"choices":[],"usage":{"prompt_tokens":423,"completion_tokens":110,"total_tokens":533,"completion_tokens_details":{"reasoning_tokens":63}}}` + "\n\n" +
		"data: [DONE]\n\n"
}

func TestOpenRouterReasoningRoundTrips(t *testing.T) {
	tests := []struct {
		name        string
		stream      string
		wantText    string
		wantDetails string
	}{
		{
			name: "anthropic: signed text, the signature after the text",
			stream: orChunk(`{"role":"assistant","content":"","reasoning":null,"reasoning_details":[]}`) +
				orChunk(`{"role":"assistant","content":"","reasoning":null,"reasoning_details":[{"type":"reasoning.text","text":"","signature":"","format":"anthropic-claude-v1","index":0}]}`) +
				orChunk(`{"role":"assistant","content":"","reasoning":"The user wants <a.go>","reasoning_details":[{"type":"reasoning.text","text":"The user wants <a.go>","format":"anthropic-claude-v1","index":0}]}`) +
				orChunk(`{"role":"assistant","content":"","reasoning":" read \"now\".","reasoning_details":[{"type":"reasoning.text","text":" read \"now\".","format":"anthropic-claude-v1","index":0}]}`) +
				orChunk(`{"role":"assistant","content":"","reasoning":null,"reasoning_details":[{"type":"reasoning.text","signature":"EqcDCkgICBACGAIqQDV0+/=","format":"anthropic-claude-v1","index":0}]}`) +
				orChunk(`{"role":"assistant","content":null,"tool_calls":[{"id":"toolu_1","index":0,"type":"function","function":{"name":"file_read","arguments":""}}]}`) +
				orChunk(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"type":"function","function":{"arguments":"{\"path\": \"a.go\"}"}}]}`) +
				orFinish("tool_calls"),
			wantText:    `The user wants <a.go> read "now".`,
			wantDetails: `[{"type":"reasoning.text","text":"The user wants <a.go> read \"now\".","signature":"EqcDCkgICBACGAIqQDV0+/=","format":"anthropic-claude-v1","index":0}]`,
		},
		{
			name: "gemini: a thought signature that comes with the tool call",
			stream: orChunk(`{"role":"assistant","content":"","reasoning":"**Reading the file**","reasoning_details":[{"type":"reasoning.text","text":"**Reading the file**","format":"google-gemini-v1","index":0}]}`) +
				orChunk(`{"role":"assistant","content":"Let me look.","reasoning":null}`) +
				orChunk(`{"role":"assistant","content":null,"tool_calls":[{"id":"tool_file_read_x","index":0,"type":"function","function":{"name":"file_read","arguments":"{\"path\":\"a.go\"}"}}],"reasoning_details":[{"type":"reasoning.encrypted","data":"CiQB0e2Kb+sig==","id":"tool_file_read_x","format":"google-gemini-v1","index":1}]}`) +
				orFinish("tool_calls"),
			wantText:    "**Reading the file**",
			wantDetails: `[{"type":"reasoning.text","text":"**Reading the file**","format":"google-gemini-v1","index":0},{"type":"reasoning.encrypted","data":"CiQB0e2Kb+sig==","id":"tool_file_read_x","format":"google-gemini-v1","index":1}]`,
		},
		{
			name: "openai: summaries in pieces, then the encrypted reasoning",
			stream: orChunk(`{"role":"assistant","content":"","reasoning":"**Executing","reasoning_details":[{"type":"reasoning.summary","summary":"**Executing","format":"openai-responses-v1","index":0}]}`) +
				orChunk(`{"role":"assistant","content":"","reasoning":" both**","reasoning_details":[{"type":"reasoning.summary","summary":" both**","format":"openai-responses-v1","index":0}]}`) +
				orChunk(`{"role":"assistant","content":"","reasoning":null,"reasoning_details":[{"type":"reasoning.encrypted","data":"gAAAAABo1","id":"rs_1","format":"openai-responses-v1","index":1}]}`) +
				orChunk(`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","index":0,"type":"function","function":{"name":"file_read","arguments":"{\"path\":\"a.go\"}"}}]}`) +
				orFinish("tool_calls"),
			wantText:    "**Executing both**",
			wantDetails: `[{"type":"reasoning.summary","summary":"**Executing both**","format":"openai-responses-v1","index":0},{"type":"reasoning.encrypted","data":"gAAAAABo1","id":"rs_1","format":"openai-responses-v1","index":1}]`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := llmtest.NewTestServer(t, llmtest.Reply{Body: tc.stream}, llmtest.ChatTextReply("done", 1, 1))
			p := chatFor(s, func(o *Options) { o.OpenRouter = true })
			req := llm.Request{Model: "anthropic/claude-sonnet-4.5", Messages: []llm.Message{llm.UserText("read a.go")}, Reasoning: "high"}
			evs, err := run(t, p, req)
			if err != nil {
				t.Fatal(err)
			}
			if got := deltas(evs, llm.EventThinkingDelta); got != tc.wantText {
				t.Errorf("thinking deltas = %q, want %q", got, tc.wantText)
			}
			resp := response(evs)
			var th *llm.Thinking
			for _, part := range resp.Message.Parts {
				if part.Kind == llm.PartThinking {
					if th != nil {
						t.Fatal("two thinking blocks from one response")
					}
					th = part.Thinking
				}
			}
			if th == nil || th.Text != tc.wantText || th.Details != tc.wantDetails {
				t.Fatalf("thinking = %+v\nwant text %q, details\n%s", th, tc.wantText, tc.wantDetails)
			}

			// The stored message, read back by another process, sends
			// the same bytes; the details go back as received.
			stored, err := json.Marshal(resp.Message)
			if err != nil {
				t.Fatal(err)
			}
			var back llm.Message
			if err := json.Unmarshal(stored, &back); err != nil {
				t.Fatal(err)
			}
			next := req
			next.Messages = append(next.Messages, resp.Message, toolResults(llm.ToolResult{CallID: resp.Message.ToolCalls()[0].ID, Content: "package a"}))
			if _, err := run(t, p, next); err != nil {
				t.Fatal(err)
			}
			again := req
			again.Messages = append(again.Messages, back, toolResults(llm.ToolResult{CallID: back.ToolCalls()[0].ID, Content: "package a"}))
			s2 := llmtest.NewTestServer(t, llmtest.ChatTextReply("done", 1, 1))
			if _, err := run(t, chatFor(s2, func(o *Options) { o.OpenRouter = true }), again); err != nil {
				t.Fatal(err)
			}
			first, second := s.Requests()[1].Body, s2.Requests()[0].Body
			if string(first) != string(second) {
				t.Errorf("the history read back sends other bytes:\n%s\n%s", first, second)
			}
			var body struct {
				Reasoning json.RawMessage `json:"reasoning"`
				Effort    *string         `json:"reasoning_effort"`
				Messages  []struct {
					Role             string          `json:"role"`
					ReasoningDetails json.RawMessage `json:"reasoning_details"`
					ReasoningContent *string         `json:"reasoning_content"`
				} `json:"messages"`
			}
			if err := json.Unmarshal(first, &body); err != nil {
				t.Fatal(err)
			}
			if string(body.Reasoning) != `{"effort":"high"}` || body.Effort != nil {
				t.Errorf("reasoning parameter = %s, reasoning_effort %v; want OpenRouter's reasoning: {effort}", body.Reasoning, body.Effort)
			}
			a := body.Messages[1]
			if a.Role != "assistant" || !sameJSONText(t, string(a.ReasoningDetails), tc.wantDetails) || a.ReasoningContent != nil {
				t.Errorf("assistant message: details %s, reasoning_content %v; want the details as received", a.ReasoningDetails, a.ReasoningContent)
			}
		})
	}
}

// sameJSONText compares two JSON texts by meaning (the SDK may escape
// characters differently from the server).
func sameJSONText(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

// Only OpenRouter gets reasoning: {effort}; other servers keep OpenAI's
// reasoning_effort, and an openrouter.ai base URL implies the dialect.
func TestReasoningParameterByServer(t *testing.T) {
	req := llm.Request{Model: "m", Messages: []llm.Message{llm.UserText("hi")}, Reasoning: "low"}
	body, raw := chatBody(t, req)
	if body["reasoning_effort"] != "low" || strings.Contains(raw, `"reasoning":`) {
		t.Errorf("a compatible server: %s", raw)
	}
	body, raw = chatBody(t, req, func(o *Options) { o.OpenRouter = true })
	if _, ok := body["reasoning_effort"]; ok || !strings.Contains(raw, `"reasoning":{"effort":"low"}`) {
		t.Errorf("OpenRouter: %s", raw)
	}
	body, raw = chatBody(t, llm.Request{Model: "m", Messages: []llm.Message{llm.UserText("hi")}}, func(o *Options) { o.OpenRouter = true })
	if _, ok := body["reasoning"]; ok {
		t.Errorf("OpenRouter without an effort leaves the model's default: %s", raw)
	}
	if !(Options{BaseURL: "https://openrouter.ai/api/v1"}).isOpenRouter() || (Options{BaseURL: "https://api.deepseek.com"}).isOpenRouter() {
		t.Error("isOpenRouter by host")
	}
}

// A history with DeepSeek-style reasoning (no details) still sends
// reasoning_content on tool-calling turns, and nothing else.
func TestReasoningContentWithoutDetails(t *testing.T) {
	req := llm.Request{Model: "m", Messages: []llm.Message{
		llm.UserText("read"),
		{Role: llm.RoleAssistant, Parts: []llm.Part{thinkingPart("think", ProviderChat), callPart("c1", "file_read", `{}`)}},
		toolResults(llm.ToolResult{CallID: "c1", Content: "x"}),
	}}
	_, raw := chatBody(t, req, func(o *Options) { o.OpenRouter = true })
	if !strings.Contains(raw, `"reasoning_content":"think"`) || strings.Contains(raw, "reasoning_details") {
		t.Errorf("body: %s", raw)
	}
}
