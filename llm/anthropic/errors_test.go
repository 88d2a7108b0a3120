package anthropic

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/llmtest"
)

func withHeader(r llmtest.Reply, k, v string) llmtest.Reply {
	r.Headers[k] = v
	return r
}

func TestErrorClassification(t *testing.T) {
	text := llmtest.AnthropicEvents(llmtest.AnthropicText("partial", "more"))
	head := strings.Join(text[:3], "") // message_start, block start, first delta
	full := strings.Join(text, "")
	sse := func(body string) llmtest.Reply { return llmtest.Reply{Body: body} }
	tests := []struct {
		name   string
		reply  llmtest.Reply
		kind   llm.Kind
		status int
		retry  time.Duration
		msg    string // substring of Error()
	}{
		{"429 with retry-after", withHeader(llmtest.AnthropicError(429, "rate_limit_error", "Number of requests has exceeded your rate limit"), "Retry-After", "7"),
			llm.KindRetryable, 429, 7 * time.Second, "HTTP 429: rate_limit_error: Number of requests"},
		{"529 overloaded", llmtest.AnthropicError(529, "overloaded_error", "Overloaded"), llm.KindRetryable, 529, 0, "HTTP 529: overloaded_error: Overloaded"},
		{"500", llmtest.AnthropicError(500, "api_error", "Internal server error"), llm.KindRetryable, 500, 0, "HTTP 500"},
		{"502 from a proxy, not JSON", llmtest.Reply{Status: 502, Headers: map[string]string{"Content-Type": "text/html"}, Body: "<html>Bad gateway</html>"},
			llm.KindRetryable, 502, 0, "Bad gateway"},
		{"401", llmtest.AnthropicError(401, "authentication_error", "invalid x-api-key"), llm.KindAuth, 401, 0, "authentication_error: invalid x-api-key"},
		{"403", llmtest.AnthropicError(403, "permission_error", "no access to model"), llm.KindAuth, 403, 0, "permission_error"},
		{"400 prompt too long", llmtest.AnthropicError(400, "invalid_request_error", "prompt is too long: 212011 tokens > 200000 maximum"),
			llm.KindContextTooLong, 400, 0, "prompt is too long"},
		{"413 request too large", llmtest.AnthropicError(413, "request_too_large", "Request exceeds the maximum allowed number of bytes."), llm.KindContextTooLong, 413, 0, "request_too_large"},
		{"400 other", llmtest.AnthropicError(400, "invalid_request_error", "messages.1.content.0: unexpected tool_use_id"), llm.KindBadRequest, 400, 0, "unexpected tool_use_id"},
		{"404 model", llmtest.AnthropicError(404, "not_found_error", "model: claude-nope"), llm.KindBadRequest, 404, 0, "claude-nope"},
		{"402 billing", llmtest.AnthropicError(402, "billing_error", "credit balance too low"), llm.KindOther, 402, 0, "billing_error"},
		{"stream cut mid-way", llmtest.Reply{Body: full, CutAfter: len(head) + 5}, llm.KindRetryable, 0, 0, "stream cut mid-way: unexpected EOF"},
		{"clean close before message_stop", sse(head), llm.KindRetryable, 0, 0, "stream ended before message_stop"},
		{"overloaded error event mid-stream", sse(head + llmtest.AnthropicStreamError("overloaded_error", "Overloaded")),
			llm.KindRetryable, 0, 0, "stream error: overloaded_error: Overloaded"},
		{"context error event mid-stream", sse(head + llmtest.AnthropicStreamError("invalid_request_error", "prompt is too long")),
			llm.KindContextTooLong, 0, 0, "prompt is too long"},
		{"200 answered with JSON", llmtest.JSON(200, `{"id":"msg_1","type":"message","content":[]}`), llm.KindMalformed, 0, 0, "not an event stream"},
		{"unparseable event", sse(head + "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\n\n"), llm.KindMalformed, 0, 0, "unparseable event"},
		{"delta for a block never started", sse(text[0] + text[2]), llm.KindMalformed, 0, 0, "block 0, which is not open"},
		{"stop for a block never started", sse(text[0] + text[4]), llm.KindMalformed, 0, 0, "content_block_stop for block 0"},
		{"message_stop with an open block", sse(head + text[len(text)-1]), llm.KindMalformed, 0, 0, "still open"},
		{"block started twice", sse(text[0] + text[1] + text[1]), llm.KindMalformed, 0, 0, "already open"},
		{"text delta for a tool block", sse(llmtest.AnthropicEvents(llmtest.AnthropicToolUse("t", "f", ""))[1] + text[2]), llm.KindMalformed, 0, 0, "text_delta for a tool_use block"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewTestServer(t, tt.reply)
			_, err := collect(t, New(Options{BaseURL: srv.URL()}), simpleReq)
			var e *llm.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T); want *llm.Error", err, err)
			}
			if e.Kind != tt.kind || e.StatusCode != tt.status || e.RetryAfter != tt.retry || e.Provider != "anthropic" {
				t.Errorf("got kind %d status %d retry %v provider %q; want kind %d status %d retry %v", e.Kind, e.StatusCode, e.RetryAfter, e.Provider, tt.kind, tt.status, tt.retry)
			}
			if !strings.Contains(e.Error(), tt.msg) {
				t.Errorf("message %q; want it to contain %q", e.Error(), tt.msg)
			}
		})
	}
}

