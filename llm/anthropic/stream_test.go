package anthropic

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/llmtest"
)

var simpleReq = llm.Request{Model: "claude-test", Messages: []llm.Message{llm.UserText("hi")}}

// render writes an event compactly, for comparing whole streams.
func render(ev llm.Event) string {
	switch ev.Type {
	case llm.EventTextDelta, llm.EventThinkingDelta:
		return fmt.Sprintf("%s(%s)", ev.Type, ev.Text)
	case llm.EventToolCallDelta:
		return fmt.Sprintf("%s#%d(%s)", ev.Type, ev.Index, ev.Text)
	case llm.EventToolCallStart, llm.EventToolCallEnd:
		return fmt.Sprintf("%s#%d(%s %s %s)", ev.Type, ev.Index, ev.ToolCall.ID, ev.ToolCall.Name, ev.ToolCall.Args)
	case llm.EventThinkingEnd:
		th := ev.Thinking
		return fmt.Sprintf("%s(%s|%s|%v|%s)", ev.Type, th.Text, th.Signature, th.Redacted, th.Provider)
	case llm.EventUsage:
		u := ev.Usage
		return fmt.Sprintf("usage(%d %d r%d w%d)", u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens)
	case llm.EventStop:
		return fmt.Sprintf("stop(%s)", ev.StopReason)
	}
	return string(ev.Type)
}

func collect(t *testing.T, p llm.Provider, req llm.Request) ([]string, error) {
	t.Helper()
	var out []string
	for ev, err := range p.Stream(context.Background(), req) {
		if err != nil {
			return out, err
		}
		out = append(out, render(ev))
	}
	return out, nil
}

func TestStreamEvents(t *testing.T) {
	srv := llmtest.NewTestServer(t, llmtest.AnthropicReply(
		llmtest.AnthropicThinking("hmm", "sig-1"),
		llmtest.AnthropicRedactedThinking("opaque"),
		llmtest.AnthropicText("Hel", "lo"),
		llmtest.AnthropicToolUse("toolu_1", "file_read", `{"path":"a.go"}`),
		llmtest.AnthropicToolUse("toolu_2", "now", ""),
		llmtest.AnthropicUsage(100, 20, 800, 50),
	))
	got, err := collect(t, New(Options{BaseURL: srv.URL()}), simpleReq)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"usage(950 1 r800 w50)",
		"thinking_delta(hmm)", "thinking_end(hmm|sig-1|false|anthropic)",
		"thinking_end(|opaque|true|anthropic)",
		"text_delta(Hel)", "text_delta(lo)",
		"tool_call_start#0(toolu_1 file_read )", `tool_call_delta#0({"path")`, `tool_call_delta#0(:"a.go"})`,
		`tool_call_end#0(toolu_1 file_read {"path":"a.go"})`,
		"tool_call_start#1(toolu_2 now )", "tool_call_end#1(toolu_2 now {})",
		"usage(950 20 r800 w50)", "stop(tool_use)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestStopReasons(t *testing.T) {
	for wire, want := range map[string]llm.StopReason{
		"end_turn": llm.StopEndTurn, "stop_sequence": llm.StopEndTurn, "tool_use": llm.StopToolUse,
		"max_tokens": llm.StopMaxTokens, "model_context_window_exceeded": llm.StopMaxTokens,
		"refusal": llm.StopRefusal, "pause_turn": llm.StopOther, "something_new": llm.StopOther,
	} {
		srv := llmtest.NewTestServer(t, llmtest.AnthropicReply(llmtest.AnthropicText("x"), llmtest.AnthropicStop(wire)))
		resp, err := llm.Collect(New(Options{BaseURL: srv.URL()}).Stream(context.Background(), simpleReq))
		if err != nil || resp.StopReason != want {
			t.Errorf("stop_reason %s: got %q, %v; want %q", wire, resp.StopReason, err, want)
		}
	}
}

func TestRequestHeadersAndPath(t *testing.T) {
	srv := llmtest.NewTestServer(t, llmtest.AnthropicReply(llmtest.AnthropicText("x")))
	p := New(Options{BaseURL: srv.URL() + "/v1/", APIKey: "sk-test", Headers: map[string]string{"anthropic-beta": "b1"}})
	if _, err := llm.Collect(p.Stream(context.Background(), simpleReq)); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if r.Method != http.MethodPost || r.Path != "/v1/messages" {
		t.Errorf("%s %s; want POST /v1/messages", r.Method, r.Path)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer sk-test" {
		t.Errorf("Authorization %q", got)
	}
	if got := r.Header.Get("Anthropic-Beta"); got != "b1" {
		t.Errorf("anthropic-beta %q", got)
	}
	if got := r.Header.Get("Anthropic-Version"); got != apiVersion {
		t.Errorf("anthropic-version %q", got)
	}
}

