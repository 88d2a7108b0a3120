package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/store/storetest"
	"github.com/godwit/godwit/llm/llmtest"
)

// The chat attacked by its model: a prompt-injected model (or a file or
// command output it reads) sends terminal control sequences and draws
// fake prompts, and the test reads what reached the terminal (the bytes
// godwit wrote, through tmux's pipe-pane), what tmux did with them (the
// pane's title, its paste buffers), and what the screen shows.

// esc is the payload every attack sends: each sequence a terminal would
// obey, with a marker to find it by.
const esc = "" +
	"\x1b]0;PWNED-TITLE\x07" + // window title
	"\x1b]52;c;UFdORUQtQ0xJUA==\x07" + // clipboard write (OSC 52)
	"\x1bPtmux;\x1b\x1b]52;c;UFdORUQtREND\x07\x1b\\" + // DCS: tmux passthrough
	"\x1b_PWNED-APC\x1b\\" + // APC
	"\x1b]8;;https://evil.example/PWNED-LINK\x1b\\docs\x1b]8;;\x1b\\" + // a hyperlink
	"\u009b2J" + // C1 CSI, UTF-8 encoded
	"\x1b[?2004l" + // bracketed paste off
	"\x1b[8mPWNED-HIDDEN\x1b[28m" // concealed text

// startPiped starts the chat in tmux with everything it writes to the
// terminal copied to a file, from its first byte on.
func (s *tmuxSession) startPiped(ws, raw string, args ...string) {
	s.t.Helper()
	gate := filepath.Join(s.t.TempDir(), "go")
	script := "while [ ! -e " + gate + " ]; do sleep 0.05; done; " + chatScript(args)
	s.run("new-session", "-d", "-s", "chat", "-x", "110", "-y", "60", "-c", ws, "sh", "-c", script)
	// A clipboard write tmux accepted would become a paste buffer.
	s.run("set-option", "-g", "set-clipboard", "on")
	s.run("pipe-pane", "-t", "chat", "-o", "cat >> "+raw)
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		s.t.Fatal(err)
	}
}

