package openai

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/goldentest"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/llmtest"
)

// The golden files in testdata/wire were recorded from the openai-go SDK
// (v3.98.0), when the adapters still sent and read through it: the
// request bodies it put on the wire for a table of requests and for
// random histories, and the events, usage and errors the adapters made
// of the cassettes' streams and of broken, odd and failed answers. The
// adapters now speak the wire themselves; these files hold them to what
// the SDK did, byte for byte, so a session recorded before sends the
// same bytes (the provider's prompt cache) and reads its answers the
// same way. One difference is kept on purpose (answers_responses.txt,
// "no final blank line"): a stream whose last event lacks its closing
// blank line before a clean end has that event read, as llm/internal/sse
// reads it for every adapter; the SDK dropped it and called the stream
// cut.

// captureTransport records each request's body and answers it with
// reply (an answer the adapter reads without error).
type captureTransport struct {
	bodies [][]byte
	reply  func(path string) string
}

func (c *captureTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	b, _ := io.ReadAll(r.Body)
	_ = r.Body.Close()
	c.bodies = append(c.bodies, b)
	h := http.Header{}
	h.Set("Content-Type", "text/event-stream")
	return &http.Response{StatusCode: 200, Header: h, Body: io.NopCloser(strings.NewReader(c.reply(r.URL.Path))), Request: r}, nil
}

func okReply(path string) string {
	if strings.HasSuffix(path, "/responses") {
		return llmtest.ResponsesTextReply("ok", 1, 1).Body
	}
	return llmtest.ChatTextReply("ok", 1, 1).Body
}

// wireBody is what the adapter of api ("chat" or "responses") sends for
// req under o: the body as it left, or the error that stopped it.
func wireBody(api string, o Options, req llm.Request) string {
	ct := &captureTransport{reply: okReply}
	o.HTTPClient = &http.Client{Transport: ct}
	var p llm.Provider = NewChat(o)
	if api == "responses" {
		p = NewResponses(o)
	}
	var streamErr error
	for _, err := range p.Stream(context.Background(), req) {
		if err != nil {
			streamErr = err
		}
	}
	switch {
	case streamErr != nil && len(ct.bodies) == 0:
		return "error: " + streamErr.Error()
	case streamErr != nil:
		return "sent, then error: " + streamErr.Error()
	case len(ct.bodies) != 1:
		return fmt.Sprintf("%d requests", len(ct.bodies))
	}
	return string(ct.bodies[0])
}

