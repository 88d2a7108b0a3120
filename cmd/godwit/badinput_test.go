package main

import (
	"context"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/godwit/godwit/internal/store/storetest"
	"github.com/godwit/godwit/llm/llmtest"
	_ "modernc.org/sqlite"
)

// Every bad input gets a clear error that says what to do, and nothing is
// lost. These tests drive the real binary through each way a provider, the
// disk, the process or the config can go wrong, and check three things:
// what the user reads, how the turn is recorded, and that the session
// goes on with the user's words in it.

// wireSetup points a home at srv for one wire format and returns the
// environment and model to run with. Retries are cut to two attempts so
// that the give-up message shows without a long wait.
func wireSetup(t *testing.T, wire, url string) (home string, env []string, model string) {
	t.Helper()
	home = t.TempDir()
	// The catalog entry keeps the unknown-model warning off stderr.
	cfg := "retry:\n  max_attempts: 2\n"
	local := "models:\n  - provider: local\n    id: m\n"
	model = "local/m"
	switch wire {
	case "chat":
		cfg += local + "providers:\n  local:\n    type: openai-chat\n    base_url: " + url + "/v1\n    no_key: true\n"
	case "responses":
		cfg += local + "providers:\n  local:\n    type: openai-responses\n    base_url: " + url + "/v1\n    no_key: true\n"
	case "anthropic":
		env = []string{"ANTHROPIC_API_KEY=sk-ant-wrong", "ANTHROPIC_BASE_URL=" + url}
		model = "anthropic/claude-sonnet-4-5"
	case "openai":
		env = []string{"OPENAI_API_KEY=sk-wrong", "OPENAI_BASE_URL=" + url + "/v1"}
		model = "openai/gpt-5"
	}
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return home, env, model
}

// okReply is a plain answer in the wire format.
func okReply(wire, text string) llmtest.Reply {
	switch wire {
	case "responses", "openai":
		return llmtest.ResponsesTextReply(text, 10, 1)
	case "anthropic":
		return llmtest.AnthropicReply(llmtest.AnthropicText(text), llmtest.AnthropicUsage(10, 1, 0, 0))
	}
	return llmtest.ChatTextReply(text, 10, 1)
}