// gatedServer streams head, then waits for release (or the client to
// leave) before streaming tail. left is closed when the request's context
// ends, i.e. the client dropped the connection.
func gatedServer(t *testing.T, head, tail string) (url string, release, left chan struct{}) {
	release, left = make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(head))
		w.(http.Flusher).Flush()
		select {
		case <-release:
			_, _ = w.Write([]byte(tail))
		case <-r.Context().Done():
			close(left)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL, release, left
}

// The first text delta must reach the consumer while the server is still
// holding the rest of the answer back: the adapter does not buffer.
func TestFirstDeltaBeforeStreamEnds(t *testing.T) {
	events := llmtest.AnthropicEvents(llmtest.AnthropicText("first", "second"))
	url, release, _ := gatedServer(t, strings.Join(events[:3], ""), strings.Join(events[3:], ""))
	guard := time.AfterFunc(10*time.Second, func() { close(release) }) // a buffering adapter would wait here
	defer guard.Stop()
	var got []string
	for ev, err := range New(Options{BaseURL: url}).Stream(context.Background(), simpleReq) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type == llm.EventTextDelta && ev.Text == "first" {
			if !guard.Stop() {
				t.Fatal("the first delta arrived only after the whole stream was sent")
			}
			close(release)
		}
		got = append(got, render(ev))
	}
	if got[len(got)-1] != "stop(end_turn)" {
		t.Errorf("stream ended with %s", got[len(got)-1])
	}
}

func TestBreakReleasesConnection(t *testing.T) {
	events := llmtest.AnthropicEvents(llmtest.AnthropicText("first", "second"))
	url, _, left := gatedServer(t, strings.Join(events[:3], ""), "")
	for ev, err := range New(Options{BaseURL: url}).Stream(context.Background(), simpleReq) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type == llm.EventTextDelta {
			break
		}
	}
	select {
	case <-left:
	case <-time.After(10 * time.Second):
		t.Fatal("the connection stayed open after the consumer stopped")
	}
}

func TestCancelEndsStream(t *testing.T) {
	events := llmtest.AnthropicEvents(llmtest.AnthropicText("first", "second"))
	url, _, _ := gatedServer(t, strings.Join(events[:3], ""), "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var last error
	for ev, err := range New(Options{BaseURL: url}).Stream(ctx, simpleReq) {
		if ev.Type == llm.EventTextDelta {
			cancel()
		}
		last = err
	}
	if !errors.Is(last, context.Canceled) {
		t.Errorf("error %v; want context.Canceled", last)
	}
}

func TestConcurrentStreams(t *testing.T) {
	const n = 4
	var replies []llmtest.Reply
	for range n {
		replies = append(replies, llmtest.AnthropicReply(llmtest.AnthropicText("same answer")))
	}
	srv := llmtest.NewTestServer(t, replies...)
	p := New(Options{BaseURL: srv.URL()})
	errs := make(chan error, n)
	for range n {
		go func() {
			resp, err := llm.Collect(p.Stream(context.Background(), simpleReq))
			if err == nil && resp.Message.Text() != "same answer" {
				err = fmt.Errorf("text %q", resp.Message.Text())
			}
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestIdleServerCountsAsDropped: a stream that stops sending ends the
// call with a retryable error naming the silence, instead of hanging the
// turn.
func TestIdleServerCountsAsDropped(t *testing.T) {
	events := llmtest.AnthropicEvents(llmtest.AnthropicText("first", "second"))
	url, _, left := gatedServer(t, strings.Join(events[:3], ""), "")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second) // a hang guard, not a timing assertion
	defer cancel()
	var err error
	for _, e := range New(Options{BaseURL: url, IdleTimeout: 50 * time.Millisecond}).Stream(ctx, simpleReq) {
		if e != nil {
			err = e
		}
	}
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != llm.KindRetryable || !strings.Contains(le.Message, "the server sent nothing for 50ms") {
		t.Fatalf("got %v, want a retryable error saying the server sent nothing", err)
	}
	if ctx.Err() != nil {
		t.Fatal("the call hung until the guard")
	}
	<-left // the connection was closed, not leaked
}
