package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/peertest"
	"github.com/godwit/godwit/internal/store/storetest"
	"github.com/godwit/godwit/llm/llmtest"
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

// stopOnCleanup ends the tmux server when the test ends, and waits for
// the programs it ran (the chat, over the GODWIT_HOME of s.env) to exit
// before the test's temporary folders are removed.
func (s *tmuxSession) stopOnCleanup() {
	s.t.Cleanup(func() {
		_ = exec.Command(s.bin, "-S", s.sock, "kill-server").Run()
		for _, kv := range s.env {
			if home, ok := strings.CutPrefix(kv, "GODWIT_HOME="); ok {
				waitHomeIdle(s.t, home)
			}
		}
	})
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
		// A markdown-only change needs no end-of-turn check.
		llmtest.ChatTextReply("I wrote notes.md for you.", 950, 6),
	)
	home, ws := setup(t, srv.URL())
	s := &tmuxSession{t: t, bin: bin, sock: filepath.Join(t.TempDir(), "tmux.sock"),
		env: append(baseEnv(), "GODWIT_HOME="+home, "TERM=xterm-256color")}
	// The shell around the chat keeps the pane open after it exits, so the
	// test can read its exit status and last words.
	script := binary + " chat --allow-write --model local/m; echo chat-exit=$?; sleep 60"
	s.run("new-session", "-d", "-s", "chat", "-x", "100", "-y", "30", "-c", ws, "sh", "-c", script)
	s.stopOnCleanup()

	s.waitFor("/help")
	s.run("send-keys", "-t", "chat", "-l", "please write notes.md")
	s.run("send-keys", "-t", "chat", "Enter")
	sc := s.waitFor("Allow? y yes")
	if !strings.Contains(sc, "› please write notes.md") || !strings.Contains(sc, "file_write wants to") {
		t.Errorf("the prompt or the question is missing:\n%s", sc)
	}
	s.answer("y")
	sc = s.waitFor("─ done")
	for _, want := range []string{"✓ you allowed file_write", "✓ file_write", "I wrote notes.md for you.", "local/m"} {
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

// newTmux starts a private tmux server for the test, or skips it when
// tmux or the chat command is missing.
func newTmux(t *testing.T, home string) *tmuxSession {
	t.Helper()
	bin, err := exec.LookPath("tmux")
	if err != nil {
		peertest.Missing(t, "tmux is not installed (Debian: apt-get install tmux); this test drives the chat in a real terminal")
	}
	s := &tmuxSession{t: t, bin: bin, sock: filepath.Join(t.TempDir(), "tmux.sock"),
		env: append(baseEnv(), "GODWIT_HOME="+home, "TERM=xterm-256color")}
	s.stopOnCleanup()
	return s
}

// chat starts `godwit chat args` in the pane "chat" of a new tmux session
// in ws; the shell around it keeps the pane open and prints the exit
// status.
func (s *tmuxSession) chat(ws string, args ...string) {
	s.run("new-session", "-d", "-s", "chat", "-x", "110", "-y", "60", "-c", ws, "sh", "-c", chatScript(args))
}

// rechat replaces what the pane runs with a new chat (a new process), the
// tmux server staying up.
func (s *tmuxSession) rechat(ws string, args ...string) {
	s.run("respawn-pane", "-k", "-t", "chat", "-c", ws, "sh", "-c", chatScript(args))
}

func chatScript(args []string) string {
	return binary + " chat " + strings.Join(args, " ") + "; echo chat-exit=$?; sleep 60"
}

// waitGone polls the screen until it no longer contains text, and
// returns the last screen and whether it went within a bound that only
// stops a wait for a screen that never changes.
func (s *tmuxSession) waitGone(text string) (string, bool) {
	s.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		sc := s.screen()
		if !strings.Contains(sc, text) {
			return sc, true
		}
		if time.Now().After(deadline) {
			return sc, false
		}
	}
}

func (s *tmuxSession) typeLine(text string) {
	s.run("send-keys", "-t", "chat", "-l", text)
	s.run("send-keys", "-t", "chat", "Enter")
}