func TestErrorSentinels(t *testing.T) {
	srv := llmtest.NewTestServer(t, llmtest.AnthropicError(529, "overloaded_error", "Overloaded"))
	_, err := collect(t, New(Options{BaseURL: srv.URL()}), simpleReq)
	if !errors.Is(err, llm.ErrRetryable) || errors.Is(err, llm.ErrAuth) {
		t.Errorf("errors.Is: %v", err)
	}
	if _, ok := llm.RetryAfter(err); !ok {
		t.Errorf("llm.RetryAfter does not see %v as retryable", err)
	}
}

func TestConnectionRefusedIsRetryable(t *testing.T) {
	srv := llmtest.NewServer()
	url := srv.URL()
	srv.Close()
	_, err := collect(t, New(Options{BaseURL: url}), simpleReq)
	if !errors.Is(err, llm.ErrRetryable) {
		t.Errorf("error %v; want retryable", err)
	}
}

// Mistakes found before any request is sent are bad requests, and nothing
// reaches the server (NewTestServer fails on an unscripted request).
func TestLocalErrorsSendNothing(t *testing.T) {
	srv := llmtest.NewTestServer(t)
	for _, tt := range []struct {
		opts Options
		req  llm.Request
		want string
	}{
		{Options{BaseURL: srv.URL()}, llm.Request{Messages: simpleReq.Messages}, "set Request.Model"},
		{Options{BaseURL: "api.anthropic.com"}, simpleReq, "configuration: BaseURL \"api.anthropic.com\" is not an absolute URL"},
		{Options{BaseURL: srv.URL(), DefaultMaxTokens: -5}, simpleReq, "DefaultMaxTokens is -5"},
	} {
		_, err := collect(t, New(tt.opts), tt.req)
		if !errors.Is(err, llm.ErrBadRequest) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("error %v; want a bad request containing %q", err, tt.want)
		}
	}
}

func TestStreamErrorAfterPartialAnswer(t *testing.T) {
	text := llmtest.AnthropicEvents(llmtest.AnthropicText("partial"))
	srv := llmtest.NewTestServer(t, llmtest.Reply{Body: strings.Join(text[:3], "") + llmtest.AnthropicStreamError("overloaded_error", "Overloaded")})
	resp, err := llm.Collect(New(Options{BaseURL: srv.URL()}).Stream(context.Background(), simpleReq))
	if !errors.Is(err, llm.ErrRetryable) || resp.Message.Text() != "partial" {
		t.Errorf("got %q, %v; want the partial text and a retryable error", resp.Message.Text(), err)
	}
}

func TestUnknownBlocksAreSkipped(t *testing.T) {
	server := `event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"query\":\"go\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

`
	ev := llmtest.AnthropicEvents(llmtest.AnthropicText("after"))
	for i, e := range ev[1:4] { // the text block moves to index 1
		ev[1+i] = strings.Replace(e, `"index":0`, `"index":1`, 1)
	}
	srv := llmtest.NewTestServer(t, llmtest.Reply{Body: ev[0] + server + strings.Join(ev[1:], "")})
	got, err := collect(t, New(Options{BaseURL: srv.URL()}), simpleReq)
	if err != nil || strings.Join(got, " ") != "usage(10 1 r0 w0) text_delta(after) usage(10 5 r0 w0) stop(end_turn)" {
		t.Errorf("got %q, %v", got, err)
	}
}