// wireRequests is the table of requests whose bodies are pinned: every
// part kind, role and option each API maps, and the mistakes it refuses.
func wireRequests() map[string]llm.Request {
	temp := 0.25
	schema := `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`
	tricky := "a<b>&c \"q\" \\ \n\r\t\b\f\x00\x01\x1f\x7f é 日本 \u2028\u2029 \xff\xfe end"
	details := llm.Part{Kind: llm.PartThinking, Thinking: &llm.Thinking{Provider: ProviderChat, Details: `[{"type":"reasoning.text","text":"hm","signature":"s"}]`}}
	spacedDetails := llm.Part{Kind: llm.PartThinking, Thinking: &llm.Thinking{Provider: ProviderChat, Details: "[ {\"type\": \"reasoning.text\", \"text\": \"a<b>&c \u2028 \\u00e9\"} ]"}}
	respThinking := func(id, sig string, summary ...string) llm.Part {
		return llm.Part{Kind: llm.PartThinking, Thinking: &llm.Thinking{Provider: ProviderResponses, ID: id, Signature: sig, Summary: summary, Text: strings.Join(summary, "\n\n")}}
	}
	tools := []llm.ToolSpec{{Name: "file_read", Description: "Read " + tricky, Schema: json.RawMessage(schema)}, {Name: "plan"}, {Name: "spaced", Schema: json.RawMessage("{ \"type\" : \"object\",\n \"description\": \"a<b>&c \u2028 \\u00e9\" }")}}
	return map[string]llm.Request{
		"user":     userReq("hello"),
		"tricky":   {Model: "m", System: tricky, Messages: []llm.Message{llm.UserText(tricky)}},
		"empty":    {Model: "m", Messages: []llm.Message{llm.UserText("")}},
		"none":     {Model: "m"},
		"no model": {Messages: []llm.Message{llm.UserText("x")}},
		"options": {Model: "o3-mini", System: "sys", MaxOutputTokens: 99, Temperature: &temp, Reasoning: "low", CacheKey: "s1",
			Tools: tools, Messages: []llm.Message{llm.UserText("x")}},
		"plain options": {Model: "gpt-4.1", MaxOutputTokens: 7, Temperature: &temp, CacheKey: "k", Tools: tools[1:2], Messages: []llm.Message{llm.UserText("x")}},
		"effort only":   {Model: "llama3", Reasoning: "high", Messages: []llm.Message{llm.UserText("x")}},
		"zero temp":     {Model: "m", Temperature: new(float64), Messages: []llm.Message{llm.UserText("x")}},
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
		"reasoning items": {Model: "gpt-5", Reasoning: "medium", Messages: []llm.Message{
			llm.UserText("what time is it in Lisbon?"),
			{Role: llm.RoleAssistant, Parts: []llm.Part{respThinking("rs_1", "gAAAA==", "Need the time.", "Call the tool."), callPart("fc_1", "clock", `{"city": "Lisbon"}`)}},
			toolResults(llm.ToolResult{CallID: "fc_1", Name: "clock", Content: "14:05"}),
			{Role: llm.RoleAssistant, Parts: []llm.Part{respThinking("rs_2", ""), respThinking("", "enc"), respThinking("rs_3", "enc3"), llm.TextPart("It is "), llm.TextPart("14:05.")}},
			{Role: llm.RoleUser, Parts: []llm.Part{llm.TextPart("and"), llm.TextPart(" Osaka?")}},
		}},
		"details with content": {Model: "anthropic/claude-sonnet-4.5", Messages: []llm.Message{
			llm.UserText("x"),
			{Role: llm.RoleAssistant, Parts: []llm.Part{details, details, thinkingPart("also", ProviderChat), llm.TextPart("answer")}},
			{Role: llm.RoleAssistant, Parts: []llm.Part{thinkingPart("r1", ProviderChat), thinkingPart("r2", ProviderChat), callPart("c1", "plan", "{}")}},
			toolResults(llm.ToolResult{CallID: "c1", Content: "ok"}),
		}},
		"details, reasoning and calls": {Model: "m", Messages: []llm.Message{
			{Role: llm.RoleAssistant, Parts: []llm.Part{thinkingPart("r0", ProviderChat), spacedDetails, callPart("c1", "plan", `{"b": 2}`), llm.TextPart("x"), {Kind: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: "c1", Content: "in the same message"}}}},
		}},
		"reasoning escapes": {Model: "m", Messages: []llm.Message{
			{Role: llm.RoleAssistant, Parts: []llm.Part{thinkingPart("plain <a>&b ~\x7f", ProviderChat), callPart("c1", "plan", "")}},
			{Role: llm.RoleAssistant, Parts: []llm.Part{thinkingPart("<a>&b \"q\"", ProviderChat), callPart("c2", "plan", "")}},
			{Role: llm.RoleAssistant, Parts: []llm.Part{thinkingPart("é <a>&b", ProviderChat), callPart("c3", "plan", "")}},
		}},
		"bad details":       {Model: "m", Messages: []llm.Message{{Role: llm.RoleAssistant, Parts: []llm.Part{{Kind: llm.PartThinking, Thinking: &llm.Thinking{Provider: ProviderChat, Details: `{"not":"array"}`}}, llm.TextPart("t")}}}},
		"invalid args":      {Model: "m", Messages: []llm.Message{{Role: llm.RoleAssistant, Parts: []llm.Part{callPart("c1", "plan", `{"a":`)}}, toolResults(llm.ToolResult{CallID: "c1", Content: "bad"})}},
		"nil payloads":      {Model: "m", Messages: []llm.Message{{Role: llm.RoleAssistant, Parts: []llm.Part{{Kind: llm.PartToolCall}, {Kind: llm.PartThinking}, llm.TextPart("t")}}, {Role: llm.RoleTool, Parts: []llm.Part{{Kind: llm.PartToolResult}}}}},
		"result without id": {Model: "m", Messages: []llm.Message{toolResults(llm.ToolResult{Content: "x"})}},
		"text in tool":      {Model: "m", Messages: []llm.Message{{Role: llm.RoleTool, Parts: []llm.Part{llm.TextPart("x")}}}},
		"bad role":          {Model: "m", Messages: []llm.Message{{Role: "robot", Parts: []llm.Part{llm.TextPart("x")}}}},
		"bad kind":          {Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{{Kind: "video"}}}}},
		"bad schema":        {Model: "m", Tools: []llm.ToolSpec{{Name: "t", Schema: json.RawMessage(`[1]`)}}},
		"unnamed tool":      {Model: "m", Tools: []llm.ToolSpec{{Description: "x"}}},
	}
}

