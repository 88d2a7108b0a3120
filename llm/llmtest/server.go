package llmtest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Reply is one scripted HTTP answer.
type Reply struct {
	Status  int               // 0 means 200
	Headers map[string]string // Content-Type defaults to text/event-stream
	Body    string
	// Chunks, when set, are written one by one with a flush and Delay
	// between them (slow streams); Body is then ignored.
	Chunks []string
	Delay  time.Duration
	// CutAfter > 0 closes the connection abruptly after that many bytes of
	// the body, to simulate a stream cut mid-way.
	CutAfter int
}

// Captured is one request the server received.
type Captured struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// Server serves Replies in order, one per request, to any path, and
// records each request. A request past the last reply is answered 500 and
// fails the test on Verify.
type Server struct {
	*httptest.Server

	// answer, when set, answers every request instead (NewFuncServer).
	answer func(Captured) Reply

	mu       sync.Mutex
	replies  []Reply
	next     int
	requests []Captured
	extra    int
}

// NewServer starts a server; Close it when done (NewTestServer does that).
func NewServer(replies ...Reply) *Server {
	s := &Server{replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// NewFuncServer starts a server whose scripted model answers each
// request from what it was sent (long benchmarks); it records nothing, as
// answer sees every request. Close it when done.
func NewFuncServer(answer func(Captured) Reply) *Server {
	s := &Server{answer: answer}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// NewTestServer starts a server that is closed and verified at test end:
// every reply must have been used.
func NewTestServer(t testing.TB, replies ...Reply) *Server {
	t.Helper()
	s := NewServer(replies...)
	t.Cleanup(func() {
		s.Close()
		s.Verify(t)
	})
	return s
}

// Add appends replies to the queue.
func (s *Server) Add(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies = append(s.replies, replies...)
}

// URL returns the base URL, without a trailing slash.
func (s *Server) URL() string { return s.Server.URL }

// Requests returns a copy of the captured requests in arrival order.
func (s *Server) Requests() []Captured {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Captured(nil), s.requests...)
}

// Verify fails t if a reply was never used or a request came with no reply
// left for it.
func (s *Server) Verify(t testing.TB) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next < len(s.replies) {
		t.Errorf("llmtest: %d of %d scripted replies were never requested", len(s.replies)-s.next, len(s.replies))
	}
	if s.extra > 0 {
		t.Errorf("llmtest: %d requests arrived after the script ran out", s.extra)
	}
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	c := Captured{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	if s.answer != nil {
		write(r.Context(), w, s.answer(c))
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, c)
	if s.next >= len(s.replies) {
		s.extra++
		s.mu.Unlock()
		http.Error(w, `{"error":{"message":"llmtest: no scripted reply left","type":"server_error"}}`, http.StatusInternalServerError)
		return
	}
	rep := s.replies[s.next]
	s.next++
	s.mu.Unlock()
	write(r.Context(), w, rep)
}

func write(ctx context.Context, w http.ResponseWriter, rep Reply) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	for k, v := range rep.Headers {
		h.Set(k, v)
	}
	status := rep.Status
	if status == 0 {
		status = http.StatusOK
	}
	if rep.CutAfter > 0 {
		body := rep.Body
		if rep.CutAfter < len(body) {
			body = body[:rep.CutAfter]
		}
		h.Set("Content-Length", fmt.Sprint(len(rep.Body)))
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		if hj, ok := w.(http.Hijacker); ok {
			if c, _, err := hj.Hijack(); err == nil {
				_ = c.Close()
			}
		}
		return
	}
	w.WriteHeader(status)
	if len(rep.Chunks) == 0 {
		_, _ = io.WriteString(w, rep.Body)
		return
	}
	f, _ := w.(http.Flusher)
	for i, c := range rep.Chunks {
		if i > 0 && rep.Delay > 0 {
			// A client that went away (a cancelled turn) ends a slow
			// stream, so it need not outlast the test.
			select {
			case <-time.After(rep.Delay):
			case <-ctx.Done():
				return
			}
		}
		_, _ = io.WriteString(w, c)
		if f != nil {
			f.Flush()
		}
	}
}

// JSON returns a non-streaming JSON reply.
func JSON(status int, body string) Reply {
	return Reply{Status: status, Headers: map[string]string{"Content-Type": "application/json"}, Body: body}
}

// SSE joins events into a text/event-stream body. Each item is either a
// full "event: x\ndata: y" block or a bare data payload.
func SSE(events ...string) string {
	var b bytes.Buffer
	for _, e := range events {
		if !strings.HasPrefix(e, "event:") && !strings.HasPrefix(e, "data:") {
			e = "data: " + e
		}
		b.WriteString(e)
		b.WriteString("\n\n")
	}
	return b.String()
}
