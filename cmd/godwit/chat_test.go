package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/peertest"
	"github.com/godwit/godwit/llm/llmtest"
	"github.com/godwit/godwit/store/storetest"
)

// tmuxSession is a private tmux server (its own socket, so a developer's
// tmux is never touched) running one program in a pane of fixed size.
type tmuxSession struct {
	t    *testing.T
	bin  string
	sock string
	env  []string
}

func (s *tmuxSession) run(args ...string) string {
	s.t.Helper()
	cmd := exec.Command(s.bin, append([]string{"-S", s.sock}, args...)...)
	cmd.Env = s.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// screen is what the pane shows now.
func (s *tmuxSession) screen() string { return s.run("capture-pane", "-p", "-t", "chat") }

// waitFor polls the screen until it contains want; the deadline only
// guards against a hang.
func (s *tmuxSession) waitFor(want string) string {
	s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		sc := s.screen()
		if strings.Contains(sc, want) {
			return sc
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the screen never showed %q; it shows:\n%s", want, sc)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestChatInTmux runs the real binary in a terminal: a prompt, a write
// approved with y, the answer on the screen, the file on disk, and
// Ctrl-C twice to leave.
func TestChatInTmux(t *testing.T) {
	t.Parallel()
	bin, err := exec.LookPath("tmux")
	if err != nil {
		peertest.Missing(t, "tmux is not installed (Debian: apt-get install tmux); this test drives the chat in a real terminal")
	}
	// A chat command that is gone is a failure, never a skip.
	if r := godwit(t, t.TempDir(), t.TempDir(), nil, "chat", "--help"); r.code != 0 {
		t.Fatalf("godwit chat --help exited %d: the binary has no chat command (it is registered in internal/cli/root.go): %s", r.code, r.stderr)
	}
	srv := llmtest.NewTestServer(t,
		llmtest.ChatReply(llmtest.ChatToolCall("call_1", "file_write", `{"path":"notes.md","content":"milk\n"}`), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(900, 12)),
		llmtest.ChatTextReply("I wrote notes.md for you.", 950, 6),
		// The end-of-turn check asks why nothing verified the write.
		llmtest.ChatTextReply("A note file has nothing to test.", 990, 8),
	)
	home, ws := setup(t, srv.URL())
	s := &tmuxSession{t: t, bin: bin, sock: filepath.Join(t.TempDir(), "tmux.sock"),
		env: append(baseEnv(), "GODWIT_HOME="+home, "TERM=xterm-256color")}
	// The shell around the chat keeps the pane open after it exits, so the
	// test can read its exit status and last words.
	script := binary + " chat --allow-write --model local/m; echo chat-exit=$?; sleep 60"
	s.run("new-session", "-d", "-s", "chat", "-x", "100", "-y", "30", "-c", ws, "sh", "-c", script)
	t.Cleanup(func() { _ = exec.Command(bin, "-S", s.sock, "kill-server").Run() })

	s.waitFor(":help")
	s.run("send-keys", "-t", "chat", "-l", "please write notes.md")
	s.run("send-keys", "-t", "chat", "Enter")
	sc := s.waitFor("Allow? y yes")
	if !strings.Contains(sc, "› please write notes.md") || !strings.Contains(sc, "file_write wants to") {
		t.Errorf("the prompt or the question is missing:\n%s", sc)
	}
	s.run("send-keys", "-t", "chat", "y")
	sc = s.waitFor("─ done")
	for _, want := range []string{"✓ you allowed file_write", "✓ file_write", "I wrote notes.md for you.", "nothing to test", "local/m"} {
		if !strings.Contains(sc, want) {
			t.Errorf("the screen lacks %q:\n%s", want, sc)
		}
	}
	if b, err := os.ReadFile(filepath.Join(ws, "notes.md")); err != nil || string(b) != "milk\n" {
		t.Fatalf("notes.md = %q, %v", b, err)
	}

	s.run("send-keys", "-t", "chat", "C-c")
	s.waitFor("press Ctrl-C again to leave")
	s.run("send-keys", "-t", "chat", "C-c")
	sc = s.waitFor("chat-exit=")
	if !strings.Contains(sc, "chat-exit=0") || !strings.Contains(sc, "godwit chat --session ") {
		t.Errorf("the chat did not end cleanly:\n%s", sc)
	}
	if strings.Contains(sc, "level=") {
		t.Errorf("log lines reached the terminal:\n%s", sc)
	}

	st := storetest.OpenAt(t, filepath.Join(home, "godwit.db"))
	last, err := st.LastSession(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	calls, err := st.ToolCalls(context.Background(), last.ID)
	if err != nil || len(calls) != 1 || calls[0].Approval != "user" {
		t.Errorf("recorded tool calls %+v, %v; want one approved by the user", calls, err)
	}
	llmtest.CheckChat(t, srv.Requests())
}
