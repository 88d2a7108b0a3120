package openai

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/llmtest"
)

func TestHTTPErrorClassification(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name       string
		reply      llmtest.Reply
		kind       llm.Kind
		sentinel   error
		retryAfter time.Duration
		msg        string
	}{
		{"429 with Retry-After", errReply(429, map[string]string{"Retry-After": "7"}, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`),
			llm.KindRetryable, llm.ErrRetryable, 7 * time.Second, "Rate limit reached"},
		{"429 with retry-after-ms", errReply(429, map[string]string{"retry-after-ms": "1500", "Retry-After": "9"}, `{"error":{"message":"slow down"}}`),
			llm.KindRetryable, llm.ErrRetryable, 1500 * time.Millisecond, "slow down"},
		{"503 with an HTTP-date", errReply(503, map[string]string{"Retry-After": now.Add(30 * time.Second).Format(http.TimeFormat)}, `upstream unavailable`),
			llm.KindRetryable, llm.ErrRetryable, 30 * time.Second, "upstream unavailable"},
		{"500 without body", errReply(500, nil, ``), llm.KindRetryable, llm.ErrRetryable, 0, "Internal Server Error"},
		{"529 overloaded", errReply(529, nil, `{"error":{"type":"overloaded_error","message":"Overloaded"}}`), llm.KindRetryable, llm.ErrRetryable, 0, "Overloaded"},
		{"401", errReply(401, nil, `{"error":{"message":"Incorrect API key provided: sk-abc.","type":"invalid_request_error","code":"invalid_api_key"}}`),
			llm.KindAuth, llm.ErrAuth, 0, "Incorrect API key provided"},
		{"403", errReply(403, nil, `{"error":{"message":"Project does not have access to model gpt-5"}}`), llm.KindAuth, llm.ErrAuth, 0, "does not have access"},
		{"400 context_length_exceeded", errReply(400, nil, `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`),
			llm.KindContextTooLong, llm.ErrContextTooLong, 0, "maximum context length"},
		{"vLLM context", errReply(400, nil, `{"object":"error","message":"This model's maximum context length is 32768 tokens. However, you requested 40000 tokens.","type":"BadRequestError","param":null,"code":400}`),
			llm.KindContextTooLong, llm.ErrContextTooLong, 0, "32768"},
		{"llama.cpp context", errReply(400, nil, `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9000,"n_ctx":8192}}`),
			llm.KindContextTooLong, llm.ErrContextTooLong, 0, "context size"},
		{"413", errReply(413, nil, `{"error":{"message":"Request too large"}}`), llm.KindContextTooLong, llm.ErrContextTooLong, 0, "Request too large"},
		{"Ollama string error", errReply(404, nil, `{"error":"model \"qwen3\" not found, try pulling it first"}`), llm.KindBadRequest, llm.ErrBadRequest, 0, "try pulling it first"},
		{"400 other", errReply(400, nil, `{"error":{"message":"Invalid value for 'tool_choice'","code":"invalid_value"}}`), llm.KindBadRequest, llm.ErrBadRequest, 0, "tool_choice"},
		{"quota", errReply(429, nil, `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","code":"insufficient_quota"}}`),
			llm.KindOther, nil, 0, "billing"},
		{"200 JSON instead of a stream", llmtest.JSON(200, `{"id":"x","choices":[{"message":{"content":"hi"}}]}`), llm.KindMalformed, llm.ErrMalformed, 0, "instead of an event stream"},
		{"200 JSON error", llmtest.JSON(200, `{"error":{"message":"Provider returned error","code":502}}`), llm.KindRetryable, llm.ErrRetryable, 0, "Provider returned error"},
	}
	for _, tt := range tests {
		for _, format := range []string{"chat", "responses"} {
			t.Run(format+"/"+tt.name, func(t *testing.T) {
				s := llmtest.NewTestServer(t, tt.reply)
				o := Options{Name: "test", BaseURL: s.URL() + "/v1"}
				clock := func() time.Time { return now }
				var p llm.Provider = newProvider(o, clock, false)
				if format == "responses" {
					p = newProvider(o, clock, true)
				}
				evs, err := run(t, p, userReq("hi"))
				if len(evs) != 0 {
					t.Errorf("events before the error: %v", kinds(evs))
				}
				var le *llm.Error
				if !errors.As(err, &le) {
					t.Fatalf("err = %v, want *llm.Error", err)
				}
				if le.Kind != tt.kind || le.RetryAfter != tt.retryAfter || le.Provider != "test" {
					t.Errorf("got kind %d retryAfter %v provider %q, want kind %d retryAfter %v", le.Kind, le.RetryAfter, le.Provider, tt.kind, tt.retryAfter)
				}
				if tt.sentinel != nil && !errors.Is(err, tt.sentinel) {
					t.Errorf("errors.Is(%v, %v) = false", err, tt.sentinel)
				}
				if !strings.Contains(err.Error(), tt.msg) {
					t.Errorf("message %q lacks %q", err.Error(), tt.msg)
				}
				if tt.reply.Status >= 400 && !strings.Contains(err.Error(), "HTTP ") {
					t.Errorf("message %q lacks the status", err.Error())
				}
			})
		}
	}
}

