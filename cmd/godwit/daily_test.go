package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/peertest"
	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/llm/llmtest"
)

// Issue 16: the habits users bring from Claude Code, Codex and crush,
// each checked on the real binary.

// godwitIn runs the binary like godwit, with stdin.
func godwitIn(t *testing.T, home, workdir string, env []string, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = workdir
	cmd.Env = append(append(baseEnv(), "GODWIT_HOME="+home), env...)
	cmd.Stdin = strings.NewReader(stdin) // a pipe, as with echo ... |
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{out.String(), errb.String(), code}
}

// noInternals fails when a message to the user names one of godwit's
// packages or is a raw log record.
func noInternals(t *testing.T, stderr string) {
	t.Helper()
	if m := regexp.MustCompile(`(^|[\s(])(agent|wiring|catalog|config|store|retry|tui|llm): |level=|time=`).FindString(stderr); m != "" {
		t.Errorf("stderr names internals (%q):\n%s", m, stderr)
	}
}

// Item 1: --session last and -c mean this workspace's last session; a
// session of another workspace is refused with the command that
// continues it where it belongs; sessions, inspect and undo agree.
func TestSessionsBelongToTheirWorkspace(t *testing.T) {
	srv := llmtest.NewTestServer(t,
		llmtest.ChatTextReply("first in A", 10, 1),
		llmtest.ChatTextReply("second in A", 10, 1),
		llmtest.ChatTextReply("third in A, from B with -C", 10, 1),
		llmtest.ChatTextReply("first in B", 10, 1),
	)
	home, a := setup(t, srv.URL())
	b := t.TempDir()
	m := []string{"--model", "local/m"}
	run := func(dir string, args ...string) result {
		t.Helper()
		return godwit(t, home, dir, nil, append(append([]string{}, args...), m...)...)
	}
	if r := run(a, "run", "one"); r.code != 0 || r.stdout != "first in A\n" {
		t.Fatalf("first run: %+v", r)
	}
	if r := run(a, "run", "-c", "two"); r.code != 0 || r.stdout != "second in A\n" {
		t.Fatalf("-c in A: %+v", r)
	}
	st, err := store.Open(context.Background(), filepath.Join(home, "godwit.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sessA, err := st.LastSession(context.Background())
	if err != nil {
		t.Fatal(err)
	}

	// In B, -c finds no session of B and names A's.
	r := run(b, "run", "-c", "go on")
	if r.code != 1 || !strings.Contains(r.stderr, "no session in this workspace ("+b+") yet") ||
		!strings.Contains(r.stderr, "godwit -C "+a+" run -c") {
		t.Errorf("-c in B: exit %d\n%s", r.code, r.stderr)
	}
	// An id that names no session: what lists them, and how to start one.
	r = run(b, "run", "--session", "nosuch", "go on")
	if r.code != 1 || !strings.Contains(r.stderr, `no session "nosuch"`) || !strings.Contains(r.stderr, "leave out --session (or -c) to start a new one here") {
		t.Errorf("--session nosuch: exit %d\n%s", r.code, r.stderr)
	}
	// A's session by id, in B: refused, with the command that works.
	r = run(b, "run", "--session", sessA.ID, "go on")
	if r.code != 2 || !strings.Contains(r.stderr, "session "+sessA.ID+" belongs to "+a+", not to this workspace ("+b+")") ||
		!strings.Contains(r.stderr, "godwit -C "+a+" run --session "+sessA.ID) {
		t.Errorf("--session in B: exit %d\n%s", r.code, r.stderr)
	}
	noInternals(t, r.stderr)
	// The command it names works, from B.
	if r := run(b, "-C", a, "run", "--session", sessA.ID, "three"); r.code != 0 || r.stdout != "third in A, from B with -C\n" {
		t.Fatalf("-C A from B: %+v", r)
	}
	turns, _ := st.Turns(context.Background(), sessA.ID)
	if len(turns) != 3 {
		t.Errorf("A's session has %d turns, want 3: a refused run must record none", len(turns))
	}

	// sessions: this workspace's by default, every one with --all.
	if r := godwit(t, home, b, nil, "sessions"); r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "godwit sessions --all` lists 1 of other workspaces") {
		t.Errorf("sessions in B: %+v", r)
	}
	r = godwit(t, home, a, nil, "sessions")
	if lines := strings.Split(strings.TrimSpace(r.stdout), "\n"); len(lines) != 2 || !strings.Contains(lines[0], "WORKSPACE") ||
		!strings.Contains(lines[1], sessA.ID) || !strings.Contains(lines[1], filepath.Base(a)) {
		t.Errorf("sessions in A:\n%s", r.stdout)
	}
	if r := run(b, "run", "hello B"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	r = godwit(t, home, b, nil, "sessions", "--all")
	if n := strings.Count(r.stdout, "\n"); n != 3 || !strings.Contains(r.stdout, sessA.ID) {
		t.Errorf("sessions --all:\n%s", r.stdout)
	}

	// inspect and undo say "last" of their own workspace.
	r = godwit(t, home, a, nil, "inspect", "trace", "last")
	if r.code != 0 || !strings.Contains(r.stdout, "session "+sessA.ID) || !strings.Contains(r.stdout, "\n"+a+"  local/m") {
		t.Errorf("inspect trace last in A: %+v", r)
	}
	r = godwit(t, home, b, nil, "inspect", "trace", "last")
	if r.code != 0 || strings.Contains(r.stdout, sessA.ID) || !strings.Contains(r.stdout, "\n"+b+"  local/m") {
		t.Errorf("inspect trace last in B shows another workspace's session: %+v", r)
	}
	if r := godwit(t, home, a, nil, "undo", "last"); r.code != 0 || !strings.Contains(r.stderr, "session "+sessA.ID+" changed no files") {
		t.Errorf("undo last in A: %+v", r)
	}
}

// Item 2: docs/configuration.md's fallback example with only the main model's key:
// the fallback is skipped with one warning, the main model answers.
func TestFallbackWithoutItsKeyIsSkipped(t *testing.T) {
	srv := llmtest.NewTestServer(t, llmtest.ChatTextReply("answered by the main model", 10, 1))
	home, ws := setup(t, srv.URL())
	appendConfig(t, home, "fallback:\n  local/m: [openai/gpt-5]\nsummary_model: openai/gpt-5-nano\n")
	r := godwit(t, home, ws, nil, "run", "--model", "local/m", "hi")
	if r.code != 0 || r.stdout != "answered by the main model\n" {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if n := strings.Count(r.stderr, "fallback openai/gpt-5 is skipped: OPENAI_API_KEY is not set"); n != 1 {
		t.Errorf("%d warnings about the fallback, want 1:\n%s", n, r.stderr)
	}
	if !strings.Contains(r.stderr, "summary_model openai/gpt-5-nano is skipped: OPENAI_API_KEY is not set") {
		t.Errorf("no warning about the summary model:\n%s", r.stderr)
	}
	noInternals(t, r.stderr)
}

func appendConfig(t *testing.T, home, text string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(home, "config.yaml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// Item 4: a misspelt key is an error naming the file, the line and the
// key meant; every command that reads the config says so.
func TestUnknownConfigKey(t *testing.T) {
	home, ws := setup(t, "http://127.0.0.1:1")
	appendConfig(t, home, "retyr:\n  max_attempts: 2\n")
	want := filepath.Join(home, "config.yaml") + ":6: unknown key retyr: did you mean retry?"
	for _, args := range [][]string{{"run", "--model", "local/m", "hi"}, {"models"}} {
		r := godwit(t, home, ws, nil, args...)
		if r.code != 2 || !strings.Contains(r.stderr, want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", args, r.code, r.stderr, want)
		}
	}
}

// Item 5: stdout holds the answer alone; the narration before a tool
// call and the reply to an end-of-turn check go to stderr; piped stdin
// joins the prompt.
func TestRunPrintsOnlyTheAnswer(t *testing.T) {
	srv := llmtest.NewTestServer(t,
		llmtest.ChatReply(llmtest.ChatText("Let me read it."), llmtest.ChatToolCall("c1", "file_read", `{"path":"hello.txt"}`), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(10, 1)),
		llmtest.ChatTextReply("hello.txt says hi. Next I'll summarise it.", 10, 1),
		llmtest.ChatTextReply("ok", 10, 1), // the reply to the announced-step check
		llmtest.ChatTextReply("A one-line log.", 10, 1),
	)
	home, ws := setup(t, srv.URL())
	if err := os.WriteFile(filepath.Join(ws, "hello.txt"), []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := godwit(t, home, ws, nil, "run", "--model", "local/m", "what does hello.txt say?")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if r.stdout != "hello.txt says hi. Next I'll summarise it.\n" {
		t.Errorf("stdout = %q, want the answer alone", r.stdout)
	}
	for _, want := range []string{"Let me read it.\n", "→ read hello.txt", "↩ check: announced_step\n", "\nok\n"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}

	r = godwitIn(t, home, ws, nil, "ERROR disk full\n", "run", "--model", "local/m", "-p", "summarize")
	if r.code != 0 || r.stdout != "A one-line log.\n" {
		t.Fatalf("piped: %+v", r)
	}
	if body := string(srv.Requests()[3].Body); !strings.Contains(body, `summarize\n\n\u003cstdin\u003e\nERROR disk full\n\u003c/stdin\u003e`) &&
		!strings.Contains(body, `summarize\n\n<stdin>\nERROR disk full\n</stdin>`) {
		t.Errorf("the piped input is not in the prompt: %s", body)
	}
}

// Items 6 and 7: bad usage exits 2 and says what to do; messages name
// no internal package.
func TestBadUsageSaysWhatToDo(t *testing.T) {
	home, ws := setup(t, "http://127.0.0.1:1")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown provider", []string{"run", "--model", "antropic/claude-sonnet-4-5", "hi"}, 2, "did you mean anthropic/claude-sonnet-4-5?"},
		{"malformed model", []string{"run", "--model", "gpt5", "hi"}, 2, `model "gpt5" names no provider; name a model as provider/model`},
		{"tiny window", []string{"run", "--model", "local/m", "--context-window", "10", "hi"}, 2, "--context-window 10: godwit needs at least 8192 tokens"},
		{"negative steps", []string{"run", "--model", "local/m", "--max-steps", "-1", "hi"}, 2, "--max-steps -1: give 1 or more"},
		{"negative rounds", []string{"run", "--model", "local/m", "--verify", "true", "--verify-rounds", "-3", "hi"}, 2, "--verify-rounds -3: give 1 or more"},
		{"missing key", []string{"run", "--model", "anthropic/claude-sonnet-4-5", "hi"}, 1, `provider "anthropic" needs an API key: set ANTHROPIC_API_KEY`},
		{"chat window", []string{"chat", "--context-window", "100"}, 2, "--context-window 100"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := godwit(t, home, ws, nil, tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d (want %d), stderr %q (want %q)", r.code, tc.code, r.stderr, tc.want)
			}
			noInternals(t, r.stderr)
		})
	}
}

// Item 6: an unknown model id is a clear warning with the nearest known
// one, and the provider's refusal a clear error.
func TestUnknownModelID(t *testing.T) {
	srv := llmtest.NewTestServer(t, llmtest.AnthropicError(404, "not_found_error", "model: claude-sonet-4-5"))
	home, ws := t.TempDir(), t.TempDir()
	r := godwit(t, home, ws, []string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + srv.URL()}, "run", "--model", "anthropic/claude-sonet-4-5", "hi")
	if r.code != 1 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{
		"godwit: warning: anthropic/claude-sonet-4-5 is not in the model catalog",
		"did you mean anthropic/claude-sonnet-4-5?",
		"HTTP 404", "model: claude-sonet-4-5",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	noInternals(t, r.stderr)
}

// Item 7: a failing command is marked failed; a retry prints once and
// its wait is in milliseconds in --json; the KEY column says missing.
func TestMarksRetriesAndKeys(t *testing.T) {
	srv := llmtest.NewTestServer(t,
		llmtest.JSON(529, `{"error":{"type":"overloaded_error","message":"Overloaded"}}`),
		llmtest.ChatReply(llmtest.ChatToolCall("c1", "shell_exec", `{"command":"echo no; exit 3"}`), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(10, 1)),
		llmtest.ChatTextReply("The command failed with status 3.", 10, 1),
		llmtest.JSON(529, `{"error":{"type":"overloaded_error","message":"Overloaded"}}`),
		llmtest.ChatTextReply("ok", 10, 1),
	)
	home, ws := setup(t, srv.URL())
	r := godwit(t, home, ws, nil, "run", "--yes", "--model", "local/m", "run it")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !regexp.MustCompile(`(?m)^  ✗ shell_exec exit 3 \((\d+ms|\d+\.\d+s)\)$`).MatchString(r.stderr) || strings.Contains(r.stderr, "✓ shell_exec") {
		t.Errorf("the failing command is not marked failed:\n%s", r.stderr)
	}
	if n := strings.Count(r.stderr, "retry 2"); n != 1 {
		t.Errorf("the retry printed %d times:\n%s", n, r.stderr)
	}
	noInternals(t, r.stderr)

	r = godwit(t, home, ws, nil, "run", "--json", "--model", "local/m", "hi")
	var retry map[string]any
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var e struct {
			Type  string         `json:"type"`
			Retry map[string]any `json:"retry"`
		}
		if err := json.Unmarshal([]byte(line), &e); err == nil && e.Type == "model.retry" {
			retry = e.Retry
		}
	}
	if _, ok := retry["wait_ms"]; !ok || retry["wait"] != nil {
		t.Errorf("model.retry's wait is not wait_ms: %v", retry)
	}

	r = godwit(t, home, ws, []string{"DEEPSEEK_API_KEY=k"}, "models")
	rows := map[string]string{}
	for _, l := range strings.Split(r.stdout, "\n") {
		if f := strings.Fields(l); len(f) > 1 {
			rows[f[0]] = l
		}
	}
	if !strings.HasSuffix(rows["deepseek/deepseek-chat"], "  set") || !strings.HasSuffix(rows["openai/gpt-5"], "  missing OPENAI_API_KEY") ||
		!strings.HasSuffix(rows["ollama/*"], "  not needed") {
		t.Errorf("KEY column:\n%s", r.stdout)
	}
}

// Item 9: the peers' flags.
func TestPeerFlags(t *testing.T) {
	srv := llmtest.NewTestServer(t, llmtest.ChatTextReply("done in sub", 10, 1))
	home, ws := setup(t, srv.URL())
	sub := filepath.Join(ws, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if r := godwit(t, home, ws, nil, "--version"); r.code != 0 || !strings.HasPrefix(r.stdout, "godwit dev (go") {
		t.Errorf("--version: %+v", r)
	}
	// -C: the workspace is DIR, relative to where godwit starts.
	r := godwit(t, home, ws, nil, "-C", "sub", "run", "--json", "--model", "local/m", "hi")
	if r.code != 0 || !strings.Contains(r.stdout, `"workspace":"`+sub+`"`) {
		t.Errorf("-C sub: %+v", r)
	}
	// Not on a terminal, bare godwit prints the help (on one, the chat:
	// TestBareGodwitStartsTheChat).
	if r := godwit(t, home, ws, nil); r.code != 0 || !strings.Contains(r.stdout, "Run alone on a terminal, it starts the chat") {
		t.Errorf("bare godwit: %+v", r)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sesions"}, "did you mean godwit sessions?"},
		{[]string{"run", "--allow-writes", "x"}, "did you mean --allow-write?"},
		{[]string{"-p", "x"}, "godwit run -p TEXT"},
	} {
		if r := godwit(t, home, ws, nil, tc.args...); r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
	if r := godwit(t, home, ws, nil, "run", "--help"); !strings.Contains(r.stdout, "godwit run [PROMPT] [flags]") || !strings.Contains(r.stdout, `godwit run "why does TestParse fail?"`) {
		t.Errorf("run --help does not show the positional prompt:\n%s", r.stdout)
	}
}

// Item 9: on a terminal, godwit alone is the chat, and -c continues.
func TestBareGodwitStartsTheChat(t *testing.T) {
	bin, err := exec.LookPath("tmux")
	if err != nil {
		peertest.Missing(t, "tmux is not installed (Debian: apt-get install tmux); this test drives the chat in a real terminal")
	}
	srv := llmtest.NewTestServer(t, llmtest.ChatTextReply("hello from the chat", 10, 1))
	home, ws := setup(t, srv.URL())
	s := &tmuxSession{t: t, bin: bin, sock: filepath.Join(t.TempDir(), "tmux.sock"),
		env: append(baseEnv(), "GODWIT_HOME="+home, "TERM=xterm-256color")}
	s.run("new-session", "-d", "-s", "chat", "-x", "100", "-y", "30", "-c", ws, "sh", "-c", binary+" --model local/m; echo chat-exit=$?; sleep 60")
	s.stopOnCleanup()
	s.waitFor("/help")
	s.run("send-keys", "-t", "chat", "-l", "hi")
	s.run("send-keys", "-t", "chat", "Enter")
	s.waitFor("hello from the chat")
	s.run("send-keys", "-t", "chat", "C-c")
	s.waitFor("press Ctrl-C again to leave")
	s.run("send-keys", "-t", "chat", "C-c")
	if sc := s.waitFor("chat-exit="); !strings.Contains(sc, "chat-exit=0") {
		t.Errorf("the chat did not end cleanly:\n%s", sc)
	}

	// godwit -c opens the chat on that session, its turn on the screen.
	// The server exits with its last session, and a new-session racing
	// that exit fails ("server exited unexpectedly"): keep it up.
	s.run("set-option", "-g", "exit-empty", "off")
	s.run("kill-session", "-t", "chat")
	s.run("new-session", "-d", "-s", "chat", "-x", "100", "-y", "30", "-c", ws, "sh", "-c", binary+" -c --model local/m; echo chat-exit=$?; sleep 60")
	s.waitFor("/help")
	if sc := s.waitFor("hello from the chat"); !strings.Contains(sc, "› hi") {
		t.Errorf("-c did not show the session's turn:\n%s", sc)
	}
}

// Item 10: what a consumer of run --json gets when the run cannot start.
func TestJSONErrorEvent(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	r := godwit(t, home, ws, nil, "run", "--json", "--model", "anthropic/claude-sonnet-4-5", "hi")
	if r.code != 1 || !strings.Contains(r.stderr, "set ANTHROPIC_API_KEY") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var e struct{ Type, Text string }
	if err := json.Unmarshal([]byte(r.stdout), &e); err != nil || e.Type != "error" || !strings.Contains(e.Text, "set ANTHROPIC_API_KEY") || strings.Contains(e.Text, "catalog:") {
		t.Errorf("stdout %q: want one error event", r.stdout)
	}
}

// Item 15: the demo writes nothing under ~/.godwit and removes its
// folder, unless --keep.
func TestDemoLeavesNothingBehind(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the demo needs the go command")
	}
	userHome, tmp := t.TempDir(), t.TempDir()
	// Go's caches stay where they are: the sandbox lets go test write
	// there, not in a new home.
	env := []string{"HOME=" + userHome, "TMPDIR=" + tmp, "GOCACHE=" + goEnv(t, "GOCACHE"), "GOMODCACHE=" + goEnv(t, "GOMODCACHE")}
	cmd := exec.Command(binary, "demo")
	cmd.Dir = t.TempDir()
	cmd.Env = append(baseEnv(), env...) // no GODWIT_HOME: the default, ~/.godwit
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "turn 1 done") || !strings.Contains(string(out), "godwit demo --keep keeps it") || !strings.Contains(string(out), "ok  ") {
		t.Errorf("demo output:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(userHome, ".godwit")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the demo wrote ~/.godwit (%v)", err)
	}
	left, _ := filepath.Glob(filepath.Join(tmp, "godwit-*"))
	if len(left) > 0 {
		t.Errorf("the demo left %v", left)
	}

	cmd = exec.Command(binary, "demo", "--keep")
	cmd.Env = append(baseEnv(), env...)
	out, err = cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("demo --keep: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`inspect it: GODWIT_HOME=(\S+) godwit inspect trace (\S+)`).FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("demo --keep does not say how to inspect:\n%s", out)
	}
	inspect := exec.Command(binary, "inspect", "trace", m[2])
	inspect.Env = append(baseEnv(), "GODWIT_HOME="+m[1])
	if got, err := inspect.CombinedOutput(); err != nil || !strings.Contains(string(got), "turn 1 done") {
		t.Errorf("the printed command does not inspect the session: %v\n%s", err, got)
	}
	if src, err := os.ReadFile(filepath.Join(filepath.Dir(m[1]), "repo", "calc.go")); err != nil || !strings.Contains(string(src), "return a + b") {
		t.Errorf("the kept repository is not fixed: %v", err)
	}
}

func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// Item 15: eval run says what it starts and counts what it finished.
func TestEvalRunProgress(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go-add task runs go test")
	}
	suite, err := filepath.Abs("../../evals/basic/go-add")
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	r := godwit(t, home, t.TempDir(), nil, "eval", "run", suite, "--out", filepath.Join(home, "r.json"))
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	sc := bufio.NewScanner(strings.NewReader(r.stderr))
	sc.Scan()
	if sc.Text() != "eval: 1 run, 1 at once" || !strings.Contains(r.stderr, "[1/1] ok   basic/go-add#1") {
		t.Errorf("eval progress:\n%s", r.stderr)
	}
}

// A rules.yaml godwit cannot read is bad usage too.
func TestBadRulesFile(t *testing.T) {
	home, ws := setup(t, "http://127.0.0.1:1")
	if err := os.WriteFile(filepath.Join(home, "rules.yaml"), []byte("alow:\n  - tool: file_write\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := godwit(t, home, ws, nil, "run", "--model", "local/m", "hi")
	if r.code != 2 || !strings.Contains(r.stderr, "rules.yaml") || !strings.Contains(r.stderr, "alow") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// Issue 26: undo shows in the timeline, and takes away the folders the
// file tools made for what it removes.
func TestUndoInTimeline(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewTestServer(t,
		llmtest.ChatReply(llmtest.ChatToolCall("c1", "file_write", jsonArgs(map[string]string{"path": "sub/deep/new.txt", "content": "x\n"})), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(10, 1)),
		llmtest.ChatTextReply("written", 10, 1))
	home, ws := setup(t, srv.URL())
	if r := godwit(t, home, ws, nil, "run", "--yes", "--model", "local/m", "write it"); r.code != 0 {
		t.Fatalf("run: %+v", r)
	}
	if r := godwit(t, home, ws, nil, "undo", "last"); r.code != 0 {
		t.Fatalf("undo: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(ws, "sub")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("undo left the folder it made: %v", err)
	}
	r := godwit(t, home, ws, nil, "inspect", "trace", "last")
	if r.code != 0 || !strings.Contains(r.stdout, "  undo: The user undid the file changes of turn 1") {
		t.Errorf("the timeline does not show the undo:\n%s", r.stdout)
	}
}

// A server that stops sending mid-answer does not hang `godwit run`: the
// provider's idle_timeout counts it as a dropped connection, the retry
// says why, and the next attempt's answer is the turn's.
func TestStalledStreamIsRetried(t *testing.T) {
	t.Parallel()
	stalled := llmtest.Reply{Chunks: []string{llmtest.ChatText("I was say"), llmtest.ChatText("ing") + llmtest.ChatFinish("stop") + llmtest.ChatDone}, Delay: time.Hour}
	srv := llmtest.NewTestServer(t, stalled, llmtest.ChatTextReply("the whole answer", 10, 1))
	home, ws := setup(t, srv.URL())
	cfg := filepath.Join(home, "config.yaml")
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, append(data, "    idle_timeout: 1s\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	r := godwit(t, home, ws, nil, "run", "--model", "local/m", "hi")
	if r.code != 0 || !strings.HasSuffix(r.stdout, "the whole answer\n") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "the server sent nothing for 1s") {
		t.Errorf("the retry does not say why:\n%s", r.stderr)
	}
	noInternals(t, r.stderr)
}
