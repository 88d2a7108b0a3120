package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/store/storetest"
	"github.com/godwit/godwit/llm/llmtest"
)

// These tests build the real binary and run it as a user would, against
// llmtest speaking the OpenAI Chat Completions wire format.

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "godwit-bin-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "godwit")
	// go run keeps the linked binary in the build cache, keyed by the
	// sources and flags, so every package that drives godwit shares one
	// link; -exec cp copies it here. It is go build's binary without DWARF.
	build := exec.Command("go", "run", "-exec", "cp", ".", binary)
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic("building godwit: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	stdout, stderr string
	code           int
}

// godwit runs the binary in workdir with a fresh GODWIT_HOME whose config
// points the "local" provider at url.
func godwit(t *testing.T, home, workdir string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = workdir
	cmd.Env = append(baseEnv(), "GODWIT_HOME="+home)
	cmd.Env = append(cmd.Env, env...)
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

// baseEnv is the test's environment without godwit's variables or any
// provider key, so a developer's own setup cannot leak into the results.
func baseEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "GODWIT_") || strings.HasSuffix(name, "_API_KEY") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

func setup(t *testing.T, url string) (home, ws string) {
	t.Helper()
	home, ws = t.TempDir(), t.TempDir()
	cfg := "providers:\n  local:\n    type: openai-chat\n    base_url: " + url + "/v1\n    no_key: true\n"
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return home, ws
}

func TestRunJSONWithToolCall(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewTestServer(t,
		llmtest.ChatReply(llmtest.ChatToolCall("call_1", "file_read", `{"path":"hello.txt"}`), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(900, 12)),
		llmtest.ChatTextReply("hello.txt says hi", 950, 6),
	)
	home, ws := setup(t, srv.URL())
	if err := os.WriteFile(filepath.Join(ws, "hello.txt"), []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := godwit(t, home, ws, nil, "run", "--json", "--model", "local/test-model", "--prompt", "what does hello.txt say?")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	var types []string
	var sid string
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	for sc.Scan() {
		var e struct {
			Type      string `json:"type"`
			SessionID string `json:"session_id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("stdout line is not JSON: %q", sc.Text())
		}
		if e.SessionID == "" || (sid != "" && e.SessionID != sid) {
			t.Fatalf("event %s has session_id %q", e.Type, e.SessionID)
		}
		sid = e.SessionID
		types = append(types, e.Type)
	}
	want := "session.started turn.started model.request model.response tool.started tool.finished model.request model.response turn.finished"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("events:\n got %s\nwant %s", got, want)
	}
	llmtest.CheckChat(t, srv.Requests())
	second := string(srv.Requests()[1].Body)
	if !strings.Contains(second, `1\thi`) {
		t.Errorf("the tool result did not reach the model: %s", second)
	}

	st := storetest.OpenAt(t, filepath.Join(home, "godwit.db"))
	calls, _ := st.ModelCalls(context.Background(), sid)
	tools, _ := st.ToolCalls(context.Background(), sid)
	if len(calls) != 2 || calls[0].Usage.InputTokens != 900 || len(tools) != 1 || tools[0].Name != "file_read" {
		t.Errorf("database: %d model calls %+v, %d tool calls", len(calls), calls, len(tools))
	}
}

func TestRunIsReadOnlyByDefault(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewTestServer(t,
		llmtest.ChatReply(llmtest.ChatToolCall("c1", "file_write", `{"path":"x.txt","content":"x"}`), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(10, 1)),
		llmtest.ChatTextReply("could not write", 10, 1),
	)
	home, ws := setup(t, srv.URL())
	r := godwit(t, home, ws, nil, "run", "--model", "local/m", "-p", "write x.txt")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(ws, "x.txt")); err == nil {
		t.Error("a read-only run wrote a file")
	}
	if body := string(srv.Requests()[1].Body); !strings.Contains(body, "DENIED") || !strings.Contains(body, "--allow-write") {
		t.Errorf("the denial does not say how to allow writes: %s", body)
	}
}

func TestExitCodesAndErrors(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewTestServer(t, llmtest.JSON(401, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`))
	home, ws := setup(t, srv.URL())
	tests := []struct {
		name string
		env  []string
		args []string
		code int
		want string
	}{
		{"no prompt", nil, []string{"run", "--model", "local/m"}, 2, "no prompt"},
		{"unknown flag", nil, []string{"run", "--nope"}, 2, "unknown flag"},
		{"no model and no key", nil, []string{"run", "-p", "hi"}, 2, "ANTHROPIC_API_KEY"},
		{"missing key names the variable", nil, []string{"run", "--model", "anthropic/claude-sonnet-4-5", "-p", "hi"}, 1, "ANTHROPIC_API_KEY"},
		{"unknown provider", nil, []string{"run", "--model", "nope/m", "-p", "hi"}, 2, `unknown provider "nope" in nope/m (the providers are anthropic, deepseek, local,`},
		{"auth failure", nil, []string{"run", "--model", "local/m", "-p", "hi"}, 1, "Incorrect API key"},
		{"version", nil, []string{"version"}, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := godwit(t, home, ws, tc.env, tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d (want %d), stderr %q (want %q)", r.code, tc.code, r.stderr, tc.want)
			}
		})
	}
}

func TestDemo(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the demo needs the go command")
	}
	home := t.TempDir()
	dir := t.TempDir()
	r := godwit(t, home, t.TempDir(), nil, "demo", "--dir", dir)
	if r.code != 0 {
		t.Fatalf("demo exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "passes") || !strings.Contains(r.stderr, "godwit inspect trace") {
		t.Errorf("demo output:\n%s\n%s", r.stdout, r.stderr)
	}
	src, _ := os.ReadFile(filepath.Join(dir, "repo", "calc.go"))
	if !strings.Contains(string(src), "return a + b") {
		t.Error("the demo did not fix calc.go")
	}
}

func TestRunVerify(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewTestServer(t,
		llmtest.ChatTextReply("Done.", 10, 1),
		llmtest.ChatTextReply("Fixed for real.", 10, 1),
	)
	home, ws := setup(t, srv.URL())
	// The check fails until the model has answered twice: a marker file
	// is created by the first verify run.
	check := `test -f .verified || { touch .verified; echo "FAIL: x_test.go:7"; exit 1; }`
	r := godwit(t, home, ws, nil, "run", "--model", "local/m", "--yes", "--verify", check, "-p", "fix it")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "verify #1: "+check+" -> exit 1") || !strings.Contains(r.stderr, "verify #2: "+check+" -> exit 0") {
		t.Errorf("verify lines missing:\n%s", r.stderr)
	}
	if !strings.Contains(string(srv.Requests()[1].Body), "x_test.go:7") {
		t.Error("the failing output did not go back to the model")
	}

	srv2 := llmtest.NewTestServer(t, llmtest.ChatTextReply("Done.", 10, 1), llmtest.ChatTextReply("Done again.", 10, 1))
	home2, ws2 := setup(t, srv2.URL())
	r = godwit(t, home2, ws2, nil, "run", "--model", "local/m", "--verify", "exit 3", "--verify-rounds", "1", "-p", "fix it")
	if r.code != 1 || !strings.Contains(r.stderr, "still fails") {
		t.Errorf("a verify that keeps failing must exit 1: exit %d\n%s", r.code, r.stderr)
	}
}