func errReply(status int, headers map[string]string, body string) llmtest.Reply {
	h := map[string]string{"Content-Type": "application/json"}
	for k, v := range headers {
		h[k] = v
	}
	return llmtest.Reply{Status: status, Headers: h, Body: body}
}

func TestStreamFailures(t *testing.T) {
	chatBody := llmtest.ChatTextReply("Hello there, this is long enough to cut", 5, 5).Body
	respBody := llmtest.ResponsesTextReply("Hello there, this is long enough to cut", 5, 5).Body
	tests := []struct {
		name      string
		format    string
		reply     llmtest.Reply
		kind      llm.Kind
		msg       string
		wantDelta bool // text streamed before the failure
	}{
		{"chat cut mid-body", "chat", llmtest.Reply{Body: chatBody, CutAfter: len(llmtest.ChatText("x")) + 40}, llm.KindRetryable, "the stream broke off", true},
		{"responses cut mid-body", "responses", llmtest.Reply{Body: respBody, CutAfter: strings.Index(respBody, "event: response.output_item.done")}, llm.KindRetryable, "the stream broke off", true},
		{"chat ends without finish_reason", "chat", llmtest.Reply{Body: llmtest.SSE(`{"choices":[{"index":0,"delta":{"content":"Hi"}}]}`)}, llm.KindRetryable, "ended before the model finished", true},
		{"chat [DONE] without finish_reason", "chat", llmtest.ChatReply(llmtest.ChatText("Hi")), llm.KindRetryable, "ended before the model finished", true},
		{"chat chunk not JSON", "chat", llmtest.Reply{Body: llmtest.SSE(`{"choices":[{"index":0,"delta":{"content":"Hi"}}]}`, `{"choices":[`)}, llm.KindMalformed, "not valid JSON", true},
		{"responses event not JSON", "responses", llmtest.Reply{Body: llmtest.SSE("event: response.created\ndata: {oops")}, llm.KindMalformed, "not valid JSON", false},
		{"chat error mid-stream", "chat", llmtest.Reply{Body: llmtest.SSE(`{"choices":[{"index":0,"delta":{"content":"Hi"}}]}`, `{"error":{"message":"upstream overloaded","code":502}}`)}, llm.KindRetryable, "upstream overloaded", true},
		{"chat context error mid-stream", "chat", llmtest.Reply{Body: llmtest.SSE(`{"error":{"message":"prompt is too long: 210000 tokens > 200000 maximum"}}`)}, llm.KindContextTooLong, "prompt is too long", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := llmtest.NewTestServer(t, tt.reply)
			p := chatFor(s)
			if tt.format == "responses" {
				p = responsesFor(s)
			}
			evs, err := run(t, p, userReq("hi"))
			var le *llm.Error
			if !errors.As(err, &le) || le.Kind != tt.kind || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err = %v, want kind %d containing %q", err, tt.kind, tt.msg)
			}
			if got := len(ofType(evs, llm.EventTextDelta)) > 0; got != tt.wantDelta {
				t.Errorf("text streamed before the error = %v, want %v", got, tt.wantDelta)
			}
			if len(ofType(evs, llm.EventStop)) > 0 {
				t.Errorf("a failed stream sent a stop event")
			}
		})
	}
}

func TestStreamLabelledJSON(t *testing.T) {
	s := llmtest.NewTestServer(t, llmtest.JSON(200, llmtest.ChatTextReply("fine", 1, 1).Body))
	evs, err := run(t, chatFor(s), userReq("hi"))
	if err != nil || response(evs).Message.Text() != "fine" {
		t.Errorf("a stream sent as application/json: err = %v, text = %q", err, response(evs).Message.Text())
	}
}

func TestConnectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	_, err = run(t, NewChat(Options{BaseURL: "http://" + addr + "/v1"}), userReq("hi"))
	if !errors.Is(err, llm.ErrRetryable) || !strings.Contains(err.Error(), "could not reach the server") {
		t.Errorf("err = %v, want a retryable error saying to check the server", err)
	}
}

func TestContextCancel(t *testing.T) {
	s := llmtest.NewTestServer(t, llmtest.Reply{Chunks: []string{llmtest.ChatText("a"), llmtest.ChatText("b"), llmtest.ChatFinish("stop")}, Delay: 50 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var last error
	n := 0
	for ev, err := range chatFor(s).Stream(ctx, userReq("hi")) {
		if err != nil {
			last = err
			break
		}
		if ev.Type == llm.EventTextDelta {
			n++
			cancel()
		}
	}
	if n != 1 || !errors.Is(last, context.Canceled) {
		t.Errorf("deltas = %d, err = %v; want 1 delta then context.Canceled", n, last)
	}
}
