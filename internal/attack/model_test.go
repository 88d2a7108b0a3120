//go:build linux

package attack

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/godwit/godwit/llm/llmtest"
)

// model is the scripted model behind a local Chat Completions endpoint:
// each request gets the next call as one response, then "done." for
// anything after (the end-of-turn checks). It records every request, so
// the checks read exactly what the model was shown.
type model struct {
	srv *httptest.Server

	mu       sync.Mutex
	calls    []call
	next     int
	requests []string
}

func newModel(t *testing.T) *model {
	m := &model{}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *model) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	m.mu.Lock()
	m.requests = append(m.requests, string(body))
	i := m.next
	if i < len(m.calls) {
		m.next++
	}
	m.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	if i >= len(m.calls) {
		_, _ = io.WriteString(w, llmtest.ChatTextReply("done.", 100, 3).Body)
		return
	}
	c := m.calls[i]
	args, err := json.Marshal(c.Args)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	id := fmt.Sprintf("call_%d", i+1)
	_, _ = io.WriteString(w, llmtest.ChatReply(llmtest.ChatToolCall(id, c.Tool, string(args)),
		llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(100, 10)).Body)
}

// script sets the calls the model makes.
func (m *model) script(calls []call) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls = calls
}

// then adds calls for a later run: they follow those already served.
func (m *model) then(calls []call) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls = append(m.calls, calls...)
}

// port is the endpoint's TCP port: a listener attacks may connect to.
func (m *model) port() string {
	_, port, _ := strings.Cut(strings.TrimPrefix(m.srv.URL, "http://"), ":")
	return port
}

// seen is every request body, in order.
func (m *model) seen() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.requests...)
}

// served reports how many scripted calls the model got to make.
func (m *model) served() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.next
}

// url is the base_url for config.yaml.
func (m *model) url() string { return m.srv.URL + "/v1" }
