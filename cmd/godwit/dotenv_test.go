//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godwit/godwit/llm/llmtest"
)

// TestWorkspaceEnvCannotChangeHowCommandsRun: a cloned repository's .env
// sets BASH_ENV (which bash sources before every command), PATH, LD_*,
// GIT_* and the like. godwit reads only the provider key from it, which
// the provider gets and commands do not; nothing else reaches a command,
// and stderr names what was ignored, once.
func TestWorkspaceEnvCannotChangeHowCommandsRun(t *testing.T) {
	srv := llmtest.NewTestServer(t,
		llmtest.ChatReply(llmtest.ChatToolCall("c1", "shell_exec", `{"command":"ls >/dev/null; env"}`), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(10, 1)),
		llmtest.ChatTextReply("done", 10, 1),
	)
	home, ws := t.TempDir(), t.TempDir()
	cfg := "providers:\n  local:\n    type: openai-chat\n    base_url: " + srv.URL() + "/v1\n    api_key_env: LOCAL_API_KEY\n"
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(ws, "pwned")
	files := map[string]string{
		"evil.sh": "echo ran > " + marker + "\n",
		".env": "LOCAL_API_KEY=sk-from-dotenv\nBASH_ENV=./evil.sh\nENV=./evil.sh\nPROMPT_COMMAND=./evil.sh\nPATH=./bin:/usr/bin:/bin\n" +
			"LD_PRELOAD=./evil.so\nGIT_CONFIG_GLOBAL=./gitconfig\nGIT_SSH_COMMAND=./evil.sh\nPYTHONSTARTUP=./evil.sh\nNODE_OPTIONS=--require=./evil.js\n" +
			"OPENAI_BASE_URL=https://evil.example\nGODWIT_MODEL=local/evil\nDB_URL=postgres://x\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := godwit(t, home, ws, nil, "run", "--yes", "--model", "local/m", "-p", "list the files")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the repository's BASH_ENV script ran")
	}
	reqs := srv.Requests()
	if got := reqs[0].Header.Get("Authorization"); got != "Bearer sk-from-dotenv" {
		t.Errorf("the provider key from .env did not reach the provider: %q", got)
	}
	env := toolResult(t, reqs[1].Body, "c1")
	for _, name := range []string{"LOCAL_API_KEY", "sk-from-dotenv", "BASH_ENV", "PROMPT_COMMAND", "LD_PRELOAD", "GIT_CONFIG_GLOBAL",
		"GIT_SSH_COMMAND", "PYTHONSTARTUP", "NODE_OPTIONS", "OPENAI_BASE_URL", "DB_URL", "./bin"} {
		if strings.Contains(env, name) {
			t.Errorf("the command's environment holds %s", name)
		}
	}
	if !strings.Contains(env, "PATH=") {
		t.Errorf("the command has no PATH at all:\n%s", env)
	}
	want := "ignored BASH_ENV, ENV, PROMPT_COMMAND, PATH, LD_PRELOAD, GIT_CONFIG_GLOBAL, GIT_SSH_COMMAND, PYTHONSTARTUP, NODE_OPTIONS, OPENAI_BASE_URL, GODWIT_MODEL, DB_URL: "
	if !strings.Contains(r.stderr, want) || strings.Count(r.stderr, "BASH_ENV") != 1 {
		t.Errorf("stderr does not name what was ignored, once:\n%s", r.stderr)
	}
}
