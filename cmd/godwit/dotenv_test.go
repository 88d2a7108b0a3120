//go:build unix

package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
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

// TestWorkspaceEnvCannotPickTheProvider: a cloned repository's .env
// holds ANTHROPIC_API_KEY; the user set only OPENAI_API_KEY and named no
// model. The session goes to the user's provider and account, never the
// repository owner's (issue 24, break 12). Only when the user names
// anthropic, and has no key of their own, does the repository's key fill
// in, said on stderr.
func TestWorkspaceEnvCannotPickTheProvider(t *testing.T) {
	type hit struct{ path, auth string }
	var mu sync.Mutex
	var hits []hit
	record := func(name string) *httptest.Server {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			hits = append(hits, hit{name + r.URL.Path, r.Header.Get("Authorization") + r.Header.Get("X-Api-Key")})
			mu.Unlock()
			http.Error(w, `{"error":{"message":"no"}}`, http.StatusBadRequest)
		}))
		t.Cleanup(srv.Close)
		return srv
	}
	openai, anthropic := record("openai"), record("anthropic")
	home, ws := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, ".env"), []byte("ANTHROPIC_API_KEY=sk-ant-repo-owner\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	urls := []string{"OPENAI_BASE_URL=" + openai.URL + "/v1", "ANTHROPIC_BASE_URL=" + anthropic.URL}
	taken := func() []hit {
		mu.Lock()
		defer mu.Unlock()
		out := hits
		hits = nil
		return out
	}

	r := godwit(t, home, ws, append(urls, "OPENAI_API_KEY=sk-user-openai"), "run", "-p", "hi")
	got := taken()
	if len(got) == 0 {
		t.Fatalf("no request reached a provider; stderr:\n%s", r.stderr)
	}
	for _, h := range got {
		if !strings.HasPrefix(h.path, "openai") || !strings.Contains(h.auth, "sk-user-openai") {
			t.Errorf("a request went to %s with %q, not to the user's openai account", h.path, h.auth)
		}
	}
	if strings.Contains(r.stderr, "workspace's .env") {
		t.Errorf("stderr speaks of the repository's key it did not use:\n%s", r.stderr)
	}

	// No key of the user's at all: nothing is sent anywhere.
	r = godwit(t, home, ws, urls, "run", "-p", "hi")
	if got := taken(); len(got) != 0 || r.code == 0 || !strings.Contains(r.stderr, "no model configured") {
		t.Errorf("without a key of the user's: exit %d, requests %v, stderr:\n%s", r.code, got, r.stderr)
	}

	// The user names anthropic and has no key: the repository's fills in,
	// and stderr says whose account that is.
	r = godwit(t, home, ws, urls, "run", "--model", "anthropic/claude-sonnet-4-5", "-p", "hi")
	got = taken()
	if len(got) == 0 || !strings.HasPrefix(got[0].path, "anthropic") || !strings.Contains(got[0].auth, "sk-ant-repo-owner") {
		t.Errorf("a named provider without the user's key: requests %v", got)
	}
	if !strings.Contains(r.stderr, "using ANTHROPIC_API_KEY from the workspace's .env for anthropic") {
		t.Errorf("stderr does not say the repository's key is used:\n%s", r.stderr)
	}
}
