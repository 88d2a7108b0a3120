package config

import (
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
	if err == nil || !strings.Contains(err.Error(), "fix the file") {
		t.Errorf("err = %v", err)
	}
}
