package anthropic

import (
	"context"
	"fmt"
	"testing"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/llmtest"
)

// benchAnswer is a typical agent turn: a thinking block, a 50-delta text
// and two tool calls.
func benchAnswer() string {
	pieces := make([]string, 50)
	for i := range pieces {
		pieces[i] = fmt.Sprintf("word%d ", i)
	}
	return llmtest.AnthropicSSE(
		llmtest.AnthropicThinking("Let me look at the failing test first.", "EtYDCkYICxgCKkAVHEWRYo6RgSMs4ZZDX4gW16kdfp2EIXftcLes"),
		llmtest.AnthropicText(pieces...),
		llmtest.AnthropicToolUse("toolu_1", "file_read", `{"path":"internal/cli/root.go","start_line":1,"end_line":80}`),
		llmtest.AnthropicToolUse("toolu_2", "grep", `{"pattern":"func New","path":"llm"}`),
		llmtest.AnthropicUsage(12000, 300, 11000, 500),
	)
}

func benchRequest() llm.Request {
	req := llm.Request{Model: "claude-bench", System: "You are godwit.", Tools: []llm.ToolSpec{
		{Name: "file_read", Description: "Read a file.", Schema: []byte(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
	}}
	for i := range 20 {
		id := fmt.Sprintf("c%d", i)
		req.Messages = append(req.Messages, llm.UserText("step"),
			msg(llm.RoleAssistant, llm.TextPart("reading"), call(id, "file_read", `{"path":"a.go"}`)),
			msg(llm.RoleTool, result(id, "package a\n\nfunc A() {}\n", false)))
	}
	return req
}

func drain(b *testing.B, p llm.Provider, req llm.Request) {
	n := 0
	for _, err := range p.Stream(context.Background(), req) {
		if err != nil {
			b.Fatal(err)
		}
		n++
	}
	if n < 50 {
		b.Fatalf("only %d events", n)
	}
}

// BenchmarkAnthropicStream measures one streamed call: building the
// request (60 history messages), sending it and parsing a 60-event answer.
// "llmtest" goes through a local HTTP server; "in-memory" serves the body
// from a RoundTripper, leaving the adapter's and the SDK's own cost.
func BenchmarkAnthropicStream(b *testing.B) {
	body, req := benchAnswer(), benchRequest()
	b.Run("llmtest", func(b *testing.B) {
		srv := llmtest.NewServer()
		defer srv.Close()
		p := New(Options{BaseURL: srv.URL()})
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			srv.Add(llmtest.Reply{Body: body})
			b.StartTimer()
			drain(b, p, req)
		}
	})
	b.Run("in-memory", func(b *testing.B) {
		p := memProvider(body)
		b.ReportAllocs()
		for b.Loop() {
			drain(b, p, req)
		}
	})
}