// TestChatDailyUse drives the real binary in tmux through the habits users
// bring from Claude Code: slash commands (a mistyped one is not sent), a
// path at the start of a prompt, the banner, the mode shown and switched
// from inside the chat, the plan as a checklist, Up recalling with the
// cursor at the end, a cancelled turn that does not keep saying it is
// cancelling, and a resumed chat that shows thinking and answered
// questions as the live one did.
func TestChatDailyUse(t *testing.T) {
	planArgs := `{"steps":[{"text":"read /etc/hosts","status":"done"},{"text":"write notes.md","status":"done"}]}`
	// Long enough (a minute) that Ctrl-C lands mid-stream however slow
	// the machine; the server stops writing once the turn is cancelled.
	slow := llmtest.Reply{Delay: 250 * time.Millisecond}
	for i := 0; i < 240; i++ {
		slow.Chunks = append(slow.Chunks, llmtest.ChatText("slowly "))
	}
	srv := llmtest.NewTestServer(t,
		// Turn 1, read-only: a plan, a write the mode refuses (asked on
		// the spot, refused), an answer.
		llmtest.ChatReply(llmtest.ChatReasoning("The user wants notes about the hosts file."), llmtest.ChatToolCall("call_p", "plan", planArgs), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(900, 12)),
		llmtest.ChatReply(llmtest.ChatToolCall("call_w1", "file_write", `{"path":"notes.md","content":"hosts\n"}`), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(950, 12)),
		llmtest.ChatTextReply("This session is read-only, so notes.md was not written.", 990, 8),
		// Turn 2, ask: the write is asked about and allowed, and so is a
		// command that writes, which the sandbox of ask mode lets write.
		llmtest.ChatReply(llmtest.ChatToolCall("call_w2", "file_write", `{"path":"notes.md","content":"hosts\n"}`), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(1000, 12)),
		llmtest.ChatReply(llmtest.ChatToolCall("call_s", "shell_exec", `{"command":"echo sandboxed > shell.txt"}`), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(1020, 12)),
		llmtest.ChatTextReply("I wrote notes.md and shell.txt.", 1050, 6),
		// Turn 3: cancelled while it streams.
		slow,
	)
	home, ws := setup(t, srv.URL())
	if err := os.WriteFile(filepath.Join(ws, ".mcp.json"), []byte(`{"mcpServers":{"repo-tools":{"command":"false"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newTmux(t, home)
	s.chat(ws, "--model", "local/m")

	sc := s.waitFor("new session")
	for _, want := range []string{"godwit ", "local/m", "mode read-only", "/help lists the commands", " read-only · ctx",
		"⚠ .mcp.json lists MCP server not started: repo-tools"} {
		if !strings.Contains(sc, want) {
			t.Errorf("the opening screen lacks %q:\n%s", want, sc)
		}
	}

	s.typeLine("/hlep")
	sc = s.waitFor("did you mean /help?")
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("a mistyped command reached the model (%d requests):\n%s", n, sc)
	}

	s.typeLine("/etc/hosts explain it")
	sc = s.waitFor("Read-only mode: y allow once")
	if !strings.Contains(sc, "file_write wants to") || !strings.Contains(sc, "read-only mode: this call writes notes.md") {
		t.Errorf("the offer does not name the call:\n%s", sc)
	}
	s.answer("n")
	sc = s.waitFor("read-only, so notes.md")
	for _, want := range []string{"› /etc/hosts explain it", "☰ plan · 2 of 2 done", "☒ read /etc/hosts", "▸ ✻ thinking", "⊘ you refused file_write", "DENIED"} {
		if !strings.Contains(sc, want) {
			t.Errorf("turn 1 lacks %q:\n%s", want, sc)
		}
	}
	if strings.Contains(sc, `"steps"`) {
		t.Errorf("the plan shows as JSON:\n%s", sc)
	}
	if reqs := srv.Requests(); len(reqs) == 0 || !strings.Contains(string(reqs[0].Body), `/etc/hosts explain it`) {
		t.Fatal("the prompt that starts with a path was not sent as written")
	}
	if reqs := srv.Requests(); len(reqs) < 3 || !strings.Contains(string(reqs[2].Body), "the user was asked and said no") || strings.Contains(string(reqs[2].Body), "restart") {
		t.Error("the model was not told of the refusal in the chat's terms")
	}

	s.typeLine("/mode ask")
	sc = s.waitFor("read-only → ask")
	if !strings.Contains(sc, " ask · ctx") {
		t.Errorf("the status line does not show the new mode:\n%s", sc)
	}

	// Up twice: "/mode ask", then the first prompt, the cursor at its
	// end, so what is typed next goes after it.
	s.run("send-keys", "-t", "chat", "Up")
	s.run("send-keys", "-t", "chat", "Up")
	s.run("send-keys", "-t", "chat", "-l", " again")
	s.waitFor("› /etc/hosts explain it again")
	s.run("send-keys", "-t", "chat", "Enter")
	s.waitFor("Allow? y yes")
	s.answer("y")
	s.waitFor("shell_exec wants to")
	s.answer("y")
	sc = s.waitFor("notes.md and shell.txt.")
	if b, err := os.ReadFile(filepath.Join(ws, "notes.md")); err != nil || string(b) != "hosts\n" {
		t.Fatalf("notes.md = %q, %v\n%s", b, err, sc)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "shell.txt")); err != nil || string(b) != "sandboxed\n" {
		t.Fatalf("the command could not write in ask mode (shell.txt = %q, %v): the sandbox did not follow the mode\n%s", b, err, sc)
	}

	s.typeLine("tell me slowly")
	s.waitFor("slowly slowly")
	s.run("send-keys", "-t", "chat", "C-c")
	s.waitFor("cancelled")
	// The frame after the turn ended drops "cancelling"; a screen that
	// keeps it for seconds keeps it for good.
	if sc, ok := s.waitGone("cancelling"); !ok {
		t.Errorf("the turn has ended, the screen still says it is cancelling:\n%s", sc)
	}

	s.run("send-keys", "-t", "chat", "C-c")
	s.waitFor("press Ctrl-C again to leave")
	s.run("send-keys", "-t", "chat", "C-c")
	sc = s.waitFor("chat-exit=")
	m := regexp.MustCompile(`godwit chat --session (\S+)`).FindStringSubmatch(sc)
	if m == nil || !strings.Contains(sc, "chat-exit=0") {
		t.Fatalf("the chat did not end cleanly:\n%s", sc)
	}
	// A new process resumes the session: the transcript shows what the
	// live chat showed.
	s.rechat(ws, "--model", "local/m", "--session", m[1])
	sc = s.waitFor("─ cancelled") // the history is drawn once it is read
	for _, want := range []string{"session " + m[1], "▸ ✻ thinking · 8 words", "☰ plan · 2 of 2 done", "✓ you allowed file_write", "notes.md and shell.txt."} {
		if !strings.Contains(sc, want) {
			t.Errorf("the resumed chat lacks %q:\n%s", want, sc)
		}
	}
}

// answer presses key for the question on the screen once the chat shows
// the keys that answer it (it does once the terminal has drawn the
// question: tui's drawnGuard) and the question has stood long enough to
// be read: a y counts half a second after (tui.answerDelay).
func (s *tmuxSession) answer(key string) {
	s.waitFor("waiting for your answer above")
	time.Sleep(700 * time.Millisecond)
	s.run("send-keys", "-t", "chat", key)
}

// TestChatReadOnlyOffer: in a read-only chat, a write and a command the
// mode refuses are asked about on the spot, each named: y allows the
// write once (the chat stays read-only), s switches to ask mode and lets
// the command write (in ask mode's sandbox), and the model is told what
// happened, never to restart godwit.
func TestChatReadOnlyOffer(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewTestServer(t,
		llmtest.ChatReply(llmtest.ChatToolCall("call_w", "file_write", `{"path":"notes.md","content":"once\n"}`), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(900, 12)),
		llmtest.ChatReply(llmtest.ChatToolCall("call_s", "shell_exec", `{"command":"echo switched > shell.txt"}`), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(950, 12)),
		llmtest.ChatReply(llmtest.ChatToolCall("call_w2", "file_write", `{"path":"more.md","content":"no\n"}`), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(990, 12)),
		llmtest.ChatTextReply("Wrote notes.md and shell.txt; more.md refused.", 1000, 8),
	)
	home, ws := setup(t, srv.URL())
	s := newTmux(t, home)
	s.chat(ws, "--model", "local/m")
	s.waitFor("new session")
	s.typeLine("write the notes")
	sc := s.waitFor("Read-only mode: y allow once")
	if !strings.Contains(sc, "file_write wants to create notes.md") {
		t.Errorf("the offer does not name the write:\n%s", sc)
	}
	s.answer("y")
	sc = s.waitFor("shell_exec wants to run: echo switched > shell.txt")
	if !strings.Contains(sc, "✓ you allowed file_write") || !strings.Contains(sc, " read-only · ctx") {
		t.Errorf("the write was not allowed once, or the mode changed:\n%s", sc)
	}
	s.answer("s")
	s.waitFor("file_write wants to create more.md")
	sc = s.waitFor("waiting for your answer above")
	if !strings.Contains(sc, "read-only → ask") || !strings.Contains(sc, " ask · ctx") || !strings.Contains(sc, "Allow? y yes") {
		t.Errorf("s did not switch to ask mode, or the next write is not asked as ask mode asks:\n%s", sc)
	}
	s.answer("n")
	s.waitFor("more.md refused")
	for f, want := range map[string]string{"notes.md": "once\n", "shell.txt": "switched\n"} {
		if b, err := os.ReadFile(filepath.Join(ws, f)); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q (a command allowed from read-only mode writes in ask mode's sandbox)", f, b, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "more.md")); err == nil {
		t.Error("the refused write happened")
	}
	for i, r := range srv.Requests() {
		if strings.Contains(string(r.Body), "restart godwit") {
			t.Errorf("request %d tells the model to restart godwit", i)
		}
	}
}

// TestChatPeerHabits drives the real binary through the habits users
// bring from Claude Code and Codex: / completes commands, /model alone
// lists the models to pick, !CMD runs a command and its output goes with
// the next message, @ completes a file name and attaches the file, a
// running command shows its newest lines, a message sent during a turn
// is queued, Esc cancels and a second Esc clears, /export writes the
// transcript, and leaving prints the conversation to the terminal's
// screen, where -c then resumes it saying on which model and mode.
func TestChatPeerHabits(t *testing.T) {
	t.Parallel()
	brain := newDayBrain(t)
	home, ws := setup(t, brain.URL())
	cfg := "providers:\n  local:\n    type: openai-chat\n    base_url: " + brain.URL() + "/v1\n    no_key: true\n    models:\n      - id: m\n        context_window: 32768\n      - id: big\n        context_window: 65536\n"
	writeFiles(t, home, map[string]string{"config.yaml": cfg})
	writeFiles(t, ws, map[string]string{
		"calc.go": "package calc\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n",
		"slow.sh": "echo live-1\necho live-2\nwhile [ ! -e gate ]; do sleep 0.1; done\necho live-3\n",
	})
	s := newTmux(t, home)
	s.chat(ws, "--allow-write", "--model", "local/m")
	s.waitFor("new session")

	s.run("send-keys", "-t", "chat", "-l", "/mo")
	sc := s.waitFor("/mode ")
	if !strings.Contains(sc, "/model [NAME]") && !strings.Contains(sc, "/model  ") {
		t.Errorf("/mo does not offer /model:\n%s", sc)
	}
	s.run("send-keys", "-t", "chat", "Tab")
	s.waitFor("› /model")
	s.run("send-keys", "-t", "chat", "Enter")
	sc = s.waitFor("Enter runs")
	if !strings.Contains(sc, "*  local/m") || !strings.Contains(sc, "local/big") {
		t.Errorf("/model does not list the models, the current one marked:\n%s", sc)
	}
	s.run("send-keys", "-t", "chat", "Escape")
	if sc, ok := s.waitGone("Enter runs"); !ok {
		t.Fatalf("Esc did not close the list:\n%s", sc)
	}

	s.typeLine("!echo from-bang")
	sc = s.waitFor("the model reads this with your next message")
	if !strings.Contains(sc, "shell_exec: run: echo from-bang") || len(brain.requests()) != 0 {
		t.Errorf("!CMD did not run on its own (%d requests):\n%s", len(brain.requests()), sc)
	}

	s.run("send-keys", "-t", "chat", "-l", "explain @ca")
	s.run("send-keys", "-t", "chat", "Tab")
	s.waitFor("› explain @calc.go")
	s.typeLine("[t01]")
	sc = s.waitFor("answer [t01]")
	if !strings.Contains(sc, "⊕ attached calc.go") {
		t.Errorf("the transcript does not say what was attached:\n%s", sc)
	}
	first := string(brain.requests()[0].body)
	for _, want := range []string{"[the user attached calc.go]", "func Add(a, b int) int", "the user ran `echo from-bang` in the workspace"} {
		if !strings.Contains(first, want) {
			t.Errorf("the message lacks %q", want)
		}
	}

	s.typeLine("run sh slow.sh; [t02]")
	s.answer("y")
	sc = s.waitFor("│ live-2")
	if !strings.Contains(sc, "shell_exec: run: sh slow.sh · running") {
		t.Errorf("the running command's lines are not under its line:\n%s", sc)
	}
	s.typeLine("and then answer [t03]")
	s.waitFor("⧗ queued: and then answer [t03] · sent when the turn ends")
	writeFiles(t, ws, map[string]string{"gate": ""})
	s.waitFor("answer [t02]")
	s.waitFor("answer [t03]")
	if sc, ok := s.waitGone("⧗ queued"); !ok {
		t.Errorf("the queue still shows:\n%s", sc)
	}

	s.typeLine("tell me slowly [t04]")
	s.waitFor("slowly slowly")
	s.run("send-keys", "-t", "chat", "Escape")
	s.waitFor("─ cancelled")
	s.run("send-keys", "-t", "chat", "-l", "a draft")
	s.run("send-keys", "-t", "chat", "Escape")
	s.waitFor("Esc again clears the input")
	s.run("send-keys", "-t", "chat", "Escape")
	if sc, ok := s.waitGone("› a draft"); !ok {
		t.Errorf("a second Esc did not clear the input:\n%s", sc)
	}

	s.typeLine("/export chat.txt")
	s.waitFor("wrote the transcript")
	if b, err := os.ReadFile(filepath.Join(ws, "chat.txt")); err != nil || !strings.Contains(string(b), "answer [t01]") {
		t.Errorf("/export wrote %q, %v", b, err)
	}

	s.run("send-keys", "-t", "chat", "C-c")
	s.run("send-keys", "-t", "chat", "C-c")
	s.waitFor("chat-exit=0")
	all := s.run("capture-pane", "-p", "-S", "-", "-t", "chat")
	for _, want := range []string{"› explain @calc.go [t01]", "⊕ attached calc.go", "answer [t01]", "✓ shell_exec: run: sh slow.sh", "✓ you allowed shell_exec", "answer [t03]", "─ cancelled"} {
		if !strings.Contains(all, want) {
			t.Errorf("the terminal was left without %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "live-1") {
		t.Errorf("the printed transcript holds a command's output, not its line:\n%s", all)
	}

	s.rechat(ws, "-c")
	sc = s.waitFor("↺ resumed session")
	if !strings.Contains(sc, "on local/m, mode ask") {
		t.Errorf("-c does not say the model and mode it resumes:\n%s", sc)
	}
}
