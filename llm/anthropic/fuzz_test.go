package anthropic

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/llmtest"
)

// bodyTransport answers every request with its bytes as an event stream,
// without a network: the fuzzer and the parsing benchmark exercise the
// adapter alone.
type bodyTransport string

func (b bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	return &http.Response{
		StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"text/event-stream"}},
		Body:    io.NopCloser(strings.NewReader(string(b))),
		Request: r,
	}, nil
}

func memProvider(body string) llm.Provider {
	return New(Options{BaseURL: "http://llmtest.invalid", HTTPClient: &http.Client{Transport: bodyTransport(body)}})
}

// FuzzAnthropicStream feeds arbitrary bytes as the SSE body. The adapter
// must end every stream, without panicking, either with one EventStop as
// its last event or with one *llm.Error; and every finished tool call must
// have been started.
func FuzzAnthropicStream(f *testing.F) {
	f.Add(llmtest.AnthropicSSE(llmtest.AnthropicThinking("t", "s"), llmtest.AnthropicText("a", "b"), llmtest.AnthropicToolUse("id", "f", `{"a":1}`)))
	f.Add(llmtest.AnthropicSSE(llmtest.AnthropicRedactedThinking("d"), llmtest.AnthropicToolUse("id", "f", "")))
	f.Add(llmtest.AnthropicStreamError("overloaded_error", "Overloaded"))
	f.Add("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	f.Add("data: {\"type\":\"content_block_delta\",\"index\":9223372036854775807,\"delta\":{}}\n\n")
	for _, c := range llmtest.Cassettes(f, "testdata/cassettes") {
		for _, in := range c.Interactions {
			if strings.HasPrefix(in.Response.Body, "event:") {
				f.Add(in.Response.Body)
				f.Add(in.Response.Body[:len(in.Response.Body)/2])
			}
		}
	}
	f.Fuzz(func(t *testing.T, body string) {
		var evs []llm.Event
		var failure error
		for ev, err := range memProvider(body).Stream(context.Background(), simpleReq) {
			if failure != nil {
				t.Fatalf("yielded %+v, %v after the error %v", ev, err, failure)
			}
			if err != nil {
				failure = err
				continue
			}
			if len(evs) > 0 && evs[len(evs)-1].Type == llm.EventStop {
				t.Fatalf("event %s after EventStop", ev.Type)
			}
			evs = append(evs, ev)
		}
		var e *llm.Error
		switch {
		case failure != nil && !errors.As(failure, &e):
			t.Fatalf("error %v (%T) is not an *llm.Error", failure, failure)
		case failure == nil && (len(evs) == 0 || evs[len(evs)-1].Type != llm.EventStop):
			t.Fatalf("stream ended without error or EventStop")
		}
		started := map[int]string{}
		for _, ev := range evs {
			switch ev.Type {
			case llm.EventToolCallStart:
				started[ev.Index] = ev.ToolCall.ID
			case llm.EventToolCallEnd:
				if id, ok := started[ev.Index]; !ok || id != ev.ToolCall.ID || len(ev.ToolCall.Args) == 0 {
					t.Fatalf("tool call end %+v without its start, or with empty args", ev.ToolCall)
				}
			}
		}
	})
}