var wireOptions = map[string]Options{
	"compatible": {BaseURL: "http://127.0.0.1:1/v1"},
	"cachekey":   {BaseURL: "http://127.0.0.1:1/v1", SendCacheKey: true},
	"openrouter": {BaseURL: "https://openrouter.ai/api/v1"},
	"openai":     {BaseURL: "https://api.openai.com/v1"},
}

// TestWireRequests pins the bodies the adapters send for wireRequests.
func TestWireRequests(t *testing.T) {
	reqs := wireRequests()
	var out bytes.Buffer
	for _, api := range []string{"chat", "responses"} {
		for _, oname := range sortedKeys(wireOptions) {
			for _, name := range sortedKeys(reqs) {
				fmt.Fprintf(&out, "%s %s %s\n%s\n", api, oname, name, wireBody(api, wireOptions[oname], reqs[name]))
			}
		}
	}
	goldentest.Check(t, "wire/requests.txt", out.Bytes())
}

// TestWireRandomRequests pins the bodies of random histories of every
// part kind and awkward strings, by hash (the first 16 hex digits of each
// body's SHA-256, as 8 bytes; the generator is this file's own, so the histories stay
// the same across Go versions). A failure names the first history that
// differs: print its body with wireBody to see why.
func TestWireRandomRequests(t *testing.T) {
	var out bytes.Buffer
	for _, api := range []string{"chat", "responses"} {
		for _, oname := range []string{"compatible", "openrouter"} {
			fmt.Fprintf(&out, "%s %s\n", api, oname)
			rng := splitmix(17)
			for i := range randomHistories {
				body := wireBody(api, wireOptions[oname], randomRequest(&rng))
				sum := sha256.Sum256([]byte(body))
				fmt.Fprintf(&out, "%d %x\n", i, sum[:8])
			}
		}
	}
	goldentest.Check(t, "wire/random.txt", out.Bytes())
}

const randomHistories = 400

// splitmix is a small deterministic generator (SplitMix64).
type splitmix uint64