func toolArgs(t *testing.T, v map[string]any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkRaw fails when a sequence the model sent reached the terminal.
func checkRaw(t *testing.T, raw string) {
	t.Helper()
	b, err := os.ReadFile(raw)
	if err != nil {
		t.Fatal(err)
	}
	out := string(b)
	if !strings.Contains(out, "godwit") {
		t.Fatalf("the pipe caught nothing of the chat (%d bytes)", len(b))
	}
	for _, bad := range []struct{ seq, what string }{
		{"\x1b]0;PWNED", "a window title"},
		{"\x1b]2;PWNED", "a window title"},
		{"\x1b]52;", "a clipboard write (OSC 52)"},
		{"\x1bP", "a DCS string (tmux passthrough)"},
		{"\x1b_", "an APC string"},
		{"\x1b]8;", "a hyperlink (OSC 8)"},
		{"evil.example", "the hyperlink's hidden target"},
		{"\u009b", "a C1 CSI"},
		{"\x9b", "an 8-bit CSI"},
		{"\x1b[8m", "concealed text"},
		{"\x1b[?2004l", "bracketed paste turned off"},
	} {
		if i := strings.Index(out, bad.seq); i >= 0 {
			t.Errorf("%s from the model reached the terminal: %q", bad.what, out[max(i-40, 0):min(i+60, len(out))])
		}
	}
}

// TestChatEscapeInjection: terminal sequences in the model's streamed
// text, its reasoning, a file it reads (with bytes that are not UTF-8), a
// tool name and a command's output reach the chat; none reaches the
// terminal, tmux's title and paste buffers stay untouched, and the
// screen still shows the transcript.
func TestChatEscapeInjection(t *testing.T) {
	t.Parallel()
	stream := llmtest.Reply{Delay: 1500 * time.Millisecond, Chunks: []string{
		// The unfinished tail of an answer is drawn as it streams.
		llmtest.ChatText("streaming " + esc + " tail"),
		llmtest.ChatText(" and the rest.\n\nSecond "+esc+" paragraph.") + llmtest.ChatFinish("stop") + llmtest.ChatUsage(1200, 9) + llmtest.ChatDone,
	}}
	srv := llmtest.NewTestServer(t,
		llmtest.ChatReply(llmtest.ChatReasoning("thinking "+esc), llmtest.ChatText("Reading "+esc+" it."),
			llmtest.ChatToolCall("call_r", "file_read", `{"path":"evil.txt"}`), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(900, 12)),
		llmtest.ChatReply(llmtest.ChatToolCall("call_x", "nosuch"+esc, `{}`), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(950, 12)),
		llmtest.ChatReply(llmtest.ChatToolCall("call_s", "shell_exec", toolArgs(t, map[string]any{"command": "printf '" + strings.NewReplacer("\\", `\\`, "\x1b", `\033`, "\x07", `\007`).Replace(esc) + "'"})), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(1000, 12)),
		stream,
	)
	home, ws := setup(t, srv.URL())
	if err := os.WriteFile(filepath.Join(ws, "evil.txt"), []byte("file says "+esc+" and \xff\xfe\x9b2J bytes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newTmux(t, home)
	raw := filepath.Join(t.TempDir(), "raw")
	s.startPiped(ws, raw, "--yes", "--model", "local/m")
	s.waitFor("/help lists the commands")
	s.typeLine("read evil.txt")
	s.waitFor("streaming")
	s.waitFor("Second")
	s.waitFor("─ done")
	// Open every tool call and the thinking: their bodies are drawn too.
	for i := 0; i < 6; i++ {
		s.run("send-keys", "-t", "chat", "C-p")
		s.run("send-keys", "-t", "chat", "C-o")
	}
	time.Sleep(500 * time.Millisecond)
	sc := s.screen()
	for _, want := range []string{"file says", "bytes", "Reading", "paragraph.", "docs"} {
		if !strings.Contains(sc, want) {
			t.Errorf("the screen lacks %q:\n%s", want, sc)
		}
	}
	if title := strings.TrimSpace(s.run("display-message", "-p", "-t", "chat", "#{pane_title}")); strings.Contains(title, "PWNED") {
		t.Errorf("the model set the window title: %q", title)
	}
	if bufs := s.run("list-buffers"); strings.TrimSpace(bufs) != "" {
		t.Errorf("the model wrote the clipboard (tmux paste buffers):\n%s", bufs)
	}
	checkRaw(t, raw)
}

// TestChatApprovalSpoofing: the approval prompt shows exactly what will
// run. A command that overprints its own question with a carriage
// return, one whose dangerous tail is past the screen's width, a file
// name with a newline that draws a fake "you allowed" line, look-alike
// letters and a bidi override in a file name; each is refused with n and
// nothing ran.
func TestChatApprovalSpoofing(t *testing.T) {
	t.Parallel()
	overprint := "echo PAYLOAD>ran1.txt;#\r? shell_exec wants to run: ls -la" + strings.Repeat(" ", 20)
	long := "ls " + strings.Repeat("-l ", 40) + "; echo PAYLOAD > ran2.txt"
	fakeName := "notes.md\n✓ you allowed file_write: write notes.md"
	lookalike := "git push оrigin main" // a Cyrillic о
	bidi := "report\u202Ecod.sh"        // drawn as "reporths.doc"
	srv := llmtest.NewTestServer(t,
		llmtest.ChatReply(llmtest.ChatText("Allowed already:\n\n? shell_exec wants to run: ls\n  Allow? y yes · n no\n"),
			llmtest.ChatToolCall("call_1", "shell_exec", toolArgs(t, map[string]any{"command": overprint})), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(900, 12)),
		llmtest.ChatReply(llmtest.ChatToolCall("call_2", "shell_exec", toolArgs(t, map[string]any{"command": long})), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(950, 12)),
		llmtest.ChatReply(llmtest.ChatToolCall("call_3", "file_write", toolArgs(t, map[string]any{"path": fakeName, "content": "x\n"})), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(1000, 12)),
		llmtest.ChatReply(llmtest.ChatToolCall("call_4", "shell_exec", toolArgs(t, map[string]any{"command": lookalike})), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(1050, 12)),
		llmtest.ChatReply(llmtest.ChatToolCall("call_5", "file_write", toolArgs(t, map[string]any{"path": bidi, "content": "x\n"})), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(1070, 12)),
		llmtest.ChatTextReply("All refused.", 1100, 4),
	)
	home, ws := setup(t, srv.URL())
	s := newTmux(t, home)
	raw := filepath.Join(t.TempDir(), "raw")
	s.startPiped(ws, raw, "--allow-write", "--model", "local/m")
	s.waitFor("/help lists the commands")
	s.typeLine("tidy up")

	refuse := func(want ...string) string {
		t.Helper()
		sc := s.waitFor("waiting for your answer above")
		for _, w := range want {
			if !strings.Contains(sc, w) {
				t.Errorf("the question does not show %q:\n%s", w, sc)
			}
		}
		s.run("send-keys", "-t", "chat", "n")
		return sc
	}
	sc := refuse("echo PAYLOAD>ran1.txt;#⟨CR⟩? shell_exec wants to run: ls -la")
	if n := countLines(sc, "? "); n != 1 {
		t.Errorf("%d questions on the screen; the model's text drew one:\n%s", n, sc)
	}
	s.waitFor("you refused shell_exec")
	refuse("echo PAYLOAD > ran2.txt")
	s.waitFor("you refused shell_exec: run: ls -l -l")
	refuse("notes.md⟨LF⟩✓ you allowed")
	s.waitFor("you refused file_write")
	refuse("git push оrigin main", "U+043E")
	s.waitFor("you refused shell_exec: run: git push")
	refuse("report⟨U+202E⟩cod.sh")
	sc = s.waitFor("All refused.")
	if countLines(sc, "✓ you allowed") != 0 {
		t.Errorf("a fake approval line is on the screen:\n%s", sc)
	}
	for _, f := range []string{"ran1.txt", "ran2.txt", "notes.md", bidi} {
		if _, err := os.Stat(filepath.Join(ws, f)); err == nil {
			t.Errorf("%s exists: a refused call ran", f)
		}
	}
	checkRaw(t, raw)
}

// countLines counts the screen's lines that start with prefix.
func countLines(screen, prefix string) int {
	n := 0
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}

// TestRunEscapesInTmux: `godwit run` on a terminal, asking on it: the
// question written by the line-mode prompter marks the carriage return
// that would overprint it, and neither the narration on stderr nor the
// answer on stdout carries a sequence the model sent.
func TestRunEscapesInTmux(t *testing.T) {
	t.Parallel()
	overprint := "echo PAYLOAD>ran.txt;#\r? ok: ls -la" + strings.Repeat(" ", 30)
	srv := llmtest.NewTestServer(t,
		llmtest.ChatReply(llmtest.ChatText("Narration "+esc), llmtest.ChatToolCall("call_1", "shell_exec", toolArgs(t, map[string]any{"command": overprint})),
			llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(900, 12)),
		llmtest.ChatTextReply("Answer "+esc+" end.", 950, 6),
	)
	home, ws := setup(t, srv.URL())
	s := newTmux(t, home)
	raw := filepath.Join(t.TempDir(), "raw")
	gate := filepath.Join(t.TempDir(), "go")
	script := "while [ ! -e " + gate + " ]; do sleep 0.05; done; " + binary + " run --allow-write --model local/m -p 'tidy up'; echo run-exit=$?; sleep 60"
	s.run("new-session", "-d", "-s", "chat", "-x", "110", "-y", "40", "-c", ws, "sh", "-c", script)
	s.run("set-option", "-g", "set-clipboard", "on")
	s.run("pipe-pane", "-t", "chat", "-o", "cat >> "+raw)
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	sc := s.waitFor("Allow? [y]es")
	if !strings.Contains(sc, "echo PAYLOAD>ran.txt;#⟨CR⟩? ok: ls -la") {
		t.Errorf("the question does not show the carriage return:\n%s", sc)
	}
	s.run("send-keys", "-t", "chat", "n", "Enter")
	sc = s.waitFor("run-exit=")
	for _, want := range []string{"Narration", "Answer", "end."} {
		if !strings.Contains(sc, want) {
			t.Errorf("the terminal lacks %q:\n%s", want, sc)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "ran.txt")); err == nil {
		t.Error("the refused command ran")
	}
	if title := s.run("display-message", "-p", "-t", "chat", "#{pane_title}"); strings.Contains(title, "PWNED") {
		t.Errorf("the model set the window title: %q", title)
	}
	if bufs := s.run("list-buffers"); strings.TrimSpace(bufs) != "" {
		t.Errorf("the model wrote the clipboard:\n%s", bufs)
	}
	b, err := os.ReadFile(raw)
	if err != nil {
		t.Fatal(err)
	}
	if i := strings.IndexAny(string(b), "\x1b\u009b"); i >= 0 {
		t.Errorf("an escape reached the terminal: %q", b[max(i-30, 0):min(i+40, len(b))])
	}
}

// TestChatModelCannotAnswer: the model's text holds the keys that would
// switch the mode (Shift-Tab's CSI Z, "/mode auto"), approve ("y"), and
// the queries that make a terminal type an answer (a title set to "y",
// then reported; a DECRQSS); and the person's y's are in flight as the
// question arrives: typed while the chat could not read them (stopped,
// as a loaded machine stalls it), read after the question came. None
// answers it, deterministically: a key answers only when typed after the
// terminal drew the question. The y's wait in the input, the mode stays
// ask, and n refuses.
func TestChatModelCannotAnswer(t *testing.T) {
	t.Parallel()
	keys := "\x1b[Z\x1b[Z/mode auto\ry\r\x1b]2;y\x07\x1b[21t\x1bP$qm\x1b\\\x1b[6n"
	release := make(chan struct{})
	srv := heldServer(t, release,
		llmtest.ChatText("Switching "+keys),
		llmtest.ChatToolCall("call_1", "shell_exec", `{"command":"echo PAYLOAD > ran.txt"}`)+llmtest.ChatFinish("tool_calls")+llmtest.ChatUsage(900, 12)+llmtest.ChatDone,
		llmtest.ChatTextReply("Refused.", 950, 4).Body)
	home, ws := setup(t, srv.URL)
	s := newTmux(t, home)
	raw := filepath.Join(t.TempDir(), "raw")
	s.startPiped(ws, raw, "--allow-write", "--model", "local/m")
	s.waitFor("/help lists the commands")
	s.typeLine("go on")
	s.waitFor("Switching")
	pid := chatPID(t, home)
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	s.run("send-keys", "-t", "chat", "-l", "yyyyyyyyyy")
	close(release) // the tool call, and with it the question, comes now
	<-srv.sent
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	sc := s.waitFor("waiting for your answer above")
	if strings.Contains(sc, "you allowed") || !strings.Contains(sc, "shell_exec wants to run") {
		t.Fatalf("the question was answered by keys typed before it or by the model:\n%s", sc)
	}
	if !strings.Contains(sc, " ask · ctx") {
		t.Errorf("the mode changed:\n%s", sc)
	}
	s.run("send-keys", "-t", "chat", "n")
	sc = s.waitFor("Refused.")
	if !strings.Contains(sc, "you refused shell_exec") || !strings.Contains(sc, " ask · ctx") || !strings.Contains(sc, "› yyyyyyyyyy") {
		t.Errorf("the refusal, the mode or the y's kept in the input are not on the screen:\n%s", sc)
	}
	if _, err := os.Stat(filepath.Join(ws, "ran.txt")); err == nil {
		t.Error("the command ran")
	}
	b, err := os.ReadFile(raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"\x1b[21t", "\x1bP$q", "\x1b]2;y"} {
		if strings.Contains(string(b), q) {
			t.Errorf("the model's terminal query %q reached the terminal", q)
		}
	}
}

// held is a Chat Completions endpoint whose first reply stops after its
// first chunk until release is closed; sent is closed once the rest is
// written. Later requests get the later replies, one each.
type held struct {
	*httptest.Server
	sent chan struct{}
}

func heldServer(t *testing.T, release <-chan struct{}, first, rest string, later ...string) *held {
	t.Helper()
	h := &held{sent: make(chan struct{})}
	var mu sync.Mutex
	n := 0
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		i := n
		n++
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		switch {
		case i == 0:
			_, _ = io.WriteString(w, first)
			w.(http.Flusher).Flush()
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
			_, _ = io.WriteString(w, rest)
			w.(http.Flusher).Flush()
			close(h.sent)
		case i <= len(later):
			_, _ = io.WriteString(w, later[i-1])
		default:
			http.Error(w, "no reply left", http.StatusInternalServerError)
		}
	}))
	t.Cleanup(h.Close)
	return h
}

