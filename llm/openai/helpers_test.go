package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/llmtest"
)

// run streams req and returns every event and the error, if any.
func run(t testing.TB, p llm.Provider, req llm.Request) ([]llm.Event, error) {
	t.Helper()
	var evs []llm.Event
	for ev, err := range p.Stream(context.Background(), req) {
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

// response folds events the way consumers do.
func response(evs []llm.Event) llm.Response {
	var acc llm.Accumulator
	for _, ev := range evs {
		acc.Add(ev)
	}
	return acc.Response()
}

// deltas joins the Text of every event of type typ.
func deltas(evs []llm.Event, typ llm.EventType) string {
	var b strings.Builder
	for _, ev := range evs {
		if ev.Type == typ {
			b.WriteString(ev.Text)
		}
	}
	return b.String()
}

func ofType(evs []llm.Event, typ llm.EventType) []llm.Event {
	var out []llm.Event
	for _, ev := range evs {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

// kinds lists event types in order, collapsing runs of the same type.
func kinds(evs []llm.Event) string {
	var out []string
	for _, ev := range evs {
		if n := len(out); n > 0 && out[n-1] == string(ev.Type) {
			continue
		}
		out = append(out, string(ev.Type))
	}
	return strings.Join(out, " ")
}

func chatFor(s *llmtest.Server, mod ...func(*Options)) llm.Provider {
	o := Options{Name: "test", BaseURL: s.URL() + "/v1"}
	for _, m := range mod {
		m(&o)
	}
	return NewChat(o)
}

func responsesFor(s *llmtest.Server, mod ...func(*Options)) llm.Provider {
	o := Options{Name: "test", BaseURL: s.URL() + "/v1"}
	for _, m := range mod {
		m(&o)
	}
	return NewResponses(o)
}

func userReq(text string) llm.Request {
	return llm.Request{Model: "test-model", Messages: []llm.Message{llm.UserText(text)}}
}

// bodyOf decodes a captured request body into a generic map.
func bodyOf(t testing.TB, c llmtest.Captured) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(c.Body, &m); err != nil {
		t.Fatalf("request body is not JSON: %v\n%s", err, c.Body)
	}
	return m
}

func toolResults(results ...llm.ToolResult) llm.Message {
	m := llm.Message{Role: llm.RoleTool}
	for i := range results {
		m.Parts = append(m.Parts, llm.Part{Kind: llm.PartToolResult, ToolResult: &results[i]})
	}
	return m
}

// bodyTransport answers every request with a fixed status and body,
// without a network: the fuzz tests and benchmarks use it.
type bodyTransport struct {
	contentType string
	body        []byte
}

func (b bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	h := http.Header{}
	h.Set("Content-Type", b.contentType)
	return &http.Response{StatusCode: 200, Header: h, Body: io.NopCloser(bytes.NewReader(b.body)), Request: r}, nil
}

func mustJSON(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}