func (s *splitmix) next() uint64 {
	*s += 0x9e3779b97f4a7c15
	z := uint64(*s)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (s *splitmix) intn(n int) int { return int(s.next() % uint64(n)) }

func randomRequest(rng *splitmix) llm.Request {
	alphabet := []string{"a", "Z", " ", "\n", "\t", "\"", "\\", "<", ">", "&", "\x00", "\x1f", "\x7f", "é", "日", "\u2028", "\u2029", "\xff", "\xe2\x80", "😀", "{", "}"}
	str := func() string {
		var b []byte
		for range rng.intn(12) {
			if rng.intn(3) == 0 {
				b = append(b, "abcdefghijklmnopqrstuvwxyz"[:rng.intn(26)]...)
			}
			b = append(b, alphabet[rng.intn(len(alphabet))]...)
		}
		return string(b)
	}
	part := func() llm.Part {
		switch rng.intn(7) {
		case 0:
			return llm.TextPart(str())
		case 1:
			prov := ProviderChat
			switch rng.intn(3) {
			case 0:
				prov = "anthropic"
			case 1:
				return llm.Part{Kind: llm.PartThinking, Thinking: &llm.Thinking{Provider: ProviderResponses, ID: "rs" + str(), Signature: str(), Summary: []string{str(), str()}[:rng.intn(3)]}}
			}
			return thinkingPart(str(), prov)
		case 2:
			args := ""
			if rng.intn(2) == 0 {
				args = `{"k":` + string(mustJSON(str())) + `}`
			}
			return callPart("c"+str(), str(), args)
		case 3:
			return llm.TextPart(str())
		default:
			return llm.Part{Kind: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: "id" + str(), Content: str()}}
		}
	}
	roles := []llm.Role{llm.RoleUser, llm.RoleAssistant, llm.RoleTool}
	req := llm.Request{Model: "m", System: str(), CacheKey: str()}
	if rng.intn(4) == 0 {
		req.Tools = []llm.ToolSpec{{Name: "t" + str(), Description: str()}}
	}
	for range rng.intn(6) {
		m := llm.Message{Role: roles[rng.intn(len(roles))]}
		for range rng.intn(4) {
			m.Parts = append(m.Parts, part())
		}
		req.Messages = append(req.Messages, m)
	}
	return req
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// wireAnswers are answers whose reading is pinned, by API: the cassettes'
// streams, then broken, odd and failed ones.
func wireAnswers(t *testing.T, api string) ([]string, map[string]llmtest.Reply) {
	answers := map[string]llmtest.Reply{}
	names, cs := sortedCassettes(t, api)
	for _, n := range names {
		for i, in := range cs[n].Interactions {
			if b := in.Response.Body; strings.HasPrefix(b, "data:") || strings.HasPrefix(b, "event:") {
				answers[fmt.Sprintf("cassette %s #%d", n, i)] = in.Reply()
			}
		}
	}
	now := wireNow
	for name, r := range map[string]llmtest.Reply{
		"429 retry-after":       errReply(429, map[string]string{"Retry-After": "7"}, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`),
		"429 retry-after-ms":    errReply(429, map[string]string{"retry-after-ms": "1500", "Retry-After": "9"}, `{"error":{"message":"slow down"}}`),
		"503 date":              errReply(503, map[string]string{"Retry-After": now.Add(30 * time.Second).Format(http.TimeFormat)}, `upstream unavailable`),
		"500 empty":             errReply(500, nil, ``),
		"529":                   errReply(529, nil, `{"error":{"type":"overloaded_error","message":"Overloaded"}}`),
		"401":                   errReply(401, nil, `{"error":{"message":"Incorrect API key provided: sk-abc.","type":"invalid_request_error","code":"invalid_api_key"}}`),
		"403":                   errReply(403, nil, `{"error":{"message":"Project does not have access to model gpt-5"}}`),
		"400 context":           errReply(400, nil, `{"error":{"message":"This model's maximum context length is 128000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`),
		"400 vllm":              errReply(400, nil, `{"object":"error","message":"This model's maximum context length is 32768 tokens.","type":"BadRequestError","param":null,"code":400}`),
		"400 llama.cpp":         errReply(400, nil, `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9000,"n_ctx":8192}}`),
		"413":                   errReply(413, nil, `{"error":{"message":"Request too large"}}`),
		"404 ollama":            errReply(404, nil, `{"error":"model \"qwen3\" not found, try pulling it first"}`),
		"400 other":             errReply(400, nil, `{"error":{"message":"Invalid value for 'tool_choice'","code":"invalid_value"}}`),
		"429 quota":             errReply(429, nil, `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","code":"insufficient_quota"}}`),
		"302":                   {Status: 302, Headers: map[string]string{"Content-Type": "text/html"}, Body: "<html>moved</html>"},
		"200 json answer":       llmtest.JSON(200, `{"id":"x","choices":[{"message":{"content":"hi"}}]}`),
		"200 json error":        llmtest.JSON(200, `{"error":{"message":"Provider returned error","code":502}}`),
		"200 html":              {Headers: map[string]string{"Content-Type": "text/html"}, Body: "<html>login</html>"},
		"200 no content type":   {Headers: map[string]string{"Content-Type": ""}, Body: okReply("/" + api)},
		"stream labelled json":  llmtest.JSON(200, okReply("/"+api)),
		"stream as text/plain":  {Headers: map[string]string{"Content-Type": "text/plain"}, Body: okReply("/" + api)},
		"empty":                 {Body: ""},
		"comments only":         {Body: ": keep-alive\n\n: again\n\n"},
		"crlf":                  {Body: strings.ReplaceAll(okReply("/"+api), "\n", "\r\n")},
		"no final blank line":   {Body: strings.TrimSuffix(okReply("/"+api), "\n\n")},
		"not json":              {Body: "data: {oops\n\n"},
		"error mid-stream":      {Body: llmtest.SSE(`{"choices":[{"index":0,"delta":{"content":"Hi"}}]}`, `{"error":{"message":"upstream overloaded","code":502}}`)},
		"context error event":   {Body: llmtest.SSE(`{"error":{"message":"prompt is too long: 210000 tokens > 200000 maximum"}}`)},
		"auth error event":      {Body: llmtest.SSE(`{"error":{"message":"bad key","type":"invalid_request_error","code":"invalid_api_key"}}`)},
		"invalid error event":   {Body: llmtest.SSE(`{"error":{"message":"bad tool","type":"invalid_request_error"}}`)},
		"quota error event":     {Body: llmtest.SSE(`{"error":{"message":"no credit","code":"insufficient_quota"}}`)},
		"string error event":    {Body: llmtest.SSE(`{"error":"x"}`)},
		"null error":            {Body: llmtest.SSE(`{"error":null}`)},
		"done only":             {Body: "data: [DONE]\n\n"},
		"multi-line data":       {Body: "data: {\"choices\":[{\"index\":0,\ndata: \"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\n"},
		"event field on chat":   {Body: "event: message\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\n"},
		"very long line":        {Body: "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + strings.Repeat("x", 70000) + "\"},\"finish_reason\":\"stop\"}]}\n\n"},
		"data without space":    {Body: "data:{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\n"},
		"cut before any event":  {Body: okReply("/" + api), CutAfter: 5},
		"cut mid-stream":        {Body: okReply("/" + api), CutAfter: len(okReply("/"+api)) - 20},
		"ends without finish":   {Body: llmtest.SSE(`{"choices":[{"index":0,"delta":{"content":"Hi"}}]}`)},
		"done without finish":   llmtest.ChatReply(llmtest.ChatText("Hi")),
		"float tokens":          {Body: llmtest.SSE(`{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}],"usage":{"prompt_tokens":12.0,"completion_tokens":3}}`)},
		"string index":          {Body: llmtest.SSE(`{"choices":[{"index":"0","delta":{"content":"a"},"finish_reason":"stop"}]}`)},
		"nulls":                 {Body: llmtest.SSE(`{"choices":[{"index":0,"delta":{"content":null,"tool_calls":null,"refusal":null,"role":null},"finish_reason":null}],"usage":null}`, `{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}],"usage":null}`)},
		"null choices":          {Body: llmtest.SSE(`{"choices":null}`, `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)},
		"usage details":         {Body: llmtest.SSE(`{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}`, `{"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":20,"prompt_tokens_details":{"cached_tokens":64,"cache_write_tokens":8},"completion_tokens_details":{"reasoning_tokens":5}}}`)},
		"deepseek cache":        {Body: llmtest.SSE(`{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}],"usage":{"prompt_tokens":100,"completion_tokens":20,"prompt_cache_hit_tokens":40,"prompt_cache_miss_tokens":60}}`)},
		"null details":          {Body: llmtest.SSE(`{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}],"usage":{"prompt_tokens":100,"completion_tokens":20,"prompt_tokens_details":null,"completion_tokens_details":null}}`)},
		"reasoning both":        {Body: llmtest.SSE(`{"choices":[{"index":0,"delta":{"reasoning_content":"","reasoning":"r1"}}]}`, `{"choices":[{"index":0,"delta":{"reasoning_content":"r2","reasoning":"r2"}}]}`, `{"choices":[{"index":0,"delta":{"reasoning":null,"content":"a"},"finish_reason":"stop"}]}`)},
		"reasoning not string":  {Body: llmtest.SSE(`{"choices":[{"index":0,"delta":{"reasoning":{"text":"x"},"content":"a"},"finish_reason":"stop"}]}`)},
		"details fragments":     {Body: llmtest.SSE(`{"choices":[{"index":0,"delta":{"reasoning":"th","reasoning_details":[{"type":"reasoning.text","text":"th","index":0,"format":"anthropic-claude-v1"}]}}]}`, `{"choices":[{"index":0,"delta":{"reasoning":"ink","reasoning_details":[{"type":"reasoning.text","text":"ink","index":0}]}}]}`, `{"choices":[{"index":0,"delta":{"content":"a","reasoning_details":[{"type":"reasoning.text","signature":"sig","index":0}]}}]}`, `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)},
		"details not array":     {Body: llmtest.SSE(`{"choices":[{"index":0,"delta":{"reasoning_details":{"a":1},"content":"a"},"finish_reason":"stop"}]}`)},
		"tool call no index":    {Body: llmtest.SSE(`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"c1","function":{"name":"plan","arguments":"{}"}}]}}]}`, `{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)},
		"tool calls repeat id":  {Body: llmtest.SSE(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"a","arguments":"{\"x\""}}]}}]}`, `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"arguments":":1}"}}]}}]}`, `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c2","function":{"name":"b","arguments":"{}"}}]}}]}`, `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)},
		"tool call no id":       {Body: llmtest.SSE(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"plan"}}]}}]}`, `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":""}}]}}]}`, `{"choices":[{"index":0,"delta":{},"finish_reason":"function_call"}]}`)},
		"tool call index -1":    {Body: "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":-1}]},\"finish_reason\":\"stop\"}]}\n\n"},
		"refusal":               {Body: llmtest.SSE(`{"choices":[{"index":0,"delta":{"refusal":"I can't."}}]}`, `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)},
		"content filter":        {Body: llmtest.SSE(`{"choices":[{"index":0,"delta":{},"finish_reason":"content_filter"}]}`)},
		"length":                {Body: llmtest.SSE(`{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"length"}]}`)},
		"odd finish":            {Body: llmtest.SSE(`{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"eos"}]}`)},
		"two choices":           {Body: llmtest.SSE(`{"choices":[{"index":1,"delta":{"content":"no"}},{"index":0,"delta":{"content":"yes"},"finish_reason":"stop"}]}`, `{"choices":[{"index":0,"delta":{"content":"after"}}]}`)},
		"resp error event":      {Body: llmtest.SSE("event: error\ndata: " + `{"type":"error","code":"rate_limit_exceeded","message":"Slow down","param":null}`)},
		"resp error bare":       {Body: "event: error\ndata: {\"type\":\"error\"}\n\n"},
		"resp failed":           llmtest.ResponsesReply(llmtest.ResponsesFailed("server_error", "x")),
		"resp failed context":   llmtest.ResponsesReply(llmtest.ResponsesFailed("context_length_exceeded", "Your input exceeds the context window of this model.")),
		"resp failed no error":  {Body: llmtest.SSE(`{"type":"response.failed","response":{"status":"failed"}}`)},
		"resp incomplete":       {Body: llmtest.SSE(`{"type":"response.output_text.delta","item_id":"m1","output_index":0,"delta":"a"}`, `{"type":"response.incomplete","response":{"incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":5,"output_tokens":9}}}`)},
		"resp incomplete other": {Body: llmtest.SSE(`{"type":"response.incomplete","response":{"incomplete_details":{"reason":"content_filter"}}}`, `{"type":"response.incomplete","response":{"incomplete_details":null}}`)},
		"resp completed empty":  {Body: "data: {\"type\":\"response.completed\",\"response\":{}}\n\n"},
		"resp completed null":   {Body: llmtest.SSE(`{"type":"response.completed","response":{"usage":null}}`)},
		"resp usage details":    {Body: llmtest.SSE(`{"type":"response.completed","response":{"usage":{"input_tokens":100,"output_tokens":20,"input_tokens_details":{"cached_tokens":64,"cache_write_tokens":3},"output_tokens_details":{"reasoning_tokens":7}}}}`)},
		"resp float tokens":     {Body: llmtest.SSE(`{"type":"response.completed","response":{"usage":{"input_tokens":100.0,"output_tokens":20}}}`)},
		"resp item done only":   {Body: "data: {\"type\":\"response.output_item.done\",\"item\":{\"type\":\"function_call\"}}\n\ndata: {\"type\":\"response.completed\",\"response\":{}}\n\n"},
		"resp args delta only":  {Body: "data: {\"type\":\"response.function_call_arguments.delta\"}\n\n"},
		"resp whole items":      {Body: llmtest.SSE(`{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","call_id":"c1","name":"plan","arguments":"{\"a\":1}"}}`, `{"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","call_id":"c1","name":"plan","arguments":"{\"a\":1}"}}`, `{"type":"response.output_item.done","output_index":1,"item":{"type":"message","id":"m1","content":[{"type":"output_text","text":"done"},{"type":"refusal","refusal":"no"}]}}`, `{"type":"response.completed","response":{}}`)},
		"resp reasoning text":   {Body: llmtest.SSE(`{"type":"response.output_item.added","output_index":0,"item":{"type":"reasoning","id":"rs1"}}`, `{"type":"response.reasoning_text.delta","item_id":"rs1","output_index":0,"delta":"raw "}`, `{"type":"response.reasoning_text.delta","item_id":"rs1","output_index":0,"delta":"thought"}`, `{"type":"response.output_item.done","output_index":0,"item":{"type":"reasoning","id":"rs1","summary":[]}}`, `{"type":"response.output_item.done","output_index":1,"item":{"type":"reasoning","id":"rs2","summary":[]}}`, `{"type":"response.completed","response":{}}`)},
		"resp summary parts":    {Body: llmtest.SSE(`{"type":"response.reasoning_summary_text.delta","item_id":"rs1","summary_index":0,"delta":"one"}`, `{"type":"response.reasoning_summary_text.delta","item_id":"rs1","summary_index":1,"delta":"two"}`, `{"type":"response.reasoning_summary_text.delta","item_id":"rs1","summary_index":1,"delta":""}`, `{"type":"response.output_item.done","item":{"type":"reasoning","id":"rs1","encrypted_content":"e","summary":[{"type":"summary_text","text":"one"},{"type":"summary_text","text":"two"}]}}`, `{"type":"response.completed","response":{}}`)},
		"resp refusal":          {Body: llmtest.SSE(`{"type":"response.refusal.delta","item_id":"m1","delta":"no"}`, `{"type":"response.output_item.done","item":{"type":"message","id":"m1","content":[{"type":"refusal","refusal":"no"}]}}`, `{"type":"response.completed","response":{}}`)},
		"resp string index":     {Body: llmtest.SSE(`{"type":"response.output_text.delta","item_id":"m1","output_index":"0","delta":"a"}`, `{"type":"response.completed","response":{}}`)},
		"resp unknown events":   {Body: llmtest.SSE(`{"type":"response.in_progress","response":{}}`, `{"type":"response.web_search_call.searching","output_index":0}`, `{"type":"response.output_text.done","text":"x"}`, `{"type":"response.completed","response":{}}`)},
		"resp args object":      {Body: llmtest.SSE(`{"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","call_id":"c1","name":"plan","arguments":{"a":1}}}`, `{"type":"response.completed","response":{}}`)},
		"resp no type":          {Body: llmtest.SSE(`{"delta":"a"}`, `{"type":"response.completed","response":{}}`)},
		"resp chat chunk":       llmtest.ChatTextReply("hi", 1, 1),
		"chat resp events":      llmtest.ResponsesTextReply("hi", 1, 1),
	} {
		if r.Status == 0 && r.Headers == nil && !strings.HasPrefix(name, "resp ") && !strings.HasPrefix(name, "chat ") && api == "responses" && strings.Contains(r.Body, `"choices"`) {
			continue // a chat stream, not worth reading as Responses
		}
		answers[name] = r
	}
	return sortedKeys(answers), answers
}

// wireNow is the clock of the answers' reading (Retry-After dates).
var wireNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// TestWireAnswers pins the events, usage and errors each adapter makes
// of wireAnswers.
func TestWireAnswers(t *testing.T) {
	for _, api := range []string{"chat", "responses"} {
		names, answers := wireAnswers(t, api)
		var out bytes.Buffer
		for _, name := range names {
			s := llmtest.NewServer(answers[name])
			o := Options{Name: "test", BaseURL: s.URL() + "/v1"}
			clock := func() time.Time { return wireNow }
			var p llm.Provider = newProvider(o, clock, false)
			if api == "responses" {
				p = newProvider(o, clock, true)
			}
			fmt.Fprintf(&out, "== %s\n", name)
			evs, err := run(t, p, userReq("hi"))
			s.Close()
			for _, ev := range evs {
				out.WriteString(eventLine(ev))
				out.WriteByte('\n')
			}
			if err != nil {
				out.WriteString(errorLine(err))
				out.WriteByte('\n')
			}
		}
		goldentest.Check(t, "wire/answers_"+api+".txt", out.Bytes())
	}
}

func eventLine(ev llm.Event) string {
	if len(ev.Text) > 200 {
		ev.Text = fmt.Sprintf("%d bytes, sha256 %x", len(ev.Text), sha256.Sum256([]byte(ev.Text)))
	}
	b, _ := json.Marshal(struct {
		Type     llm.EventType  `json:"type"`
		Index    int            `json:"index,omitempty"`
		Text     string         `json:"text,omitempty"`
		Thinking *llm.Thinking  `json:"thinking,omitempty"`
		ToolCall *llm.ToolCall  `json:"tool_call,omitempty"`
		Usage    *llm.Usage     `json:"usage,omitempty"`
		Stop     llm.StopReason `json:"stop,omitempty"`
	}{ev.Type, ev.Index, ev.Text, ev.Thinking, ev.ToolCall, ev.Usage, ev.StopReason})
	return string(b)
}

// errorLine is an error's class and text. Addresses of the test server
// vary from run to run and are replaced by ADDR.
func errorLine(err error) string {
	var le *llm.Error
	if !errors.As(err, &le) {
		return fmt.Sprintf("error %T: %v", err, err)
	}
	s := fmt.Sprintf("error kind=%d status=%d retry_after=%s: %s", le.Kind, le.StatusCode, le.RetryAfter, le.Error())
	return addrRe(s)
}

func addrRe(s string) string {
	for {
		i := strings.Index(s, "127.0.0.1:")
		if i < 0 {
			return s
		}
		j := i + len("127.0.0.1:")
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		s = s[:i] + "ADDR" + s[j:]
	}
}