// chatPID is the godwit process of the chat running over home.
func chatPID(t *testing.T, home string) int {
	t.Helper()
	for _, pid := range homeProcs(home) {
		if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); err == nil && filepath.Base(exe) == filepath.Base(binary) {
			if args, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil && strings.Contains(string(args), "\x00chat\x00") {
				return pid
			}
		}
	}
	t.Fatal("no chat process found")
	return 0
}

// TestChatSurvivesHugeOutput: a command printing two million lines, then
// an answer of deeply nested quotes, a giant table, bytes that are not
// UTF-8 and a 2 MB line streamed in 32 pieces. The chat keeps answering
// keys, leaves cleanly, and the session's record holds the answer whole
// and the output as the shell kept it (its head and tail).
func TestChatSurvivesHugeOutput(t *testing.T) {
	t.Parallel()
	var table strings.Builder
	table.WriteString("|" + strings.Repeat(" h |", 40) + "\n|" + strings.Repeat("---|", 40) + "\n")
	for i := 0; i < 2000; i++ {
		table.WriteString("|" + strings.Repeat(" cell |", 40) + "\n")
	}
	head := strings.Repeat("> ", 20000) + "deep\n\n" + table.String() + "\n" + strings.Repeat("*a **b ", 20000) + "\n\nbad \xff\xfe bytes\n\nLINE-START "
	huge := strings.Repeat("word ", 2<<20/5)
	answer := llmtest.Reply{Chunks: []string{llmtest.ChatText(head)}}
	for i := 0; i < 32; i++ {
		answer.Chunks = append(answer.Chunks, llmtest.ChatText(huge[i*len(huge)/32:(i+1)*len(huge)/32]))
	}
	answer.Chunks = append(answer.Chunks, llmtest.ChatText(" LINE-END")+llmtest.ChatFinish("stop")+llmtest.ChatUsage(1000, 9)+llmtest.ChatDone)
	srv := llmtest.NewTestServer(t,
		llmtest.ChatReply(llmtest.ChatToolCall("call_1", "shell_exec", `{"command":"seq 1 2000000"}`), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(900, 12)),
		answer,
	)
	home, ws := setup(t, srv.URL())
	s := newTmux(t, home)
	s.chat(ws, "--yes", "--model", "local/m")
	s.waitFor("/help lists the commands")
	s.typeLine("count")
	s.waitFor("LINE-END")
	s.waitFor("─ done")
	start := time.Now()
	s.typeLine("/cost")
	s.waitFor("\n  /cost\n") // the reply's head, not the input line
	t.Logf("the chat answered /cost %v after the answer ended", time.Since(start).Round(time.Millisecond))
	// Open the command's output, scroll through it.
	s.run("send-keys", "-t", "chat", "C-p")
	s.run("send-keys", "-t", "chat", "C-p")
	start = time.Now()
	s.run("send-keys", "-t", "chat", "C-o")
	s.waitFor("▾ ✓ shell_exec")
	s.waitFor("│ 1\n")
	t.Logf("the stored output opened in %v", time.Since(start).Round(time.Millisecond))
	for i := 0; i < 5; i++ {
		s.run("send-keys", "-t", "chat", "PgDn")
	}
	s.run("send-keys", "-t", "chat", "Escape")
	// At the end again; a key right after Esc would read as Alt+key.
	if sc, ok := s.waitGone("scrolled"); !ok {
		t.Fatalf("Esc did not end the scroll:\n%s", sc)
	}
	s.run("send-keys", "-t", "chat", "C-c")
	s.waitFor("press Ctrl-C again to leave")
	s.run("send-keys", "-t", "chat", "C-c")
	sc := s.waitFor("chat-exit=")
	if !strings.Contains(sc, "chat-exit=0") {
		t.Fatalf("the chat did not end cleanly:\n%s", sc)
	}

	st := storetest.OpenAt(t, filepath.Join(home, "godwit.db"))
	ctx := context.Background()
	last, err := st.LastSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := st.Messages(ctx, last.ID, -1)
	if err != nil {
		t.Fatal(err)
	}
	var text string
	for _, m := range msgs {
		for _, p := range m.Message.Parts {
			text += p.Text
		}
	}
	if !strings.Contains(text, "LINE-START "+huge[:1000]) || !strings.Contains(text, "LINE-END") || len(text) < len(huge) {
		t.Errorf("the record lost the answer: %d bytes of text", len(text))
	}
	calls, err := st.ToolCalls(ctx, last.ID)
	if err != nil || len(calls) != 1 || !strings.Contains(calls[0].Output, "2000000") {
		t.Errorf("the record lost the command's output: %v, %d calls", err, len(calls))
	}
}

