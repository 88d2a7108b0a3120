package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/sandbox"
	"github.com/godwit/godwit/llm/llmtest"
)

// TestReadOnlyCommandsRunConfined drives the real binary: a command on
// the read-only list runs unasked in ask and auto mode, and the sandbox,
// not the list, keeps it from writing. git status is such a command, and
// the list is wrong about it: it rewrites .git/index when a file's stat
// data changed. Confined, it cannot; the same git status in a line that
// also writes (so runs in the session's sandbox) does.
func TestReadOnlyCommandsRunConfined(t *testing.T) {
	t.Parallel()
	if _, err := sandbox.Status(); err != nil {
		t.Skip(err)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	cases := []struct {
		name, mode, command string
		indexChanges        bool
	}{
		{"auto, read-only command", "--yes", "git status --short", false},
		{"ask, read-only command", "--allow-write", "git status --short", false},
		{"auto, a line that writes", "--yes", "git status --short && touch stamp", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args, _ := json.Marshal(map[string]string{"command": tc.command})
			srv := llmtest.NewTestServer(t,
				llmtest.ChatReply(llmtest.ChatToolCall("c1", "shell_exec", string(args)), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(10, 1)),
				llmtest.ChatTextReply("done", 10, 1),
			)
			home, ws := setup(t, srv.URL())
			staleIndex(t, ws)
			index := filepath.Join(ws, ".git", "index")
			before, err := os.ReadFile(index)
			if err != nil {
				t.Fatal(err)
			}
			r := godwit(t, home, ws, nil, "run", tc.mode, "--model", "local/m", "-p", "what changed?")
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			body := string(srv.Requests()[1].Body)
			if strings.Contains(body, "DENIED") || !strings.Contains(body, "exit 0") {
				t.Fatalf("the command did not run as a read: %s", body)
			}
			after, err := os.ReadFile(index)
			if err != nil {
				t.Fatal(err)
			}
			if changed := !bytes.Equal(before, after); changed != tc.indexChanges {
				t.Errorf(".git/index changed: %v, want %v", changed, tc.indexChanges)
			}
		})
	}
}

// staleIndex makes a repository whose index git status would refresh.
func staleIndex(t *testing.T, ws string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "a.txt"}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "a"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(ws, "a.txt"), future, future); err != nil {
		t.Fatal(err)
	}
}
