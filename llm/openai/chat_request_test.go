package openai

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/llmtest"
)

// chatBody sends req through a chat provider and returns the body the
// server received.
func chatBody(t *testing.T, req llm.Request, mod ...func(*Options)) (map[string]any, string) {
	t.Helper()
	s := llmtest.NewTestServer(t, llmtest.ChatTextReply("ok", 1, 1))
	if _, err := run(t, chatFor(s, mod...), req); err != nil {
		t.Fatalf("stream failed: %v", err)
	}
	c := s.Requests()[0]
	if c.Path != "/v1/chat/completions" {
		t.Errorf("path = %s, want /v1/chat/completions", c.Path)
	}
	return bodyOf(t, c), string(c.Body)
}

func thinkingPart(text, provider string) llm.Part {
	return llm.Part{Kind: llm.PartThinking, Thinking: &llm.Thinking{Text: text, Provider: provider}}
}

func callPart(id, name, args string) llm.Part {
	var raw json.RawMessage
	if args != "" {
		raw = json.RawMessage(args)
	}
	return llm.Part{Kind: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: id, Name: name, Args: raw}}
}

func TestChatRequestShape(t *testing.T) {
	schema := `{"type":"object","properties":{"path":{"type":"string"},"a":{"type":"integer"}},"required":["path"]}`
	req := llm.Request{
		Model:  "deepseek-reasoner",
		System: "Be brief.",
		Tools:  []llm.ToolSpec{{Name: "file_read", Description: "Read a file.", Schema: json.RawMessage(schema)}, {Name: "plan"}},
		Messages: []llm.Message{
			llm.UserText("read a.go"),
			{Role: llm.RoleAssistant, Parts: []llm.Part{thinkingPart("I should read it.", ProviderChat), llm.TextPart("Reading."), callPart("c1", "file_read", `{"path":"a.go"}`), callPart("c2", "plan", "")}},
			toolResults(llm.ToolResult{CallID: "c1", Content: "package a"}, llm.ToolResult{CallID: "c2", Content: "ok", IsError: true}),
			{Role: llm.RoleAssistant, Parts: []llm.Part{thinkingPart("done", ProviderChat), llm.TextPart("It is package a.")}},
			{Role: llm.RoleAssistant, Parts: []llm.Part{thinkingPart("foreign", "anthropic"), callPart("c3", "plan", "null")}},
			toolResults(llm.ToolResult{CallID: "c3", Content: "x"}),
		},
	}
	body, raw := chatBody(t, req)
	msgs := body["messages"].([]any)
	want := []string{"system", "user", "assistant", "tool", "tool", "assistant", "assistant", "tool"}
	if len(msgs) != len(want) {
		t.Fatalf("got %d messages, want %d:\n%s", len(msgs), len(want), raw)
	}
	for i, m := range msgs {
		if r := m.(map[string]any)["role"]; r != want[i] {
			t.Errorf("message %d role = %v, want %s", i, r, want[i])
		}
	}
	m := func(i int) map[string]any { return msgs[i].(map[string]any) }
	if m(0)["content"] != "Be brief." {
		t.Errorf("system = %v", m(0)["content"])
	}
	if m(2)["reasoning_content"] != "I should read it." {
		t.Errorf("tool-calling assistant lost its reasoning_content: %v", m(2))
	}
	if _, ok := m(5)["reasoning_content"]; ok {
		t.Errorf("reasoning_content sent on an assistant message without tool calls: %v", m(5))
	}
	if _, ok := m(6)["reasoning_content"]; ok {
		t.Errorf("another format's thinking was sent as reasoning_content: %v", m(6))
	}
	calls := m(2)["tool_calls"].([]any)
	args := func(c any) any { return c.(map[string]any)["function"].(map[string]any)["arguments"] }
	if args(calls[0]) != `{"path":"a.go"}` || args(calls[1]) != "{}" {
		t.Errorf("arguments = %v, %v; want the call's JSON and {} for none", args(calls[0]), args(calls[1]))
	}
	if a := args(m(6)["tool_calls"].([]any)[0]); a != "{}" {
		t.Errorf("null arguments sent as %v, want {}", a)
	}
	if m(3)["tool_call_id"] != "c1" || m(3)["content"] != "package a" || m(4)["tool_call_id"] != "c2" {
		t.Errorf("tool messages = %v, %v", m(3), m(4))
	}
	if !strings.Contains(raw, `"parameters":`+schema) {
		t.Errorf("tool schema not sent byte for byte:\n%s", raw)
	}
	if !strings.Contains(raw, `"parameters":`+emptySchema) {
		t.Errorf("a tool without schema should get %s:\n%s", emptySchema, raw)
	}
	if so := body["stream_options"].(map[string]any); so["include_usage"] != true || body["stream"] != true {
		t.Errorf("stream flags = %v %v", body["stream"], so)
	}
	for _, k := range []string{"max_tokens", "max_completion_tokens", "temperature", "reasoning_effort", "prompt_cache_key", "tool_choice"} {
		if _, ok := body[k]; ok {
			t.Errorf("%s sent though the request did not set it", k)
		}
	}
	llmtest.CheckChat(t, []llmtest.Captured{{Body: []byte(raw)}})
}

