package openai

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/llmtest"
	"github.com/godwit/godwit/llm/retry"
)

// TestFirstDeltaBeforeStreamEnds proves there is no buffering: the server
// holds the rest of the stream back until the consumer has seen the first
// text delta. An adapter that waited for the end would deadlock, which the
// guard turns into a failure.
func TestFirstDeltaBeforeStreamEnds(t *testing.T) {
	for _, format := range []string{"chat", "responses"} {
		t.Run(format, func(t *testing.T) {
			first, rest := llmtest.ChatText("Hel"), llmtest.ChatText("lo")+llmtest.ChatFinish("stop")+llmtest.ChatDone
			if format == "responses" {
				first = llmtest.ResponsesCreated() + llmtest.ResponsesText("Hel")
				rest = llmtest.ResponsesText("lo") + llmtest.ResponsesCompleted(1, 1)
			}
			seen := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = io.WriteString(w, first)
				w.(http.Flusher).Flush()
				select {
				case <-seen:
				case <-r.Context().Done():
					return
				}
				_, _ = io.WriteString(w, rest)
			}))
			defer srv.Close()

			o := Options{BaseURL: srv.URL + "/v1"}
			var p llm.Provider = NewChat(o)
			if format == "responses" {
				p = NewResponses(o)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			guard := time.AfterFunc(10*time.Second, cancel) // deadlock guard, not a timing assertion
			defer guard.Stop()

			var text string
			stopped := false
			for ev, err := range p.Stream(ctx, userReq("hi")) {
				if err != nil {
					t.Fatalf("stream failed (the first delta was not delivered before the stream ended?): %v", err)
				}
				if ev.Type == llm.EventTextDelta {
					if text == "" {
						close(seen)
					}
					text += ev.Text
				}
				stopped = stopped || ev.Type == llm.EventStop
			}
			if text != "Hello" || !stopped {
				t.Errorf("text = %q, stopped = %v", text, stopped)
			}
		})
	}
}

// TestBreakReleasesConnection: a consumer that stops early must not leak
// the response body; the server sees its request context end.
func TestBreakReleasesConnection(t *testing.T) {
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, llmtest.ChatText("a"))
		w.(http.Flusher).Flush()
		<-r.Context().Done() // only a closed connection ends this
		close(done)
	}))
	defer srv.Close()
	for ev, err := range NewChat(Options{BaseURL: srv.URL}).Stream(context.Background(), userReq("hi")) {
		if err != nil || ev.Type == llm.EventTextDelta {
			break
		}
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second): // deadlock guard
		t.Fatal("the connection stayed open after the consumer stopped")
	}
}

// TestIdleServerCountsAsDropped: a server that stops sending, before its
// headers or mid-stream, ends the call with a retryable error naming the
// silence, instead of hanging the turn; a retry that gets a whole answer
// succeeds.
func TestIdleServerCountsAsDropped(t *testing.T) {
	for _, tc := range []struct {
		name    string
		headers bool
	}{{"before headers", false}, {"mid-stream", true}} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				if calls.Add(1) == 1 {
					if tc.headers {
						w.Header().Set("Content-Type", "text/event-stream")
						_, _ = io.WriteString(w, llmtest.ChatText("Hel"))
						w.(http.Flusher).Flush()
					}
					<-r.Context().Done() // stalls until the client gives up
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = io.WriteString(w, llmtest.ChatText("Hello")+llmtest.ChatFinish("stop")+llmtest.ChatDone)
			}))
			defer srv.Close()
			p := NewChat(Options{BaseURL: srv.URL, IdleTimeout: 50 * time.Millisecond})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second) // a hang guard, not a timing assertion
			defer cancel()
			var err error
			for _, e := range p.Stream(ctx, userReq("hi")) {
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
			text := ""
			for ev, e := range retry.New(p, retry.Options{Sleep: func(context.Context, time.Duration) error { return nil }}).Stream(ctx, userReq("hi")) {
				if e != nil {
					t.Fatalf("retry: %v", e)
				}
				if ev.Type == llm.EventTextDelta {
					text += ev.Text
				}
			}
			if text != "Hello" {
				t.Errorf("after the retry: %q", text)
			}
		})
	}
}