func lastSession(t *testing.T, home string) string {
	t.Helper()
	st := storetest.OpenAt(t, filepath.Join(home, "godwit.db"))
	s, err := st.LastSession(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s.ID
}

func TestProviderFailuresSayWhatToDo(t *testing.T) {
	t.Parallel()
	const openai401 = `{"error":{"message":"Incorrect API key provided: sk-wrong. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`
	rateLimited := llmtest.Reply{Status: 429, Headers: map[string]string{"Content-Type": "application/json", "Retry-After": "1"},
		Body: `{"error":{"message":"Rate limit reached for gpt-5 on tokens per min (TPM): Limit 30000, Used 30000, Requested 500. Please try again in 1s.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`}
	cut := llmtest.Reply{Body: llmtest.SSE(llmtest.ChatText("the first half of an answer"), llmtest.ChatText(" and the rest")), CutAfter: 60}
	refusal := "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"refusal\":\"I cannot help with that.\"},\"finish_reason\":null}]}\n\n"
	tests := []struct {
		name    string
		wire    string
		replies []llmtest.Reply
		code    int
		status  string
		want    []string
	}{
		{"openai wrong key", "openai", []llmtest.Reply{llmtest.JSON(401, openai401)}, 1, "failed",
			[]string{"Incorrect API key", "OPENAI_API_KEY is set, but openai does not accept it", "put a valid key in OPENAI_API_KEY"}},
		{"anthropic wrong key", "anthropic", []llmtest.Reply{llmtest.AnthropicError(401, "authentication_error", "invalid x-api-key")}, 1, "failed",
			[]string{"invalid x-api-key", "put a valid key in ANTHROPIC_API_KEY, or pick another model with --model"}},
		{"keyless provider asked for a key", "chat", []llmtest.Reply{llmtest.JSON(401, openai401)}, 1, "failed",
			[]string{"name the variable holding its key with api_key_env under providers: local:"}},
		{"429 with Retry-After", "chat", []llmtest.Reply{rateLimited, rateLimited}, 1, "failed",
			[]string{"retry 2 in 1s", "try again later or configure a fallback model", "Rate limit reached"}},
		{"429 without Retry-After", "anthropic", []llmtest.Reply{
			llmtest.AnthropicError(429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"),
			llmtest.AnthropicError(429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit")}, 1, "failed",
			[]string{"retry 2 in", "try again later or configure a fallback model"}},
		{"429 out of credit is not retried", "chat", []llmtest.Reply{llmtest.JSON(429, `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`)}, 1, "failed",
			[]string{"check your plan and billing details"}},
		{"529 overloaded", "anthropic", []llmtest.Reply{llmtest.AnthropicError(529, "overloaded_error", "Overloaded"), llmtest.AnthropicError(529, "overloaded_error", "Overloaded")}, 1, "failed",
			[]string{"HTTP 529", "try again later or configure a fallback model"}},
		{"500", "chat", []llmtest.Reply{llmtest.JSON(500, `{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error"}}`), llmtest.JSON(500, `{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error"}}`)}, 1, "failed",
			[]string{"HTTP 500", "try again later"}},
		{"context too long, chat", "chat", []llmtest.Reply{llmtest.JSON(400, `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`)}, 1, "failed",
			[]string{"maximum context length", "shorten the message", "start a new session"}},
		{"context too long, responses", "responses", []llmtest.Reply{llmtest.JSON(400, `{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}`)}, 1, "failed",
			[]string{"exceeds the context window", "shorten the message"}},
		{"context too long, anthropic", "anthropic", []llmtest.Reply{llmtest.AnthropicError(400, "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum")}, 1, "failed",
			[]string{"prompt is too long", "shorten the message"}},
		{"stream cut mid-way", "chat", []llmtest.Reply{cut, cut}, 1, "failed",
			[]string{"the stream broke off", "try again later"}},
		{"malformed JSON in the stream, chat", "chat", []llmtest.Reply{{Body: "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"\n\n"}}, 1, "failed",
			[]string{"not valid JSON", "local's base URL is", "from base_url under providers: local: in config.yaml"}},
		{"malformed JSON in the stream, anthropic", "anthropic", []llmtest.Reply{{Headers: map[string]string{"Content-Type": "text/event-stream"}, Body: "event: message_start\ndata: {nope\n\n"}}, 1, "failed",
			[]string{"unparseable event", "(from ANTHROPIC_BASE_URL): check that it points at a server speaking the Anthropic Messages API"}},
		{"tool call with invalid JSON arguments", "chat", []llmtest.Reply{
			llmtest.ChatReply(llmtest.ChatToolCall("c1", "file_read", `{"path": "x.txt"`), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(10, 1)),
			llmtest.ChatTextReply("recovered", 10, 1)}, 0, "done",
			[]string{"BAD_ARGS: arguments are not valid JSON"}},
		{"unknown tool", "chat", []llmtest.Reply{
			llmtest.ChatReply(llmtest.ChatToolCall("c1", "file_reed", `{"path": "x.txt"}`), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(10, 1)),
			llmtest.ChatTextReply("recovered", 10, 1)}, 0, "done",
			[]string{`UNKNOWN_TOOL: no tool named "file_reed"`}},
		{"tool call missing a required field", "chat", []llmtest.Reply{
			llmtest.ChatReply(llmtest.ChatToolCall("c1", "file_read", `{}`), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(10, 1)),
			llmtest.ChatTextReply("recovered", 10, 1)}, 0, "done",
			[]string{"BAD_ARGS: path is required"}},
		{"empty answer", "chat", []llmtest.Reply{llmtest.ChatReply(llmtest.ChatFinish("stop"), llmtest.ChatUsage(10, 0))}, 0, "done",
			[]string{"the model sent an empty answer", "send it again"}},
		{"empty answer, anthropic", "anthropic", []llmtest.Reply{llmtest.AnthropicReply(llmtest.AnthropicStop("end_turn"), llmtest.AnthropicUsage(10, 0, 0, 0))}, 0, "done",
			[]string{"the model sent an empty answer"}},
		{"refusal, chat", "chat", []llmtest.Reply{llmtest.ChatReply(refusal, llmtest.ChatFinish("stop"), llmtest.ChatUsage(10, 5))}, 0, "done",
			[]string{"the model declined to answer", "rephrase the request"}},
		{"refusal, anthropic", "anthropic", []llmtest.Reply{llmtest.AnthropicReply(llmtest.AnthropicText("I can't help with that."), llmtest.AnthropicStop("refusal"), llmtest.AnthropicUsage(10, 2, 0, 0))}, 0, "done",
			[]string{"the model declined to answer"}},
		{"answer cut at the output limit", "chat", []llmtest.Reply{llmtest.ChatReply(llmtest.ChatText("the start of a long"), llmtest.ChatFinish("length"), llmtest.ChatUsage(10, 5))}, 0, "done",
			[]string{"cut off at the model's output limit", `send "continue"`, "max_output"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewTestServer(t, tc.replies...)
			home, env, model := wireSetup(t, tc.wire, srv.URL())
			ws := t.TempDir()
			if err := os.WriteFile(filepath.Join(ws, "x.txt"), []byte("x\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			r := godwit(t, home, ws, env, "run", "--model", model, "-p", "my precious prompt")
			if r.code != tc.code {
				t.Errorf("exit %d, want %d\nstderr:\n%s", r.code, tc.code, r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
			noInternals(t, r.stderr)
			sid := lastSession(t, home)
			if got := strings.Join(turnStatuses(t, home, sid), ","); got != tc.status {
				t.Errorf("turn status %s, want %s", got, tc.status)
			}
			// The session goes on, and the first prompt is in what the
			// model is sent next.
			srv.Add(okReply(tc.wire, "back on track"))
			r = godwit(t, home, ws, env, "run", "--model", model, "--session", sid, "-p", "next")
			if r.code != 0 || !strings.Contains(r.stdout, "back on track") {
				t.Fatalf("resume: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			reqs := srv.Requests()
			if last := string(reqs[len(reqs)-1].Body); !strings.Contains(last, "my precious prompt") {
				t.Errorf("the resumed request lost the first prompt: %s", last)
			}
		})
	}
}

// A message that never reached the model (the process was killed during
// the handoff of a forced reset, which comes before the prompt enters the
// conversation) is shown on resume, with what to do.
func TestKilledBeforeThePromptReachedTheModel(t *testing.T) {
	t.Parallel()
	slow := llmtest.Reply{Chunks: []string{llmtest.ChatText("## Handoff "), llmtest.ChatText("still writing"), llmtest.ChatFinish("stop")}, Delay: 3e9}
	srv := llmtest.NewServer(llmtest.ChatTextReply("one", 10, 1), slow, llmtest.ChatTextReply("three", 10, 1))
	t.Cleanup(srv.Close)
	home, ws := setup(t, srv.URL())
	if r := godwit(t, home, ws, nil, "run", "--model", "local/m", "-p", "first"); r.code != 0 {
		t.Fatalf("turn 1: %s", r.stderr)
	}
	sid := lastSession(t, home)
	cmd, sc, _ := startRun(t, home, ws, "--model", "local/m", "--session", sid, "--reset", "-p", "the words I typed")
	waitFor(t, sc, "model.request")
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	r := godwit(t, home, ws, nil, "run", "--model", "local/m", "--session", sid, "-p", "after the kill")
	if r.code != 0 {
		t.Fatalf("resume: exit %d: %s", r.code, r.stderr)
	}
	for _, w := range []string{"turn 2 ended (interrupted) before your message reached the model", "send it again", "the words I typed"} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
		}
	}
	// Told once: the next turn has nothing to say about it.
	srv.Add(llmtest.ChatTextReply("four", 10, 1))
	if r := godwit(t, home, ws, nil, "run", "--model", "local/m", "--session", sid, "-p", "again"); strings.Contains(r.stderr, "reached the model") {
		t.Errorf("the notice came back: %s", r.stderr)
	}
}

// A second run on a session that a run is using is refused, naming the
// process and how to reach it instead; the first run finishes whole.
func TestSecondRunOnABusySession(t *testing.T) {
	t.Parallel()
	slow := llmtest.Reply{Chunks: []string{llmtest.ChatText("slow "), llmtest.ChatText("answer"), llmtest.ChatFinish("stop"), llmtest.ChatUsage(10, 1)}, Delay: 2e9}
	srv := llmtest.NewTestServer(t, llmtest.ChatTextReply("one", 10, 1), slow)
	home, ws := setup(t, srv.URL())
	if r := godwit(t, home, ws, nil, "run", "--model", "local/m", "-p", "first"); r.code != 0 {
		t.Fatalf("turn 1: %s", r.stderr)
	}
	sid := lastSession(t, home)
	cmd, sc, _ := startRun(t, home, ws, "--model", "local/m", "--session", sid, "-p", "slow one")
	waitFor(t, sc, "model.request")
	r := godwit(t, home, ws, nil, "run", "--model", "local/m", "--session", sid, "-p", "at the same time")
	if r.code == 0 || !strings.Contains(r.stderr, "is open in run (pid") || !strings.Contains(r.stderr, "godwit send "+sid) {
		t.Errorf("second run: exit %d: %s", r.code, r.stderr)
	}
	waitFor(t, sc, "turn.finished")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("first run: %v", err)
	}
	if got := strings.Join(turnStatuses(t, home, sid), ","); got != "done,done" {
		t.Errorf("turns %s, want done,done", got)
	}
}

func TestConfigErrorsSayWhatToDo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		config string
		env    []string
		args   []string
		code   int
		want   string
	}{
		// Without --model the default comes from the file: one that does
		// not load must say why, not "no model configured".
		{"malformed yaml", "model: local/m\nproviders:\n  local:\n   type: openai-chat\n  base_url: [\n", nil,
			[]string{"run", "-p", "hi"}, 2, "config.yaml:5: did not find expected node content (fix the file, or move it away"},
		{"unknown key", "modle: local/m\n", []string{"ANTHROPIC_API_KEY=k"},
			[]string{"run", "-p", "hi"}, 2, "config.yaml:1: unknown key modle: did you mean model?"},
		{"unknown key in chat", "modle: local/m\n", nil,
			[]string{"chat"}, 2, "config.yaml:1: unknown key modle: did you mean model?"},
		{"bad provider type", "providers:\n  local:\n    type: openai-chatt\n    base_url: http://127.0.0.1:9/v1\n    no_key: true\n", nil,
			[]string{"run", "--model", "local/m", "-p", "hi"}, 2, `provider "local" has unknown type "openai-chatt"; use anthropic, openai-responses or openai-chat`},
		{"model without provider", "", []string{"ANTHROPIC_API_KEY=k"},
			[]string{"run", "--model", "claude-sonnet", "-p", "hi"}, 2, "name a model as provider/model, e.g. anthropic/claude-sonnet-4-5"},
		{"missing key", "", nil,
			[]string{"run", "--model", "openai/gpt-5", "-p", "hi"}, 1, "set OPENAI_API_KEY in the environment"},
		{"base URL that does not resolve", "retry:\n  max_attempts: 1\nproviders:\n  local:\n    type: openai-chat\n    base_url: http://no-such-host.invalid/v1\n    no_key: true\n", nil,
			[]string{"run", "--model", "local/m", "-p", "hi"}, 1, "could not reach the server"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			home, ws := t.TempDir(), t.TempDir()
			if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(tc.config), 0o600); err != nil {
				t.Fatal(err)
			}
			r := godwitIn(t, home, ws, tc.env, "", tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d (want %d), stderr %q (want %q)", r.code, tc.code, r.stderr, tc.want)
			}
			if strings.Contains(r.stderr, "no model configured") {
				t.Errorf("the config's own error is hidden: %s", r.stderr)
			}
			noInternals(t, r.stderr)
		})
	}
}

// The database: a newer schema, a damaged file and a lock another process
// holds each say what to do.
func TestStoreProblemsSayWhatToDo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		spoil func(t *testing.T, db string) (release func())
		want  string
	}{
		{"newer godwit's database", func(t *testing.T, db string) func() {
			sqlExec(t, db, "PRAGMA user_version = 99")
			return func() {}
		}, "database schema version 99 is newer than this godwit knows"},
		{"damaged file", func(t *testing.T, db string) func() {
			f, err := os.OpenFile(db, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteAt([]byte("this is no SQLite header"), 0); err != nil {
				t.Fatal(err)
			}
			return func() {}
		}, "the database file is damaged; move it away to start a new one"},
		{"write lock held by another process", func(t *testing.T, db string) func() {
			d, err := sql.Open("sqlite", db)
			if err != nil {
				t.Fatal(err)
			}
			conn, err := d.Conn(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
				t.Fatal(err)
			}
			return func() {
				_, _ = conn.ExecContext(context.Background(), "ROLLBACK")
				conn.Close()
				d.Close()
			}
		}, "another godwit process held the database for over 5 s; try again when it is done"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewTestServer(t, llmtest.ChatTextReply("one", 10, 1))
			home, ws := setup(t, srv.URL())
			if r := godwit(t, home, ws, nil, "run", "--model", "local/m", "-p", "first"); r.code != 0 {
				t.Fatalf("turn 1: %s", r.stderr)
			}
			release := tc.spoil(t, filepath.Join(home, "godwit.db"))
			defer release()
			r := godwit(t, home, ws, nil, "run", "--model", "local/m", "--continue", "-p", "second")
			if r.code != 1 || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want 1 and %q", r.code, r.stderr, tc.want)
			}
			noInternals(t, r.stderr)
		})
	}
}

func sqlExec(t *testing.T, db, q string) {
	t.Helper()
	d, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := d.Exec(q); err != nil {
		t.Fatal(err)
	}
}

// A full or read-only disk needs a filesystem of its own: each case runs
// godwit in a private mount namespace over a small tmpfs (root only, as
// CI is). A workspace that fills while file_write writes keeps the
// original file whole.
func TestFullAndReadOnlyDisks(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root (CI runs as root)")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare (util-linux) is not installed")
	}
	big := strings.Repeat("x", 400_000)
	tests := []struct {
		name    string
		mount   string // "home" or "ws": which folder gets the tmpfs
		opts    string
		replies []llmtest.Reply
		code    int
		want    string
	}{
		{"GODWIT_HOME on a full disk", "home", "size=128k", nil, 1,
			"the disk holding the database is full; free some space"},
		{"read-only GODWIT_HOME", "home", "ro,size=1m", nil, 1,
			"check that its folder ($GODWIT_HOME) is on a writable disk"},
		{"workspace fills during file_write", "ws", "size=256k", []llmtest.Reply{
			llmtest.ChatReply(llmtest.ChatToolCall("c1", "file_write", jsonArgs(map[string]string{"path": "keep.txt", "content": big})), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(10, 1)),
			llmtest.ChatTextReply("the disk is full", 10, 1)}, 0,
			"ENOSPC: write keep.txt: no space left on device"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewTestServer(t, tc.replies...)
			home, ws := setup(t, srv.URL())
			cfg, err := os.ReadFile(filepath.Join(home, "config.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			target := home
			if tc.mount == "ws" {
				target = ws
			}
			// The config is written again inside the mount (the home's
			// tmpfs hides it); the original file is put in the workspace.
			script := `set -e
mount -t tmpfs -o "$OPTS" tmpfs "$TARGET"
case "$OPTS" in ro,*) ;; *) printf '%s' "$CFG" > "$GODWIT_HOME/config.yaml" ;; esac
printf 'original\n' > "$WS/keep.txt" 2>/dev/null || true
cd "$WS"
set +e
"$BIN" run --model local/m --yes -p "write it"
echo "exit=$?"
cat "$WS/keep.txt" 2>/dev/null | sed 's/^/keep: /'
ls -a "$WS" | sed 's/^/ls: /'`
			if tc.mount == "home" && strings.HasPrefix(tc.opts, "ro") {
				// A read-only home with a config in it: bind the config
				// file into place before remounting read-only.
				script = strings.Replace(script, `mount -t tmpfs -o "$OPTS" tmpfs "$TARGET"`,
					`mount -t tmpfs -o size=1m tmpfs "$TARGET"; printf '%s' "$CFG" > "$GODWIT_HOME/config.yaml"; mount -o remount,ro "$TARGET"`, 1)
			}
			cmd := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c", script)
			cmd.Env = append(baseEnv(), "GODWIT_HOME="+home, "WS="+ws, "TARGET="+target, "OPTS="+tc.opts, "CFG="+string(cfg), "BIN="+binary)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("unshare: %v\n%s", err, out)
			}
			got := string(out)
			if !strings.Contains(got, "exit="+strconv.Itoa(tc.code)) || !strings.Contains(got, tc.want) {
				t.Errorf("want exit %d and %q:\n%s", tc.code, tc.want, got)
			}
			if tc.mount == "ws" {
				if !strings.Contains(got, "keep: original\n") || strings.Contains(got, ".godwit-") {
					t.Errorf("the original file was not kept whole, or the temp file stayed:\n%s", got)
				}
			}
			noInternals(t, got)
		})
	}
}

