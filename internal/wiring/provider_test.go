package wiring

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/config"
	"github.com/godwit/godwit/llm/catalog"
	"github.com/godwit/godwit/llm/retry"
)

func TestFallbackWithoutItsKeyIsSkippedOnce(t *testing.T) {
	cfg := config.Config{Fallback: map[string][]string{
		"anthropic/claude-sonnet-4-5": {"openai/gpt-5", "deepseek/deepseek-chat"},
	}}
	cat, err := cfg.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		env      map[string]string
		chained  bool
		warnings []string
	}{
		{"only the main key", map[string]string{"ANTHROPIC_API_KEY": "k"}, false,
			[]string{"fallback openai/gpt-5 is skipped: OPENAI_API_KEY is not set", "fallback deepseek/deepseek-chat is skipped: DEEPSEEK_API_KEY is not set"}},
		{"one fallback key", map[string]string{"ANTHROPIC_API_KEY": "k", "DEEPSEEK_API_KEY": "k"}, true,
			[]string{"fallback openai/gpt-5 is skipped: OPENAI_API_KEY is not set"}},
		{"every key", map[string]string{"ANTHROPIC_API_KEY": "k", "DEEPSEEK_API_KEY": "k", "OPENAI_API_KEY": "k"}, true, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
			pm, err := NewProvider(cfg, cat, "anthropic/claude-sonnet-4-5", func(k string) string { return tc.env[k] }, log)
			if err != nil {
				t.Fatal(err)
			}
			_, isChain := pm.Provider.(*retry.Chain)
			if isChain != tc.chained {
				t.Errorf("provider %T; want a fallback chain: %v", pm.Provider, tc.chained)
			}
			lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
			if logs.Len() == 0 {
				lines = nil
			}
			if len(lines) != len(tc.warnings) {
				t.Fatalf("warnings:\n%s\nwant %d", logs.String(), len(tc.warnings))
			}
			for i, w := range tc.warnings {
				if !strings.Contains(lines[i], w) {
					t.Errorf("warning %d = %s, want %q", i, lines[i], w)
				}
			}
		})
	}
}

func TestBadModelsAreInputErrors(t *testing.T) {
	cat, err := catalog.New(catalog.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	env := func(string) string { return "k" }
	tests := []struct {
		name, ref string
		cfg       config.Config
		want      string
	}{
		{"unknown provider", "antropic/claude-sonnet-4-5", config.Config{}, `unknown provider "antropic" in antropic/claude-sonnet-4-5: did you mean anthropic/claude-sonnet-4-5?`},
		{"no provider", "gpt5", config.Config{}, `model "gpt5" names no provider`},
		{"no provider, a known model", "gpt-5", config.Config{}, `did you mean openai/gpt-5 or openrouter/openai/gpt-5?`},
		{"fallback with an unknown provider", "anthropic/claude-sonnet-4-5",
			config.Config{Fallback: map[string][]string{"anthropic/claude-sonnet-4-5": {"nope/m"}}}, "config.yaml: fallback nope/m for anthropic/claude-sonnet-4-5"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewProvider(tc.cfg, cat, tc.ref, env, slog.New(slog.DiscardHandler))
			var ie *InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v (%T); want an *InputError with %q", err, err, tc.want)
			}
		})
	}
	// A missing key is not bad usage: the command was right, the
	// environment is not.
	_, err = NewProvider(config.Config{}, cat, "anthropic/claude-sonnet-4-5", func(string) string { return "" }, slog.New(slog.DiscardHandler))
	var ie *InputError
	var ke *catalog.KeyError
	if errors.As(err, &ie) || !errors.As(err, &ke) || ke.Env != "ANTHROPIC_API_KEY" {
		t.Errorf("missing key: %v", err)
	}
}

func TestUnknownModelWarningSuggestsAKnownOne(t *testing.T) {
	cat, err := catalog.New(catalog.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	pm, err := NewProvider(config.Config{}, cat, "anthropic/claude-sonet-4-5", func(string) string { return "k" }, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(pm.Warning, "anthropic/claude-sonet-4-5 is not in the model catalog") ||
		!strings.Contains(pm.Warning, "did you mean anthropic/claude-sonnet-4-5?") {
		t.Errorf("warning = %q", pm.Warning)
	}
}