// TestLineChatTypeAhead: the line-mode chat on a terminal whose output is
// piped (`godwit chat | tee log`). A message the person types while the
// turn runs ("yes, and then...") was taken as the answer to the question
// that came next, and the command ran. Now it is kept as the next
// message, the question waits for an answer typed after it, and the
// kept message is sent when the turn ends.
func TestLineChatTypeAhead(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewTestServer(t,
		llmtest.Reply{Delay: 1500 * time.Millisecond, Chunks: []string{
			llmtest.ChatText("Looking."),
			llmtest.ChatToolCall("call_1", "shell_exec", `{"command":"echo PAYLOAD > ran.txt"}`) + llmtest.ChatFinish("tool_calls") + llmtest.ChatUsage(900, 12) + llmtest.ChatDone,
		}},
		llmtest.ChatTextReply("Refused.", 950, 4),
		llmtest.ChatTextReply("Said KEPT.", 990, 4),
	)
	home, ws := setup(t, srv.URL())
	s := newTmux(t, home)
	script := binary + " chat --allow-write --model local/m | cat; echo chat-exit=$?; sleep 60"
	s.run("new-session", "-d", "-s", "chat", "-x", "200", "-y", "40", "-c", ws, "sh", "-c", script)
	s.waitFor("new session; /help")
	s.typeLine("go on")
	ahead := "yes, and then say KEPT-42"
	s.typeLine(ahead)
	sc := s.waitFor("kept as your next message")
	if _, err := os.Stat(filepath.Join(ws, "ran.txt")); err == nil {
		t.Fatalf("the message typed during the turn approved the command:\n%s", sc)
	}
	s.run("send-keys", "-t", "chat", "n") // a no counts at once
	s.run("send-keys", "-t", "chat", "Enter")
	s.waitFor("Said KEPT.")
	if _, err := os.Stat(filepath.Join(ws, "ran.txt")); err == nil {
		t.Error("the refused command ran")
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || !strings.Contains(string(reqs[2].Body), `"content":"`+ahead+`"`) {
		t.Errorf("the kept message was not sent as the next turn (%d requests)", len(reqs))
	}
}
