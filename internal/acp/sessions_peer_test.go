package acp_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godwit/godwit/llm/llmtest"
)

// meetingModel is a scripted model (OpenAI chat) for sessions named by a
// key in their prompt ("[alpha] ..."). A session's first request is
// answered only once every key's first request has arrived, so the
// turns must be running at once; it answers with a read of KEY.txt, then
// with "KEY done: " and what the read returned.
type meetingModel struct {
	t    *testing.T
	keys []string

	mu      sync.Mutex
	arrived map[string]bool
	all     chan struct{} // closed once every key's first request came
	met     bool          // every first request waited for the others
}

func newMeetingModel(t *testing.T, keys ...string) (*meetingModel, string) {
	m := &meetingModel{t: t, keys: keys, arrived: map[string]bool{}, all: make(chan struct{}), met: true}
	srv := httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(srv.Close)
	return m, srv.URL
}

func (m *meetingModel) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(body, &req)
	key, result := "", ""
	for _, msg := range req.Messages {
		switch msg.Role {
		case "user":
			for _, k := range m.keys {
				if strings.Contains(string(msg.Content), "["+k+"]") {
					key, result = k, ""
				}
			}
		case "tool":
			var text string
			if json.Unmarshal(msg.Content, &text) != nil {
				text = string(msg.Content)
			}
			result = text
		}
	}
	var reply llmtest.Reply
	switch {
	case key == "":
		reply = llmtest.ChatTextReply("no session key in the prompt", 100, 2)
	case result == "":
		m.meet(key)
		reply = llmtest.ChatReply(llmtest.ChatText("Reading "+key+".txt. "),
			llmtest.ChatToolCall("call_"+key, "file_read", fmt.Sprintf(`{"path":%q}`, key+".txt")),
			llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(100, 10))
	default:
		reply = llmtest.ChatTextReply(key+" done: "+strings.TrimSpace(firstLine(result)), 120, 5)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	_, _ = io.WriteString(w, reply.Body)
}

// meet records key's first request and waits for every other key's.
func (m *meetingModel) meet(key string) {
	m.mu.Lock()
	if !m.arrived[key] {
		m.arrived[key] = true
		if len(m.arrived) == len(m.keys) {
			close(m.all)
		}
	}
	m.mu.Unlock()
	select {
	case <-m.all:
	case <-time.After(30 * time.Second): // a deadlock guard, not a timing assertion
		m.mu.Lock()
		m.met = false
		m.mu.Unlock()
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// TestOfficialClientTwoSessionsAtOnce: an editor opens two sessions and
// prompts both before reading either's answer. Both turns run at once
// (the model answers neither until it has both), and each session's
// updates come under its own session id: its own text and tool call,
// none of the other's.
func TestOfficialClientTwoSessionsAtOnce(t *testing.T) {
	t.Parallel() // each peer test has its own home, workspace and model
	pt := peerTools(t)
	keys := []string{"alpha", "beta"}
	m, url := newMeetingModel(t, keys...)
	home, ws := t.TempDir(), t.TempDir()
	for _, k := range keys {
		if err := os.WriteFile(filepath.Join(ws, k+".txt"), []byte("the "+k+" file\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeConfig(t, home, url)
	got := pt.run(t, home, ws, peerScenario{Parallel: []string{"[alpha] read alpha.txt", "[beta] read beta.txt"}})

	m.mu.Lock()
	met := m.met
	m.mu.Unlock()
	if !met {
		t.Errorf("a session's first request waited 30 s for the other's: the turns did not run at once\ngodwit stderr:\n%s", got.Stderr)
	}
	if len(got.Parallel) != 2 || got.Parallel[0].SessionID == got.Parallel[1].SessionID {
		t.Fatalf("sessions %+v\ngodwit stderr:\n%s", got.Parallel, got.Stderr)
	}
	owner := map[string]string{} // session id -> key
	for i, s := range got.Parallel {
		key, other := keys[i], keys[1-i]
		owner[s.SessionID] = key
		if s.StopReason != "end_turn" {
			t.Errorf("%s: stop reason %q", key, s.StopReason)
		}
		seq := updateKinds(s.Updates)
		if !strings.Contains(seq, "tool_call_update:call_"+key+":completed") || strings.Contains(seq, "call_"+other) {
			t.Errorf("%s's updates:\n%s", key, seq)
		}
		text := messageText(s.Updates, "agent_message_chunk")
		if !strings.Contains(text, "Reading "+key+".txt.") || !strings.Contains(text, key+" done: ") || strings.Contains(text, other) {
			t.Errorf("%s's message: %q", key, text)
		}
	}
	// Every update as godwit sent it: under the id of the session whose
	// turn it belongs to.
	for _, n := range got.Tagged {
		key, ok := owner[n.SessionID]
		if !ok {
			t.Errorf("an update under session %q, which the client did not open: %+v", n.SessionID, n.Update)
			continue
		}
		for _, k := range keys {
			if k != key && (strings.Contains(n.Update.ToolCallID, k) || strings.Contains(n.Update.Content.Text, k)) {
				t.Errorf("session %s (%s) got %s's update %+v", n.SessionID, key, k, n.Update)
			}
		}
	}
}
