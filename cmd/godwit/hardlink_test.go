//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/sandbox"
	"github.com/godwit/godwit/llm/llmtest"
)

// TestHardLinkDoesNotReachOutside: the workspace holds a hard link to a
// file outside it (made before godwit ran; a command cannot make one).
// Under --yes a command appends through it: the outside file must not
// change, and the model is told why the link was broken.
func TestHardLinkDoesNotReachOutside(t *testing.T) {
	if _, err := sandbox.Status(); err != nil {
		t.Skipf("no Landlock: %v; commands can write outside anyway", err)
	}
	srv := llmtest.NewTestServer(t,
		llmtest.ChatReply(llmtest.ChatToolCall("c1", "shell_exec", `{"command":"echo pwned >> notes.txt; cat notes.txt"}`), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(10, 1)),
		llmtest.ChatTextReply("done", 10, 1),
	)
	home, ws := setup(t, srv.URL())
	outside := filepath.Join(t.TempDir(), "bashrc")
	if err := os.WriteFile(outside, []byte("safe\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(outside, filepath.Join(ws, "notes.txt")); err != nil {
		t.Skipf("hard links across these folders: %v", err)
	}
	r := godwit(t, home, ws, nil, "run", "--yes", "--model", "local/m", "-p", "append")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(outside); string(b) != "safe\n" {
		t.Errorf("the file outside the workspace changed: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "notes.txt")); string(b) != "safe\npwned\n" {
		t.Errorf("the workspace copy = %q", b)
	}
	res := toolResult(t, srv.Requests()[1].Body, "c1")
	if !strings.Contains(res, "notes.txt had a hard link outside the workspace") {
		t.Errorf("the model is not told: %q", res)
	}
	if !strings.Contains(r.stderr, "notes.txt had a hard link outside the workspace") {
		t.Errorf("the user is not told:\n%s", r.stderr)
	}
}
