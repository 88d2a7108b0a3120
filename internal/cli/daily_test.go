package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/config"
	"github.com/godwit/godwit/internal/wiring"
	"github.com/godwit/godwit/llm"
)

func TestCleanText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"agent: the provider refused the API key: llm: anthropic: HTTP 401: bad key", "the provider refused the API key: anthropic: HTTP 401: bad key"},
		{"wiring: config.yaml: summary_model: catalog: model \"x\" names no provider", "config.yaml: summary_model: model \"x\" names no provider"},
		{"agent: wiring: store: nested", "nested"},
		{"mcp: some servers were not ready", "mcp: some servers were not ready"},
		{"retry: gave up after 5 attempts (agent: x)", "gave up after 5 attempts (x)"},
		{"a plain message: keeps its colons", "a plain message: keeps its colons"},
		{"the agent: a word, not a package", "the agent: a word, not a package"},
	}
	for _, tc := range tests {
		if got := cleanText(tc.in); got != tc.want {
			t.Errorf("cleanText(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestExitCode(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{nil, ExitOK},
		{errors.New("the run failed"), ExitFailed},
		{errSilent, ExitFailed},
		{usageErrorf("bad flag"), ExitUsage},
		{fmt.Errorf("wrapped: %w", &config.Error{Path: "c.yaml"}), ExitUsage},
		{fmt.Errorf("wrapped: %w", &wiring.InputError{Err: errors.New("unknown provider")}), ExitUsage},
		{&agent.WorkspaceError{SessionID: "s", SessionWorkspace: "/a", Workspace: "/b"}, ExitUsage},
		{errors.New(`unknown command "x" for "godwit"`), ExitUsage},
	}
	for _, tc := range tests {
		if got := exitCode(tc.err); got != tc.want {
			t.Errorf("exitCode(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}

func TestLineHandler(t *testing.T) {
	var b bytes.Buffer
	log := slog.New(newLineHandler(&b, slog.LevelWarn))
	log.Info("hidden")
	log.Warn("catalog: local/x is not in the model catalog")
	log.With("server", "fs").Error("mcp: failed", "err", errors.New("wiring: exit 1"))
	want := "godwit: warning: local/x is not in the model catalog\ngodwit: error: mcp: failed (server=fs, err=exit 1)\n"
	if b.String() != want {
		t.Errorf("log:\n%s\nwant\n%s", b.String(), want)
	}
}

func TestWorkspaceMessageSaysHowToContinue(t *testing.T) {
	msg := userMessage(fmt.Errorf("agent: %w", &agent.WorkspaceError{SessionID: "01abc", SessionWorkspace: "/src/my repo", Workspace: "/src/other"}))
	for _, want := range []string{"session 01abc belongs to /src/my repo, not to this workspace (/src/other)", "godwit -C '/src/my repo' run --session 01abc"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
}

// run's stdout is the answer alone: narration between tool calls, a
// reply to a check, handoffs and retried attempts go to stderr or
// nowhere.
func TestAnswerSink(t *testing.T) {
	var out, log bytes.Buffer
	s := newAnswerSink(&out, &log)
	code1 := 1
	text := func(t string) agent.Event { return agent.Event{Type: agent.EventTextDelta, Text: t} }
	resp := func(calls int, purpose string) agent.Event {
		return agent.Event{Type: agent.EventModelResponse, Response: &agent.ResponseInfo{ToolCalls: calls, Purpose: purpose}}
	}
	req := agent.Event{Type: agent.EventModelRequest, Request: &agent.RequestInfo{}}
	for _, e := range []agent.Event{
		req, text("Let me run "), text("the tests."), resp(1, ""),
		{Type: agent.EventToolStarted, Tool: &agent.ToolInfo{Name: "shell_exec", Summary: "go test ./..."}},
		{Type: agent.EventToolFinished, Tool: &agent.ToolInfo{Name: "shell_exec", ExitCode: &code1, DurationMS: 12}},
		req, text("partial"), {Type: agent.EventModelRetry, Retry: &llm.Retry{Attempt: 2, Wait: time.Second, Reason: "HTTP 529", Discarded: true}},
		text("TestX fails: Add subtracts."), resp(0, ""),
		{Type: agent.EventNudge, Nudge: &agent.NudgeInfo{Check: agent.CheckOpenPlan}},
		req, text("ok"), resp(0, ""),
		req, text("## Handoff"), resp(0, agent.PurposeHandoff),
		{Type: agent.EventTurnFinished, Finished: &agent.TurnInfo{Status: "done", Text: "TestX fails: Add subtracts."}},
	} {
		s.Emit(e)
	}
	if out.String() != "TestX fails: Add subtracts.\n" {
		t.Errorf("stdout = %q, want the answer alone", out.String())
	}
	l := log.String()
	for _, want := range []string{"Let me run the tests.\n", "→ go test ./...\n", "  ✗ shell_exec exit 1 (12ms)\n", "↻ HTTP 529; retry 2 in 1s\n", "TestX fails: Add subtracts.\n↩ check: open_plan\n", "ok\n"} {
		if !strings.Contains(l, want) {
			t.Errorf("stderr lacks %q:\n%s", want, l)
		}
	}
	for _, not := range []string{"partial", "Handoff", "discarded"} {
		if strings.Contains(l, not) {
			t.Errorf("stderr has %q:\n%s", not, l)
		}
	}
}

func TestRunFlags(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		stdin string // piped
		check func(*RunOptions) string
		err   string
	}{
		{"positional prompt", []string{"fix", "it"}, "", func(o *RunOptions) string { return want(o.Prompt, "fix it") }, ""},
		{"continue", []string{"-c", "go on"}, "", func(o *RunOptions) string { return want(o.SessionID, "last") }, ""},
		{"piped input follows the prompt", []string{"-p", "summarize"}, "line 1\nline 2\n",
			func(o *RunOptions) string { return want(o.Prompt, "summarize\n\n<stdin>\nline 1\nline 2\n</stdin>") }, ""},
		{"piped input alone is the prompt", nil, "fix the bug\n", func(o *RunOptions) string { return want(o.Prompt, "fix the bug\n") }, ""},
		{"-p - reads the prompt", []string{"-p", "-"}, "from stdin", func(o *RunOptions) string { return want(o.Prompt, "from stdin") }, ""},
		{"empty pipe leaves the prompt", []string{"hi"}, "", func(o *RunOptions) string { return want(o.Prompt, "hi") }, ""},
		{"no prompt", nil, "", nil, "no prompt"},
		{"both prompts", []string{"-p", "a", "b"}, "", nil, "not both"},
		{"continue and session", []string{"-c", "--session", "x", "hi"}, "", nil, "not both"},
		{"tiny window", []string{"--context-window", "10", "hi"}, "", nil, "--context-window 10: godwit needs at least 8192"},
		{"negative steps", []string{"--max-steps", "-1", "hi"}, "", nil, "--max-steps -1: give 1 or more"},
		{"zero steps", []string{"--max-steps", "0", "hi"}, "", nil, "--max-steps 0: give 1 or more"},
		{"negative rounds", []string{"--verify", "true", "--verify-rounds", "-3", "hi"}, "", nil, "--verify-rounds -3: give 1 or more"},
		{"rounds without verify", []string{"--verify-rounds", "3", "hi"}, "", nil, "goes with --verify"},
		{"bad timeout", []string{"--verify", "true", "--verify-timeout", "0s", "hi"}, "", nil, "--verify-timeout 0s"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ios, in, _, _ := fakeStreams()
			if tc.stdin != "" || strings.Contains(tc.name, "pipe") {
				ios.InPiped = true
				in.WriteString(tc.stdin)
			}
			if tc.name == "-p - reads the prompt" {
				ios.InPiped = false // a terminal's input, read because of -p -
			}
			var got *RunOptions
			f := &Factory{IO: ios, Getenv: func(string) string { return "" }, Workdir: t.TempDir()}
			err := executeCmd(NewCmdRun(f, func(_ context.Context, o *RunOptions) error { got = o; return nil }), tc.args...)
			if tc.err != "" {
				var ue *UsageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want a usage error with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if msg := tc.check(got); msg != "" {
				t.Error(msg)
			}
		})
	}
}

func want(got, want string) string {
	if got != want {
		return fmt.Sprintf("got %q, want %q", got, want)
	}
	return ""
}

func TestRootFlagsAndSuggestions(t *testing.T) {
	tests := []struct {
		args []string
		code int
		out  string // on stdout
		err  string // on stderr
	}{
		{[]string{"--version"}, ExitOK, "godwit test (", ""},
		{[]string{"sesions"}, ExitUsage, "", `unknown command "sesions" for "godwit": did you mean godwit sessions?`},
		{[]string{"fix", "the", "bug"}, ExitUsage, "", `to send a prompt, run godwit run "fix the bug"`},
		{[]string{"inspect", "trac", "last"}, ExitUsage, "", "did you mean godwit inspect trace?"},
		{[]string{"run", "--allow-writes", "x"}, ExitUsage, "", "unknown flag --allow-writes for godwit run: did you mean --allow-write?"},
		{[]string{"-p", "hi"}, ExitUsage, "", "godwit run -p TEXT"},
		{[]string{"run", "--dangerously-skip-permissions", "x"}, ExitUsage, "", "--yes approves every write"},
		{[]string{"-C", "/no/such/dir", "sessions"}, ExitUsage, "", "-C /no/such/dir: no such folder"},
		{[]string{"init"}, ExitUsage, "", "type /init in the chat (godwit); `godwit config init` writes godwit's own config.yaml"},
		{[]string{"config", "init", "--model", "ollama/qwen3"}, ExitOK, "wrote ", ""},
		{nil, ExitOK, "Usage:", ""}, // not a terminal: the help
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			ios, _, out, errOut := fakeStreams()
			f := &Factory{IO: ios, Getenv: func(k string) string { return map[string]string{"GODWIT_HOME": t.TempDir()}[k] }, Version: "test", Workdir: t.TempDir()}
			if code := Main(context.Background(), f, tc.args); code != tc.code {
				t.Errorf("exit %d, want %d; stderr %s", code, tc.code, errOut)
			}
			if !strings.Contains(out.String(), tc.out) || !strings.Contains(errOut.String(), tc.err) {
				t.Errorf("stdout %q\nstderr %q\nwant %q and %q", out, errOut, tc.out, tc.err)
			}
		})
	}
}

func TestCdMovesTheWorkspace(t *testing.T) {
	dir := t.TempDir()
	ios, _, _, _ := fakeStreams()
	var moved string
	f := &Factory{IO: ios, Getenv: func(string) string { return "" }, Workdir: t.TempDir(), Chdir: func(d string) error { moved = d; return nil }}
	root := NewRootCmd(f)
	var got *RunOptions
	for _, c := range root.Commands() {
		if c.Name() == "run" {
			root.RemoveCommand(c)
		}
	}
	root.AddCommand(NewCmdRun(f, func(_ context.Context, o *RunOptions) error { got = o; return nil }))
	root.SetArgs([]string{"-C", dir, "run", "hi"})
	if err := root.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got.Workspace != dir || moved != dir {
		t.Errorf("workdir %q, chdir %q; want %q", got.Workspace, moved, dir)
	}
}

// A pipe nobody closes would hang run silently: after a while it says
// what it waits for, once, and still reads everything.
func TestReadNoticedSaysWhatItWaitsFor(t *testing.T) {
	r, w := io.Pipe()
	var log bytes.Buffer
	done := make(chan []byte)
	go func() {
		b, _ := readNoticed(r, &syncWriter{w: &log}, time.Millisecond)
		done <- b
	}()
	// The notice comes before any input does.
	for !strings.Contains(syncRead(&log), "waiting for the input on stdin") {
		time.Sleep(time.Millisecond)
	}
	w.Write([]byte("late input"))
	w.Close()
	if b := <-done; string(b) != "late input" {
		t.Errorf("read %q", b)
	}
	if n := strings.Count(syncRead(&log), "waiting"); n != 1 {
		t.Errorf("the notice came %d times", n)
	}

	log.Reset()
	if b, err := readNoticed(strings.NewReader("ready"), &log, time.Hour); err != nil || string(b) != "ready" || log.Len() != 0 {
		t.Errorf("input at once: %q, %v, log %q", b, err, log.String())
	}
}

var logMu sync.Mutex

type syncWriter struct{ w io.Writer }

func (s *syncWriter) Write(p []byte) (int, error) {
	logMu.Lock()
	defer logMu.Unlock()
	return s.w.Write(p)
}

func syncRead(b *bytes.Buffer) string {
	logMu.Lock()
	defer logMu.Unlock()
	return b.String()
}
