package anthropic

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/llmtest"
)

// wire builds req as the adapter would send it and parses the JSON back.
func wire(t *testing.T, req llm.Request) *llmtest.AnthropicRequest {
	t.Helper()
	params, _, err := buildParams(req, DefaultMaxTokens)
	if err != nil {
		t.Fatalf("buildParams: %v", err)
	}
	body, err := json.Marshal(params)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	r, err := llmtest.ParseAnthropicRequest(body)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// shape renders the messages as "role:type,type | role:type".
func shape(r *llmtest.AnthropicRequest) string {
	var turns []string
	for _, m := range r.Messages {
		var types []string
		for _, b := range m.Content {
			types = append(types, b.Type)
		}
		turns = append(turns, m.Role+":"+strings.Join(types, ","))
	}
	return strings.Join(turns, " | ")
}

func call(id, name, args string) llm.Part {
	return llm.Part{Kind: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: id, Name: name, Args: json.RawMessage(args)}}
}

func result(id, content string, isErr bool) llm.Part {
	return llm.Part{Kind: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: id, Content: content, IsError: isErr}}
}

func thinking(th llm.Thinking) llm.Part { return llm.Part{Kind: llm.PartThinking, Thinking: &th} }

func msg(role llm.Role, parts ...llm.Part) llm.Message { return llm.Message{Role: role, Parts: parts} }