func TestChatRequestOptions(t *testing.T) {
	temp := 0.0
	tests := []struct {
		name  string
		req   llm.Request
		opts  func(*Options)
		want  map[string]any
		unset []string
	}{
		{
			name:  "compatible server gets max_tokens, no cache key by default",
			req:   llm.Request{Model: "glm-4.7", MaxOutputTokens: 4000, Temperature: &temp, Reasoning: "high", CacheKey: "s1"},
			want:  map[string]any{"max_tokens": 4000.0, "temperature": 0.0, "reasoning_effort": "high"},
			unset: []string{"max_completion_tokens", "prompt_cache_key"},
		},
		{
			name:  "reasoning model gets max_completion_tokens",
			req:   llm.Request{Model: "gpt-5-mini", MaxOutputTokens: 100},
			want:  map[string]any{"max_completion_tokens": 100.0},
			unset: []string{"max_tokens"},
		},
		{
			name: "cache key when the server accepts it",
			req:  llm.Request{Model: "m", CacheKey: "s1"},
			opts: func(o *Options) { o.SendCacheKey = true },
			want: map[string]any{"prompt_cache_key": "s1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.Messages = []llm.Message{llm.UserText("hi")}
			var mods []func(*Options)
			if tt.opts != nil {
				mods = append(mods, tt.opts)
			}
			body, raw := chatBody(t, tt.req, mods...)
			for k, v := range tt.want {
				if body[k] != v {
					t.Errorf("%s = %v, want %v\n%s", k, body[k], v, raw)
				}
			}
			for _, k := range tt.unset {
				if _, ok := body[k]; ok {
					t.Errorf("%s sent:\n%s", k, raw)
				}
			}
		})
	}
}

// OpenAI itself (the default base URL) always gets the cache key and
// max_completion_tokens; checked on the body since no request may leave
// the test.
func TestChatOpenAIDefaults(t *testing.T) {
	p := newProvider(Options{}, time.Now, false)
	b, err := p.chatBody(llm.Request{Model: "gpt-4.1", MaxOutputTokens: 10, CacheKey: "s1", Messages: []llm.Message{llm.UserText("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"prompt_cache_key":"s1"`, `"max_completion_tokens":10`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("body lacks %s:\n%s", want, b)
		}
	}
}

func TestChatRequestErrors(t *testing.T) {
	tests := []struct {
		name string
		req  llm.Request
		want string
	}{
		{"no model", llm.Request{Messages: []llm.Message{llm.UserText("hi")}}, "no model"},
		{"bad schema", llm.Request{Model: "m", Tools: []llm.ToolSpec{{Name: "t", Schema: json.RawMessage(`[1]`)}}}, `tool "t": schema is not a JSON object`},
		{"unnamed tool", llm.Request{Model: "m", Tools: []llm.ToolSpec{{Description: "x"}}}, "has no name"},
		{"unknown role", llm.Request{Model: "m", Messages: []llm.Message{{Role: "system", Parts: []llm.Part{llm.TextPart("x")}}}}, `unknown role "system"`},
		{"result without call id", llm.Request{Model: "m", Messages: []llm.Message{toolResults(llm.ToolResult{Name: "grep"})}}, `tool result for "grep" has no call id`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := llmtest.NewTestServer(t) // no request may reach it
			_, err := run(t, chatFor(s), tt.req)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "openai: ") {
				t.Errorf("err = %v, want an openai: error containing %q", err, tt.want)
			}
		})
	}
}

func TestHeadersAndKey(t *testing.T) {
	// The environment must never leak into a configured provider.
	t.Setenv("OPENAI_API_KEY", "sk-from-env")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/never")
	for _, tt := range []struct {
		name, key, wantAuth string
	}{
		{"key", "sk-test", "Bearer sk-test"},
		{"no key (ollama)", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := llmtest.NewTestServer(t, llmtest.ChatTextReply("ok", 1, 1), llmtest.ResponsesTextReply("ok", 1, 1))
			mod := func(o *Options) {
				o.APIKey = tt.key
				o.Headers = map[string]string{"HTTP-Referer": "https://godwit.dev"}
			}
			for _, p := range []llm.Provider{chatFor(s, mod), responsesFor(s, mod)} {
				if _, err := run(t, p, userReq("hi")); err != nil {
					t.Fatalf("%T: %v", p, err)
				}
			}
			for _, c := range s.Requests() {
				if got := c.Header.Get("Authorization"); got != tt.wantAuth {
					t.Errorf("%s: Authorization = %q, want %q", c.Path, got, tt.wantAuth)
				}
				if got := c.Header.Get("HTTP-Referer"); got != "https://godwit.dev" {
					t.Errorf("%s: custom header = %q", c.Path, got)
				}
			}
		})
	}
}

func TestBadBaseURL(t *testing.T) {
	for _, base := range []string{"localhost:11434/v1", "ftp://x/v1", "://nope"} {
		for _, p := range []llm.Provider{NewChat(Options{BaseURL: base}), NewResponses(Options{BaseURL: base})} {
			_, err := run(t, p, userReq("hi"))
			if err == nil || !strings.Contains(err.Error(), "http://localhost:11434/v1") {
				t.Errorf("%T %q: err = %v, want the URL form to use", p, base, err)
			}
		}
	}
}