// A resident whose provider refuses the key fails the mail with what to
// do, on the sender's side and in the resident's own log, and goes on
// serving.
func TestServeProviderFailureSaysWhatToDo(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewTestServer(t, llmtest.JSON(401, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`),
		llmtest.ChatTextReply("done", 10, 1))
	home, ws := setup(t, srv.URL())
	res := serve(t, home, ws, "--new", "--model", "local/m")
	const hint = "name the variable holding its key with api_key_env under providers: local:"
	r := godwit(t, home, ws, nil, "send", res.id, "do the thing", "--wait", "--timeout", "30s")
	if r.code != 1 || !strings.Contains(r.stderr, hint) {
		t.Errorf("send: exit %d: %s", r.code, r.stderr)
	}
	noInternals(t, r.stderr)
	eventually(t, "the resident logs the failure", func() bool { return strings.Contains(res.stderr(), "turn 1 failed: ") })
	if log := res.stderr(); !strings.Contains(log, hint) || strings.Contains(log, "agent: ") || strings.Contains(log, "llm: ") {
		t.Errorf("resident log:\n%s", log)
	}
	// The failure barrier holds the sender's next message until the
	// failure is acknowledged (TestFailureBarrier); then it is answered.
	if r := godwit(t, home, ws, nil, "send", "--ack", "m1"); r.code != 0 {
		t.Fatalf("ack: %s", r.stderr)
	}
	r = godwit(t, home, ws, nil, "send", res.id, "again", "--wait", "--timeout", "30s")
	if r.code != 0 || !strings.Contains(r.stdout, "done") {
		t.Errorf("the resident stopped answering: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// In the chat a failed turn shows what to do, the typed message stays on
// the screen and in the session, and the next message goes on from it; a
// refusal is a notice, not a bare line.
func TestChatFailedTurnInTmux(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewTestServer(t,
		llmtest.AnthropicError(401, "authentication_error", "invalid x-api-key"),
		llmtest.AnthropicReply(llmtest.AnthropicText("I can't help with that."), llmtest.AnthropicStop("refusal"), llmtest.AnthropicUsage(10, 2, 0, 0)),
	)
	home := t.TempDir()
	ws := t.TempDir()
	s := newTmux(t, home)
	s.env = append(s.env, "ANTHROPIC_API_KEY=sk-ant-wrong", "ANTHROPIC_BASE_URL="+srv.URL())
	s.chat(ws, "--model", "anthropic/claude-sonnet-4-5")
	s.waitFor("/help")
	s.typeLine("please keep what I typed")
	sc := s.waitFor("─ failed")
	flat := strings.Join(strings.Fields(sc), " ") // the advice may wrap
	for _, want := range []string{"› please keep what I typed", "invalid x-api-key", "put a valid key in", "ANTHROPIC_API_KEY"} {
		if !strings.Contains(flat, want) {
			t.Errorf("the screen lacks %q:\n%s", want, sc)
		}
	}
	if strings.Contains(sc, "llm: ") || strings.Contains(sc, "agent: ") {
		t.Errorf("package names reached the screen:\n%s", sc)
	}
	s.typeLine("try once more")
	sc = s.waitFor("the model declined to answer")
	if !strings.Contains(sc, "rephrase the request") {
		t.Errorf("the refusal notice says nothing to do:\n%s", sc)
	}
	reqs := srv.Requests()
	if body := string(reqs[len(reqs)-1].Body); !strings.Contains(body, "please keep what I typed") {
		t.Errorf("the failed turn's message is not in the next request: %s", body)
	}
}