func TestMessageShape(t *testing.T) {
	sig := "EtYDCkYICxgCKkAV+/=="
	tests := []struct {
		name string
		msgs []llm.Message
		want string
	}{
		{"tool results become a user turn", []llm.Message{
			llm.UserText("go"), msg(llm.RoleAssistant, call("c1", "f", `{}`), call("c2", "f", `{}`)),
			msg(llm.RoleTool, result("c1", "ok", false), result("c2", "bad", true)),
		}, "user:text | assistant:tool_use,tool_use | user:tool_result,tool_result"},
		{"user text after tool results is merged after them", []llm.Message{
			llm.UserText("go"), msg(llm.RoleAssistant, call("c1", "f", `{}`)),
			msg(llm.RoleTool, result("c1", "ok", false)), llm.UserText("and then?"),
		}, "user:text | assistant:tool_use | user:tool_result,text"},
		{"tool results move before text in a merged turn", []llm.Message{
			llm.UserText("go"), msg(llm.RoleAssistant, call("c1", "f", `{}`)),
			llm.UserText("stop"), msg(llm.RoleTool, result("c1", "ok", false)),
		}, "user:text | assistant:tool_use | user:tool_result,text"},
		{"consecutive assistant messages merge", []llm.Message{
			llm.UserText("hi"), llm.AssistantText("a"), llm.AssistantText("b"),
		}, "user:text | assistant:text,text"},
		{"own thinking kept, foreign and unsigned dropped, redacted kept", []llm.Message{
			llm.UserText("hi"), msg(llm.RoleAssistant,
				thinking(llm.Thinking{Text: "mine", Signature: sig, Provider: "anthropic"}),
				thinking(llm.Thinking{Text: "other", Signature: "enc", Provider: "openai-responses"}),
				thinking(llm.Thinking{Text: "cut", Provider: "anthropic"}),
				thinking(llm.Thinking{Redacted: true, Signature: "data", Provider: "anthropic"}),
				llm.TextPart("answer")),
		}, "user:text | assistant:thinking,redacted_thinking,text"},
		{"an assistant message left empty is skipped and its neighbours merge", []llm.Message{
			llm.UserText("a"), msg(llm.RoleAssistant, thinking(llm.Thinking{Text: "x", Provider: "openai-chat"})), llm.UserText("b"),
		}, "user:text,text"},
		{"empty text parts are not sent", []llm.Message{
			llm.UserText("a"), msg(llm.RoleAssistant, llm.TextPart(""), call("c1", "f", `{}`)),
		}, "user:text | assistant:tool_use"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := shape(wire(t, llm.Request{Model: "m", Messages: tt.msgs})); got != tt.want {
				t.Errorf("shape\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestBlocksKeepTheirContent(t *testing.T) {
	sig := "EtYDCkYICxgCKkAV+/abc=="
	r := wire(t, llm.Request{Model: "m", Messages: []llm.Message{
		llm.UserText("go"),
		msg(llm.RoleAssistant,
			thinking(llm.Thinking{Text: "plan <b>", Signature: sig, Provider: "anthropic"}),
			thinking(llm.Thinking{Redacted: true, Signature: "opaque", Provider: "anthropic"}),
			call("c1", "f", `{"path": "a<b>.go"}`), call("c2", "f", ``), call("c3", "f", `null`),
			call("c4", "f", `{"broken`), call("c5", "f", `[1]`)),
		msg(llm.RoleTool, result("c1", "ok", false), result("c2", "", true), result("c3", "x", false),
			result("c4", "x", false), result("c5", "x", false)),
	}})
	a := r.Messages[1].Content
	if a[0].Thinking != "plan <b>" || a[0].Signature != sig {
		t.Errorf("thinking sent as %q / %q", a[0].Thinking, a[0].Signature)
	}
	if a[1].Type != "redacted_thinking" || a[1].Data != "opaque" {
		t.Errorf("redacted thinking sent as %+v", a[1])
	}
	if !sameJSON(a[2].Input, []byte(`{"path":"a<b>.go"}`)) {
		t.Errorf("input %s", a[2].Input)
	}
	for _, b := range a[3:] {
		if string(b.Input) != "{}" {
			t.Errorf("call %s: input %s, want {}", b.ID, b.Input)
		}
	}
	res := r.Messages[2].Content
	if res[0].ToolUseID != "c1" || res[0].Content.Text() != "ok" || res[0].IsError {
		t.Errorf("result 0 = %+v", res[0])
	}
	if !res[1].IsError || len(res[1].Content) != 0 {
		t.Errorf("empty error result = %+v; want is_error and no content", res[1])
	}
	llmtest.CheckAnthropic(t, []llmtest.Captured{{Body: mustMarshal(t, r)}})
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRequestSettings(t *testing.T) {
	temp := 0.3
	schema := `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`
	tests := []struct {
		name      string
		req       llm.Request
		maxTokens int64
		budget    int64 // 0: no thinking
		temp      *float64
	}{
		{"defaults", llm.Request{}, DefaultMaxTokens, 0, nil},
		{"explicit cap and temperature", llm.Request{MaxOutputTokens: 1000, Temperature: &temp}, 1000, 0, &temp},
		{"low fits under the default", llm.Request{Reasoning: "low"}, DefaultMaxTokens, 2048, nil},
		{"medium raises the cap above the budget", llm.Request{Reasoning: "medium"}, DefaultMaxTokens + 8192, 8192, nil},
		{"high on a large cap keeps it", llm.Request{Reasoning: "high", MaxOutputTokens: 64000}, 64000, 24576, nil},
		{"thinking drops temperature", llm.Request{Reasoning: "minimal", Temperature: &temp}, DefaultMaxTokens, 1024, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.Model = "claude-x"
			tt.req.System = "be brief"
			tt.req.Tools = []llm.ToolSpec{{Name: "file_read", Description: "Read a file.", Schema: json.RawMessage(schema)}, {Name: "now"}}
			tt.req.Messages = []llm.Message{llm.UserText("hi")}
			r := wire(t, tt.req)
			if r.MaxTokens != tt.maxTokens {
				t.Errorf("max_tokens %d, want %d", r.MaxTokens, tt.maxTokens)
			}
			switch {
			case tt.budget == 0 && r.Thinking != nil:
				t.Errorf("thinking %+v, want none", r.Thinking)
			case tt.budget > 0 && (r.Thinking == nil || r.Thinking.Type != "enabled" || r.Thinking.BudgetTokens != tt.budget):
				t.Errorf("thinking %+v, want enabled with %d", r.Thinking, tt.budget)
			}
			if (r.Temperature == nil) != (tt.temp == nil) || (r.Temperature != nil && *r.Temperature != *tt.temp) {
				t.Errorf("temperature %v, want %v", r.Temperature, tt.temp)
			}
			if r.Model != "claude-x" || r.System.Text() != "be brief" {
				t.Errorf("model %q system %q", r.Model, r.System.Text())
			}
			if len(r.Tools) != 2 || !sameJSON(r.Tools[0].InputSchema, []byte(schema)) || r.Tools[0].Description != "Read a file." ||
				!sameJSON(r.Tools[1].InputSchema, []byte(`{"type":"object","properties":{}}`)) {
				t.Errorf("tools %+v", r.Tools)
			}
		})
	}
}

func TestRequestErrors(t *testing.T) {
	ok := []llm.Message{llm.UserText("hi")}
	tests := []struct {
		name string
		req  llm.Request
		want string
	}{
		{"no model", llm.Request{Messages: ok}, "set Request.Model"},
		{"unknown effort", llm.Request{Model: "m", Reasoning: "max", Messages: ok}, `unknown reasoning effort "max"; use low, medium or high`},
		{"negative cap", llm.Request{Model: "m", MaxOutputTokens: -1, Messages: ok}, "MaxOutputTokens is -1"},
		{"unknown role", llm.Request{Model: "m", Messages: []llm.Message{{Role: "system", Parts: []llm.Part{llm.TextPart("x")}}}}, `unknown role "system"`},
		{"call in a user message", llm.Request{Model: "m", Messages: []llm.Message{msg(llm.RoleUser, call("c", "f", "{}"))}}, "message 0 (user): part 0: a tool_call part cannot appear in a message with role user"},
		{"result in an assistant message", llm.Request{Model: "m", Messages: []llm.Message{msg(llm.RoleAssistant, result("c", "x", false))}}, "tool_result part cannot appear in a message with role assistant"},
		{"nil call", llm.Request{Model: "m", Messages: []llm.Message{msg(llm.RoleAssistant, llm.Part{Kind: llm.PartToolCall})}}, "has no ToolCall"},
		{"unknown part", llm.Request{Model: "m", Messages: []llm.Message{msg(llm.RoleUser, llm.Part{Kind: "video"})}}, `unknown part kind "video"`},
		{"nameless tool", llm.Request{Model: "m", Messages: ok, Tools: []llm.ToolSpec{{}}}, "tool 0 has no name"},
		{"schema not an object", llm.Request{Model: "m", Messages: ok, Tools: []llm.ToolSpec{{Name: "f", Schema: json.RawMessage(`[1]`)}}}, `tool "f": schema is not a JSON object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := buildParams(tt.req, DefaultMaxTokens)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v; want one containing %q", err, tt.want)
			}
		})
	}
}

// An image goes as the Messages API documents it: a base64 source block
// in the user's turn, after the text, in the order attached.
func TestImageBlock(t *testing.T) {
	img := llm.Part{Kind: llm.PartImage, Image: &llm.Image{MediaType: "image/png", Data: []byte("\x89PNG\r\n\x1a\nxx")}}
	params, _, err := buildParams(llm.Request{Model: "m", Messages: []llm.Message{msg(llm.RoleUser, llm.TextPart("what is this?"), img)}}, DefaultMaxTokens)
	if err != nil {
		t.Fatal(err)
	}
	body, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	// The cache marker goes on the image, the message's last block.
	want := `"content":[{"type":"text","text":"what is this?"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgp4eA=="},"cache_control":{"type":"ephemeral"}}]`
	if !strings.Contains(string(body), want) {
		t.Errorf("body lacks %s:\n%s", want, body)
	}
	if _, _, err := buildParams(llm.Request{Model: "m", Messages: []llm.Message{msg(llm.RoleAssistant, img)}}, DefaultMaxTokens); err == nil {
		t.Error("an image in an assistant message was accepted")
	}
}
