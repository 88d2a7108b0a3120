package acp

import (
	"io"
	"log/slog"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/godwit/godwit/internal/agent"
)

// benchSession is a session whose updates go to io.Discard through a
// real agent-side connection.
func benchSession(b *testing.B) *session {
	r, w := io.Pipe()
	b.Cleanup(func() { w.Close() })
	s := &server{log: slog.New(slog.DiscardHandler), ready: make(chan struct{}), sessions: map[string]*session{}}
	s.conn = sdk.NewAgentSideConnection(s, io.Discard, r)
	s.conn.SetLogger(s.log)
	close(s.ready)
	return &session{srv: s, id: "s1", eng: &Engine{Workspace: "/w"}, calls: map[string]*call{}, shown: map[string]int{}}
}

// BenchmarkTextDelta is the cost of streaming one text delta to the
// editor: the overhead ACP adds per streamed chunk.
func BenchmarkTextDelta(b *testing.B) {
	sess := benchSession(b)
	e := agent.Event{Type: agent.EventTextDelta, Step: 1, Text: "a streamed chunk of text "}
	b.ReportAllocs()
	for b.Loop() {
		sess.Emit(e)
	}
}

// BenchmarkToolCall is one file_read call shown start to end.
func BenchmarkToolCall(b *testing.B) {
	sess := benchSession(b)
	start := agent.Event{Type: agent.EventToolStarted, Tool: &agent.ToolInfo{CallID: "c1", Name: "file_read", Args: `{"path":"a/b.go","start_line":10}`}}
	end := agent.Event{Type: agent.EventToolFinished, Tool: &agent.ToolInfo{CallID: "c1", Name: "file_read", Output: "10\tpackage b\n11\t\n12\tfunc F() {}\n"}}
	b.ReportAllocs()
	for b.Loop() {
		sess.Emit(start)
		sess.Emit(end)
		sess.endTurn()
	}
}
