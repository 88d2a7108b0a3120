package openai

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/llmtest"
)

// A typical streamed answer: 200 text deltas, one tool call, usage.
func benchChatBody() string {
	events := make([]string, 0, 204)
	for i := range 200 {
		events = append(events, llmtest.ChatText(fmt.Sprintf("word%d ", i)))
	}
	events = append(events, llmtest.ChatToolCall("call_1", "file_read", `{"path":"internal/cli/root.go","start_line":1}`),
		llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(12000, 400))
	return llmtest.ChatReply(events...).Body
}

func benchResponsesBody() string {
	pieces := make([]string, 200)
	for i := range pieces {
		pieces[i] = fmt.Sprintf("word%d ", i)
	}
	return llmtest.ResponsesReply(llmtest.ResponsesText(pieces...),
		llmtest.ResponsesFunctionCall("call_1", "file_read", `{"path":"internal/cli/root.go","start_line":1}`),
		llmtest.ResponsesCompleted(12000, 400)).Body
}

func benchRequest() llm.Request {
	req := userReq("explain the cli")
	req.System = "You are godwit."
	req.Tools = []llm.ToolSpec{{Name: "file_read", Description: "Read a file.", Schema: []byte(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}
	return req
}

func drain(b *testing.B, p llm.Provider, req llm.Request) {
	for _, err := range p.Stream(context.Background(), req) {
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkChatStream is one streamed call against an llmtest server
// (loopback HTTP included): go test ./llm/openai -run '^$' -bench Stream -benchmem
func BenchmarkChatStream(b *testing.B) {
	body := benchChatBody()
	s := llmtest.NewServer()
	defer s.Close()
	p := chatFor(s)
	req := benchRequest()
	b.ReportAllocs()
	for b.Loop() {
		s.Add(llmtest.Reply{Body: body})
		drain(b, p, req)
	}
}

// BenchmarkChatStreamNoNetwork is the adapter alone: the body comes from
// an in-memory transport.
func BenchmarkChatStreamNoNetwork(b *testing.B) {
	p := NewChat(Options{HTTPClient: &http.Client{Transport: bodyTransport{contentType: "text/event-stream", body: []byte(benchChatBody())}}})
	req := benchRequest()
	b.ReportAllocs()
	for b.Loop() {
		drain(b, p, req)
	}
}

func BenchmarkResponsesStream(b *testing.B) {
	body := benchResponsesBody()
	s := llmtest.NewServer()
	defer s.Close()
	p := responsesFor(s)
	req := benchRequest()
	b.ReportAllocs()
	for b.Loop() {
		s.Add(llmtest.Reply{Body: body})
		drain(b, p, req)
	}
}

// benchLongRequest is a request of ~50k tokens, mostly tool output (as a
// long session's): 12 reads of 16 KB Go source.
func benchLongRequest() llm.Request {
	req := benchRequest()
	req.Model = "m"
	src := strings.Repeat("func (s *session) load(ctx context.Context, k *kept) error {\n\tif err != nil {\n\t\treturn fmt.Errorf(\"agent: %w\", err)\n\t}\n", 120)
	for i := range 12 {
		id := fmt.Sprintf("call_%d", i)
		req.Messages = append(req.Messages,
			llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{{Kind: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: id, Name: "file_read", Args: []byte(`{"path":"a.go"}`)}}}},
			llm.Message{Role: llm.RoleTool, Parts: []llm.Part{{Kind: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: id, Content: src}}}},
			llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.TextPart("Read it.")}},
			llm.UserText("next"))
	}
	return req
}

// BenchmarkChatBody is the request encoding of a long request:
// go test ./llm/openai -run '^$' -bench ChatBody -benchmem
func BenchmarkChatBody(b *testing.B) {
	p := newProvider(Options{}, nil, false)
	req := benchLongRequest()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.chatBody(req); err != nil {
			b.Fatal(err)
		}
	}
}
