package openai

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/godwit/godwit/llm"
)

// sdkBody is the SDK's own encoding of req.
func sdkBody(p *chatProvider, req llm.Request) ([]byte, error) {
	params, err := p.params(req)
	if err != nil {
		return nil, err
	}
	return params.MarshalJSON()
}

var bodyOptions = map[string]Options{
	"compatible": {BaseURL: "http://127.0.0.1:1/v1"},
	"openrouter": {BaseURL: "https://openrouter.ai/api/v1"},
	"openai":     {BaseURL: "https://api.openai.com/v1"},
}

// The body the adapter writes is the SDK's encoding, byte for byte: the
// provider's prompt cache and a resumed session's replay see the same
// bytes as before the adapter wrote them itself.
func TestChatBodyMatchesSDK(t *testing.T) {
	temp := 0.25
	schema := `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`
	tricky := "a<b>&c \"q\" \\ \n\r\t\b\f\x00\x01\x1f\x7f é 日本 \u2028\u2029 \xff\xfe end"
	details := llm.Part{Kind: llm.PartThinking, Thinking: &llm.Thinking{Provider: ProviderChat, Details: `[{"type":"reasoning.text","text":"hm","signature":"s"}]`}}
	cases := map[string]llm.Request{
		"user":     userReq("hello"),
		"tricky":   {Model: "m", System: tricky, Messages: []llm.Message{llm.UserText(tricky)}},
		"empty":    {Model: "m", Messages: []llm.Message{llm.UserText("")}},
		"no model": {Messages: []llm.Message{llm.UserText("x")}},
		"options": {Model: "o3-mini", System: "sys", MaxOutputTokens: 99, Temperature: &temp, Reasoning: "low", CacheKey: "s1",
			Tools:    []llm.ToolSpec{{Name: "file_read", Description: "Read " + tricky, Schema: json.RawMessage(schema)}, {Name: "plan"}},
			Messages: []llm.Message{llm.UserText("x")}},
		"history": {Model: "deepseek-reasoner", Messages: []llm.Message{
			{Role: llm.RoleUser, Parts: []llm.Part{llm.TextPart("a"), llm.TextPart(tricky)}},
			{Role: llm.RoleAssistant, Parts: []llm.Part{thinkingPart("think", ProviderChat), llm.TextPart("Reading."), callPart("c1", "file_read", `{"path":"a.go"}`), callPart("c2", "plan", "")}},
			toolResults(llm.ToolResult{CallID: "c1", Content: tricky}, llm.ToolResult{CallID: "c2", Content: "", IsError: true}),
			{Role: llm.RoleAssistant, Parts: []llm.Part{thinkingPart("done", ProviderChat), llm.TextPart("It is "), llm.TextPart("package a.")}},
			{Role: llm.RoleAssistant, Parts: []llm.Part{thinkingPart("foreign", "anthropic"), callPart("c3", "plan", "null")}},
			toolResults(llm.ToolResult{CallID: "c3", Content: "x"}),
			{Role: llm.RoleAssistant, Parts: []llm.Part{details, llm.TextPart("t"), callPart("c4", "plan", `{"a":"<&>"}`)}},
			toolResults(llm.ToolResult{CallID: "c4", Content: "y"}),
			{Role: llm.RoleAssistant, Parts: []llm.Part{thinkingPart("cut", ProviderChat)}},
			{Role: llm.RoleAssistant, Parts: []llm.Part{llm.TextPart("")}},
			{Role: llm.RoleUser, Parts: []llm.Part{llm.TextPart("u"), {Kind: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: "c9", Content: "r"}}}},
		}},
		"result without id": {Model: "m", Messages: []llm.Message{toolResults(llm.ToolResult{Content: "x"})}},
		"text in tool":      {Model: "m", Messages: []llm.Message{{Role: llm.RoleTool, Parts: []llm.Part{llm.TextPart("x")}}}},
		"bad role":          {Model: "m", Messages: []llm.Message{{Role: "robot", Parts: []llm.Part{llm.TextPart("x")}}}},
		"bad kind":          {Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{{Kind: "image"}}}}},
	}
	for oname, o := range bodyOptions {
		p := newChat(o, nil)
		for name, req := range cases {
			want, werr := sdkBody(p, req)
			got, gerr := p.body(req)
			if (werr != nil) != (gerr != nil) {
				t.Errorf("%s/%s: error %v, the SDK's %v", oname, name, gerr, werr)
				continue
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s/%s: body differs from the SDK's:\n got %s\nwant %s", oname, name, got, want)
			}
		}
	}
}

// Random histories of every part kind and awkward strings encode as the
// SDK encodes them.
func TestChatBodyMatchesSDKRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 1))
	alphabet := []string{"a", "Z", " ", "\n", "\t", "\"", "\\", "<", ">", "&", "\x00", "\x1f", "\x7f", "é", "日", "\u2028", "\u2029", "\xff", "\xe2\x80", "😀", "{", "}"}
	str := func() string {
		var b []byte
		for range rng.IntN(12) {
			if rng.IntN(3) == 0 {
				// Runs of plain bytes, read eight at a time.
				b = append(b, "abcdefghijklmnopqrstuvwxyz"[:rng.IntN(26)]...)
			}
			b = append(b, alphabet[rng.IntN(len(alphabet))]...)
		}
		return string(b)
	}
	part := func() llm.Part {
		switch rng.IntN(6) {
		case 0:
			return llm.TextPart(str())
		case 1:
			prov := ProviderChat
			if rng.IntN(3) == 0 {
				prov = "anthropic"
			}
			return thinkingPart(str(), prov)
		case 2:
			args := ""
			if rng.IntN(2) == 0 {
				args = `{"k":` + string(mustJSON(str())) + `}`
			}
			return callPart("c"+str(), str(), args)
		default:
			return llm.Part{Kind: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: "id" + str(), Content: str()}}
		}
	}
	roles := []llm.Role{llm.RoleUser, llm.RoleAssistant, llm.RoleTool}
	for oname, o := range bodyOptions {
		p := newChat(o, nil)
		for i := range 3000 {
			req := llm.Request{Model: "m", System: str(), CacheKey: str()}
			for range rng.IntN(6) {
				m := llm.Message{Role: roles[rng.IntN(len(roles))]}
				for range rng.IntN(4) {
					m.Parts = append(m.Parts, part())
				}
				req.Messages = append(req.Messages, m)
			}
			want, werr := sdkBody(p, req)
			got, gerr := p.body(req)
			if (werr != nil) != (gerr != nil) || !bytes.Equal(got, want) {
				t.Fatalf("%s #%d: body differs from the SDK's (errors %v, %v):\n got %s\nwant %s", oname, i, gerr, werr, got, want)
			}
		}
	}
}

func mustJSON(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}
