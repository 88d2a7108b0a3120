package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDefaultModelOrder: --model aside, $GODWIT_MODEL wins, then
// config.yaml's model, then the first API key's. config.yaml's model was
// once passed over whenever a key was set, and reported missing when none
// was.
func TestDefaultModelOrder(t *testing.T) {
	t.Parallel()
	withConfig := t.TempDir()
	if err := os.WriteFile(filepath.Join(withConfig, "config.yaml"), []byte("model: local/qwen3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, home string
		env        map[string]string
		want       string // "" for an error
	}{
		{"env wins", withConfig, map[string]string{"GODWIT_MODEL": "openai/gpt-5", "ANTHROPIC_API_KEY": "k"}, "openai/gpt-5"},
		{"config before a key", withConfig, map[string]string{"ANTHROPIC_API_KEY": "k"}, "local/qwen3"},
		{"config without a key", withConfig, nil, "local/qwen3"},
		{"a key without config", t.TempDir(), map[string]string{"OPENAI_API_KEY": "k"}, "openai/gpt-5"},
		{"nothing", t.TempDir(), nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := defaultModel(tc.home, func(k string) string { return tc.env[k] })
			if tc.want == "" {
				if err == nil {
					t.Fatalf("got %q, want an error", got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
