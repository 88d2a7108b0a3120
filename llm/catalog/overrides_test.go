package catalog

import (
	"maps"
	"strings"
	"testing"
)

func TestOverrides(t *testing.T) {
	local := Provider{Name: "local", Type: TypeOpenAIChat, BaseURL: "http://127.0.0.1:8080/v1", NoKey: true}
	tests := []struct {
		name   string
		layers []Overrides
		check  func(t *testing.T, c *Catalog)
	}{
		{
			name:   "a price override replaces only the fields it sets",
			layers: []Overrides{{Models: []Model{{Provider: "anthropic", ID: "claude-sonnet-4-5", Price: Price{Input: 2}}}}},
			check: func(t *testing.T, c *Catalog) {
				m, _ := c.Lookup("anthropic", "claude-sonnet-4-5")
				want := Price{Input: 2, Output: 15, CacheRead: 0.30, CacheWrite: 3.75}
				if m.Price != want || m.ContextWindow != 200_000 || m.MaxOutput != 64_000 {
					t.Errorf("got %+v", m)
				}
			},
		},
		{
			name:   "an override through an alias changes the listed model",
			layers: []Overrides{{Models: []Model{{Provider: "anthropic", ID: "claude-sonnet-4", ContextWindow: 1_000_000}}}},
			check: func(t *testing.T, c *Catalog) {
				for _, id := range []string{"claude-sonnet-4-0", "claude-sonnet-4", "claude-sonnet-4-20250514"} {
					if m, _ := c.Lookup("anthropic", id); m.ContextWindow != 1_000_000 {
						t.Errorf("%s: window %d, want 1000000", id, m.ContextWindow)
					}
				}
			},
		},
		{
			name: "a new model without limits takes its provider's default or the global one",
			layers: []Overrides{{Models: []Model{
				{Provider: "openai", ID: "gpt-6", Price: Price{Input: 9}},
				{Provider: "ollama", ID: "qwen3-coder"},
			}}},
			check: func(t *testing.T, c *Catalog) {
				m, ok := c.Lookup("openai", "gpt-6")
				if !ok || m.ContextWindow != DefaultContextWindow || m.MaxOutput != DefaultMaxOutput || m.Price.Input != 9 {
					t.Errorf("openai/gpt-6 = %+v, %v", m, ok)
				}
				m, ok = c.Lookup("ollama", "qwen3-coder")
				if !ok || m.ContextWindow != ollamaWindow {
					t.Errorf("ollama/qwen3-coder = %+v, %v", m, ok)
				}
				if _, warn := c.Resolve("ollama", "qwen3-coder"); warn != "" {
					t.Errorf("a configured model still warns: %q", warn)
				}
			},
		},
		{
			name: "a new provider and its models",
			layers: []Overrides{{
				Providers: []Provider{local},
				Models: []Model{
					{Provider: "local", ID: "", ContextWindow: 65_536, MaxOutput: 4_096},
					{Provider: "local", ID: "big", ContextWindow: 262_144},
				},
			}},
			check: func(t *testing.T, c *Catalog) {
				if p, ok := c.Provider("local"); !ok || p.Type != TypeOpenAIChat || !p.NoKey {
					t.Errorf("local = %+v, %v", p, ok)
				}
				if m, _ := c.Lookup("local", "big"); m.ContextWindow != 262_144 || m.MaxOutput != 4_096 {
					t.Errorf("local/big = %+v, want its window and the provider's default output", m)
				}
				if m, warn := c.Resolve("local", "other"); m.ContextWindow != 65_536 || !strings.Contains(warn, "local's defaults") {
					t.Errorf("local/other = %+v, %q", m, warn)
				}
			},
		},
		{
			name:   "a provider override keeps what it does not set",
			layers: []Overrides{{Providers: []Provider{{Name: "openai", BaseURL: "https://proxy.example/v1"}}}},
			check: func(t *testing.T, c *Catalog) {
				p, _ := c.Provider("openai")
				if p.BaseURL != "https://proxy.example/v1" || p.Type != TypeOpenAIResponses ||
					p.APIKeyEnv != "OPENAI_API_KEY" || p.BaseURLEnv != "OPENAI_BASE_URL" || !p.SendCacheKey {
					t.Errorf("openai = %+v", p)
				}
			},
		},
		{
			name: "headers merge by key across layers; an empty value removes",
			layers: []Overrides{
				{Providers: []Provider{{Name: "openrouter", Headers: map[string]string{"X-Title": "godwit", "HTTP-Referer": "a"}}}},
				{Providers: []Provider{{Name: "openrouter", Headers: map[string]string{"X-Title": "", "HTTP-Referer": "b"}}}},
			},
			check: func(t *testing.T, c *Catalog) {
				p, _ := c.Provider("openrouter")
				if want := map[string]string{"HTTP-Referer": "b"}; !maps.Equal(p.Headers, want) {
					t.Errorf("headers = %v, want %v", p.Headers, want)
				}
			},
		},
		{
			name: "later layers win",
			layers: []Overrides{
				{Models: []Model{{Provider: "openai", ID: "gpt-5", MaxOutput: 1000}}},
				{Models: []Model{{Provider: "openai", ID: "gpt-5", MaxOutput: 2000}}},
			},
			check: func(t *testing.T, c *Catalog) {
				if m, _ := c.Lookup("openai", "gpt-5"); m.MaxOutput != 2000 {
					t.Errorf("max output = %d, want 2000", m.MaxOutput)
				}
			},
		},
		{
			name:   "a dated snapshot override starts from its listed model",
			layers: []Overrides{{Models: []Model{{Provider: "anthropic", ID: "claude-sonnet-4-5-20250929", Price: Price{Output: 12}}}}},
			check: func(t *testing.T, c *Catalog) {
				m, _ := c.Lookup("anthropic", "claude-sonnet-4-5-20250929")
				if m.Price.Output != 12 || m.Price.Input != 3 || m.ContextWindow != 200_000 {
					t.Errorf("dated = %+v", m)
				}
				if m, _ := c.Lookup("anthropic", "claude-sonnet-4-5"); m.Price.Output != 15 {
					t.Errorf("the listed model changed too: %+v", m)
				}
			},
		},
		{
			name:   "the ollama default can be overridden",
			layers: []Overrides{{Models: []Model{{Provider: "ollama", ContextWindow: 131_072}}}},
			check: func(t *testing.T, c *Catalog) {
				if m, _ := c.Resolve("ollama", "llama3.3"); m.ContextWindow != 131_072 || m.MaxOutput != 8_192 {
					t.Errorf("ollama/llama3.3 = %+v", m)
				}
			},
		},
		{
			name:   "aliases can be replaced",
			layers: []Overrides{{Models: []Model{{Provider: "anthropic", ID: "claude-sonnet-4-0", Aliases: []string{"sonnet4"}}}}},
			check: func(t *testing.T, c *Catalog) {
				if _, ok := c.Lookup("anthropic", "sonnet4"); !ok {
					t.Error("new alias not found")
				}
				if _, ok := c.Lookup("anthropic", "claude-sonnet-4"); ok {
					t.Error("old alias still found")
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.check(t, mustNew(t, tt.layers...))
		})
	}
}

func TestOverrideErrors(t *testing.T) {
	tests := []struct {
		name string
		ov   Overrides
		want []string
	}{
		{"new provider without type",
			Overrides{Providers: []Provider{{Name: "local", BaseURL: "http://x/v1", NoKey: true}}},
			[]string{`provider "local" has no type; set type to anthropic, openai-responses or openai-chat`}},
		{"unknown type",
			Overrides{Providers: []Provider{{Name: "openai", Type: "openai-complete"}}},
			[]string{`provider "openai" has unknown type "openai-complete"`}},
		{"no base_url",
			Overrides{Providers: []Provider{{Name: "local", Type: TypeOpenAIChat, NoKey: true}}},
			[]string{`provider "local" has no base_url`}},
		{"base_url without scheme",
			Overrides{Providers: []Provider{{Name: "local", Type: TypeOpenAIChat, BaseURL: "localhost:8080/v1", NoKey: true}}},
			[]string{`must start with http:// or https://`}},
		{"no key variable",
			Overrides{Providers: []Provider{{Name: "local", Type: TypeOpenAIChat, BaseURL: "http://x/v1"}}},
			[]string{`provider "local" names no api_key_env`, "no_key"}},
		{"slash in a provider name",
			Overrides{Providers: []Provider{{Name: "my/proxy", Type: TypeOpenAIChat, BaseURL: "http://x/v1", NoKey: true}}},
			[]string{`provider name "my/proxy" contains '/'`}},
		{"model of an unknown provider",
			Overrides{Models: []Model{{Provider: "nope", ID: "m"}}},
			[]string{`model "nope/m" belongs to provider "nope", which is not configured`, "anthropic, deepseek, ollama, openai, openrouter"}},
		{"model without a provider",
			Overrides{Models: []Model{{ID: "m"}}},
			[]string{`model "m" names no provider`}},
		{"negative price",
			Overrides{Models: []Model{{Provider: "openai", ID: "gpt-5", Price: Price{Output: -1}}}},
			[]string{`model "openai/gpt-5" has a negative price`}},
		{"negative window",
			Overrides{Models: []Model{{Provider: "openai", ID: "gpt-5", ContextWindow: -1}}},
			[]string{`negative context window`}},
		{"unknown reasoning effort",
			Overrides{Models: []Model{{Provider: "openrouter", ID: "anthropic/claude-sonnet-4.5", Reasoning: "max"}}},
			[]string{`has reasoning "max"; use low, medium, high`}},
		{"every error is reported",
			Overrides{
				Providers: []Provider{{Name: "a", Type: "x", BaseURL: "http://a", NoKey: true}},
				Models:    []Model{{Provider: "b", ID: "m"}},
			},
			[]string{`provider "a" has unknown type "x"`, `model "b/m" belongs to provider "b"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(tt.ov)
			if err == nil {
				t.Fatalf("New succeeded: %v", c.Providers())
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %q, want it to contain %q", err, w)
				}
			}
			if !strings.HasPrefix(err.Error(), "catalog: ") {
				t.Errorf("err = %q, want the package prefix", err)
			}
		})
	}
}

func TestProviderEnv(t *testing.T) {
	env := func(m map[string]string) func(string) string {
		return func(k string) string { return m[k] }
	}
	openai := Provider{Name: "openai", BaseURL: "https://api.openai.com/v1", BaseURLEnv: "OPENAI_BASE_URL", APIKeyEnv: "OPENAI_API_KEY"}
	ollama := Provider{Name: "ollama", BaseURL: "http://localhost:11434/v1", NoKey: true}
	tests := []struct {
		name    string
		p       Provider
		env     map[string]string
		wantURL string
		wantKey string
		wantErr string
	}{
		{"defaults", openai, map[string]string{"OPENAI_API_KEY": "sk-1"}, "https://api.openai.com/v1", "sk-1", ""},
		{"env URL wins, trailing slash dropped", openai,
			map[string]string{"OPENAI_API_KEY": " sk-1\n", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1/"}, "http://127.0.0.1:9/v1", "sk-1", ""},
		{"missing key names the variable", openai, nil, "https://api.openai.com/v1", "",
			`catalog: provider "openai" needs an API key: set OPENAI_API_KEY in the environment`},
		{"no key needed", ollama, nil, "http://localhost:11434/v1", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.URL(env(tt.env)); got != tt.wantURL {
				t.Errorf("URL = %q, want %q", got, tt.wantURL)
			}
			key, err := tt.p.APIKey(env(tt.env))
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Errorf("APIKey err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || key != tt.wantKey {
				t.Errorf("APIKey = %q, %v; want %q", key, err, tt.wantKey)
			}
		})
	}
}

func TestReasoningOverride(t *testing.T) {
	c, err := New(Overrides{Models: []Model{{Provider: "openrouter", ID: "anthropic/claude-sonnet-4.5", Reasoning: "high"}}})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := c.Resolve("openrouter", "anthropic/claude-sonnet-4.5")
	if m.Reasoning != "high" || m.ContextWindow != 200_000 {
		t.Errorf("the override lost the effort or the catalog's facts: %+v", m)
	}
	if m, _ := c.Resolve("openrouter", "openai/gpt-5"); m.Reasoning != "" {
		t.Errorf("another model got the effort: %+v", m)
	}
}
