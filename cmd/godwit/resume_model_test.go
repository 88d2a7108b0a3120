package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/godwit/godwit/llm/llmtest"
)

// A session resumed by run on another model than it last ran on (the
// default, not --model) says so: the window, and so the resets, change.
func TestRunSaysWhenAResumedSessionChangesModel(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewTestServer(t, llmtest.ChatTextReply("one", 900, 6), llmtest.ChatTextReply("two", 950, 6))
	home, ws := setup(t, srv.URL())
	r := godwit(t, home, ws, nil, "run", "--json", "--model", "local/big", "-p", "hi")
	var first struct {
		SessionID string `json:"session_id"`
	}
	if r.code != 0 || json.Unmarshal([]byte(strings.SplitN(r.stdout, "\n", 2)[0]), &first) != nil {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	r = godwit(t, home, ws, []string{"GODWIT_MODEL=local/small"}, "run", "--session", first.SessionID, "-p", "go on")
	if r.code != 0 || !strings.Contains(r.stderr, "last ran on local/big") || !strings.Contains(r.stderr, "--model local/big") {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
}
