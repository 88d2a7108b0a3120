package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestLoad(t *testing.T) {
	home := t.TempDir()
	c, err := Load(home, env(nil))
	if err != nil || c.Model != "" {
		t.Fatalf("missing file: %+v, %v", c, err)
	}
	yaml := `model: anthropic/claude-sonnet-4-5
fallback:
  anthropic/claude-sonnet-4-5: [openai/gpt-5]
providers:
  local:
    type: openai-chat
    base_url: http://127.0.0.1:8000/v1
    no_key: true
    models:
      - id: qwen3
        context_window: 32768
models:
  - provider: openai
    id: gpt-5
    price: {input: 1, output: 2}
`
	if err := os.WriteFile(filepath.Join(home, FileName), []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err = Load(home, env(map[string]string{"GODWIT_MODEL": "local/qwen3"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Model != "local/qwen3" {
		t.Errorf("GODWIT_MODEL must win over the file: %q", c.Model)
	}
	if got := c.Fallback["anthropic/claude-sonnet-4-5"]; len(got) != 1 || got[0] != "openai/gpt-5" {
		t.Errorf("fallback = %v", got)
	}
	cat, err := c.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	m, ok := cat.Lookup("local", "qwen3")
	if !ok || m.ContextWindow != 32768 {
		t.Errorf("local/qwen3 = %+v, %v", m, ok)
	}
	if m, _ := cat.Lookup("openai", "gpt-5"); m.Price.Input != 1 || m.Price.Output != 2 {
		t.Errorf("price override = %+v", m.Price)
	}
}

func TestLoadBadFileSaysWhatToDo(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, FileName), []byte("model: [unclosed"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(home, env(nil))
	if err == nil || !strings.Contains(err.Error(), "config.yaml:1: ") || !strings.Contains(err.Error(), "fix the file") {
		t.Errorf("err = %v", err)
	}
}

func TestParseNamesEachProblemWithItsLine(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string // each a line of the error
	}{
		{"misspelt top-level key", "model: a/b\nretyr:\n  max_attempts: 2\n",
			[]string{"config.yaml:2: unknown key retyr: did you mean retry?"}},
		{"misspelt nested key", "providers:\n  local:\n    type: openai-chat\n    base_ur: http://x/v1\n",
			[]string{"config.yaml:4: unknown key providers.local.base_ur: did you mean base_url?"}},
		{"key in a list item", "models:\n  - id: m\n    provider: p\n    contxt_window: 9000\n",
			[]string{"config.yaml:4: unknown key models.0.contxt_window: did you mean context_window?"}},
		{"mcp server key", "mcp:\n  servers:\n    fs:\n      comand: npx\n",
			[]string{"config.yaml:4: unknown key mcp.servers.fs.comand: did you mean command?"}},
		{"no near key lists the valid ones", "verbose: true\n",
			[]string{"config.yaml:1: unknown key verbose; the keys here are context_window, fallback, mail, max_steps, mcp, memory, model, models, providers, retry, shell, summary_model, tools"}},
		{"every problem at once", "retyr: {}\nmax_stesp: 3\n",
			[]string{"config.yaml:1: unknown key retyr: did you mean retry?", "config.yaml:2: unknown key max_stesp: did you mean max_steps?"}},
		{"wrong type", "max_steps: many\n",
			[]string{"config.yaml:1: cannot unmarshal text `many` into a whole number"}},
		{"window too small", "context_window: 10\n",
			[]string{"config.yaml:1: context_window: 10 tokens is too small: godwit needs at least 8192"}},
		{"negative steps", "max_steps: -1\n", []string{"config.yaml:1: max_steps: -1: give 1 or more model calls, or leave it out for the default"}},
		{"no steps", "max_steps: 0\n", []string{"config.yaml:1: max_steps: 0: give 1 or more model calls"}},
		{"negative shell limit", "shell:\n  job_log_mb: -1\n", []string{"config.yaml:2: shell.job_log_mb: must be 1 or more"}},
		{"bad deferred", "tools:\n  deferred: sometimes\n", []string{`config.yaml:2: tools.deferred: "sometimes": use off, auto or on`}},
		{"idle timeout too short", "providers:\n  local:\n    idle_timeout: 300ms\n", []string{"config.yaml:3: providers.local.idle_timeout: 300ms is too short: give a duration like 10m"}},
		{"idle timeout without a unit", "providers:\n  local:\n    idle_timeout: 300\n", []string{"config.yaml:3: cannot unmarshal a number `300` into a duration like 10m"}},
		{"syntax", "model: [unclosed\n", []string{"config.yaml:1: did not find expected"}},
		{"not a mapping", "- a\n- b\n", []string{"config.yaml:1: the file must map keys to values"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.yaml), "config.yaml")
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v (%T), want *Error", err, err)
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != len(tc.want) {
				t.Fatalf("error:\n%s\nwant %d lines", err, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(lines[i], w) && !strings.Contains(lines[i], w) {
					t.Errorf("line %d:\n got %s\nwant %s", i, lines[i], w)
				}
			}
		})
	}
}

func TestParseAcceptsEveryKeyItDocuments(t *testing.T) {
	full := `model: anthropic/claude-sonnet-4-5
fallback:
  anthropic/claude-sonnet-4-5: [openai/gpt-5]
providers:
  local:
    type: openai-chat
    base_url: http://127.0.0.1:8000/v1
    api_key_env: LOCAL_KEY
    headers: {X-A: b}
    no_key: false
    send_cache_key: true
    idle_timeout: 15m
    models:
      - {id: qwen3, context_window: 32768, max_output: 4096, price: {input: 1, output: 2, cache_read: 0.1, cache_write: 1.25}}
models:
  - {provider: openai, id: gpt-5, price: {input: 1}}
retry: {max_attempts: 5, max_delay_seconds: 30}
summary_model: openai/gpt-5-nano
context_window: 200000
max_steps: 80
memory:
  embeddings: {base_url: http://x/v1, model: e, api_key_env: K}
mcp:
  servers:
    fs: {type: stdio, command: npx, args: [a], env: {A: b}, disabled: true, timeout_s: 5}
    web: {url: http://x/mcp, headers: {A: b}}
  project: ["*"]
tools: {deferred: auto}
shell: {max_processes: 4096, max_file_mb: 1024, job_log_mb: 8}
`
	if _, err := Parse([]byte(full), "config.yaml"); err != nil {
		t.Fatal(err)
	}
	for _, empty := range []string{"", "# only a comment\n"} {
		if _, err := Parse([]byte(empty), "config.yaml"); err != nil {
			t.Errorf("%q: %v", empty, err)
		}
	}
}

func TestLoadRejectsAnUnknownKey(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, FileName)
	if err := os.WriteFile(path, []byte("retyr:\n  max_attempts: 2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(home, env(nil))
	if err == nil || err.Error() != path+":1: unknown key retyr: did you mean retry?" {
		t.Errorf("err = %v", err)
	}
}
