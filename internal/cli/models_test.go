package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestModels(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte(`model: local/qwen3
providers:
  local:
    type: openai-chat
    base_url: http://localhost:8080/v1
    no_key: true
    models:
      - id: qwen3
        context_window: 32768
models:
  - provider: anthropic
    id: claude-haiku-4-5
    price: {input: 2}
`), 0o644)
	f, out, _ := envFactory(home, map[string]string{"ANTHROPIC_API_KEY": "k"})
	if err := executeCmd(NewCmdModels(f)); err != nil {
		t.Fatal(err)
	}
	space := regexp.MustCompile(` {2,}`)
	rows := map[string]string{}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	for _, l := range lines {
		cols := space.Split(strings.TrimSpace(l), -1)
		rows[cols[0]] = strings.Join(cols[1:], "|")
	}
	want := map[string]string{
		"MODEL":                          "WINDOW|MAX OUT|INPUT|OUTPUT|CACHE READ|CACHE WRITE|IMAGES|KEY",
		"anthropic/claude-sonnet-4-5":    "200k|64k|$3|$15|$0.3|$3.75|yes|set",
		"anthropic/claude-haiku-4-5":     "200k|64k|$2|$5|$0.1|$1.25|yes|set", // the override's price
		"openai/gpt-4.1":                 "1.05M|32.8k|$2|$8|$0.5|$2|yes|missing OPENAI_API_KEY",
		"ollama/*":                       "32.8k|8.2k|-|-|-|-|-|not needed",
		"local/qwen3":                    "32.8k|8.2k|-|-|-|-|-|not needed",
		"prices: USD per million tokens": "",
		"default: local/qwen3":           "",
	}
	for k, v := range want {
		if got, ok := rows[k]; !ok || got != v {
			t.Errorf("row %s = %q, want %q", k, got, v)
		}
	}

	out.Reset()
	if err := executeCmd(NewCmdModels(f), "deepseek"); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "\ndeepseek/"); n != 2 || strings.Contains(out.String(), "openai/") {
		t.Errorf("filtered:\n%s", out)
	}
	if err := executeCmd(NewCmdModels(f), "nosuch"); err == nil || !strings.Contains(err.Error(), `no model matches "nosuch"`) {
		t.Errorf("err = %v", err)
	}
}

func TestModelsBadConfig(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("models: [{provider: nosuch, id: x}]\n"), 0o644)
	f, _, _ := envFactory(home, nil)
	if err := executeCmd(NewCmdModels(f)); err == nil || !strings.Contains(err.Error(), "not configured") {
		t.Errorf("err = %v", err)
	}
}
