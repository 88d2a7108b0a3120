package catalog

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func mustNew(t *testing.T, layers ...Overrides) *Catalog {
	t.Helper()
	c, err := New(layers...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

func TestBuiltinProviders(t *testing.T) {
	c := mustNew(t)
	want := []Provider{
		{Name: "anthropic", Type: TypeAnthropic, BaseURL: "https://api.anthropic.com", BaseURLEnv: "ANTHROPIC_BASE_URL", APIKeyEnv: "ANTHROPIC_API_KEY"},
		{Name: "deepseek", Type: TypeOpenAIChat, BaseURL: "https://api.deepseek.com", BaseURLEnv: "DEEPSEEK_BASE_URL", APIKeyEnv: "DEEPSEEK_API_KEY"},
		{Name: "ollama", Type: TypeOpenAIChat, BaseURL: "http://localhost:11434/v1", BaseURLEnv: "OLLAMA_BASE_URL", NoKey: true},
		{Name: "openai", Type: TypeOpenAIResponses, BaseURL: "https://api.openai.com/v1", BaseURLEnv: "OPENAI_BASE_URL", APIKeyEnv: "OPENAI_API_KEY", SendCacheKey: true},
		{Name: "openrouter", Type: TypeOpenAIChat, BaseURL: "https://openrouter.ai/api/v1", BaseURLEnv: "OPENROUTER_BASE_URL", APIKeyEnv: "OPENROUTER_API_KEY"},
	}
	if got := c.Providers(); !reflect.DeepEqual(got, want) {
		t.Errorf("Providers() =\n%+v\nwant\n%+v", got, want)
	}
}

func TestBuiltinModels(t *testing.T) {
	c := mustNew(t)
	listed := []string{
		"openai/gpt-5", "openai/gpt-5-mini", "openai/gpt-5-nano", "openai/gpt-4.1", "openai/gpt-4.1-mini",
		"openai/gpt-4o", "openai/gpt-4o-mini", "openai/o3", "openai/o4-mini",
		"anthropic/claude-opus-4-1", "anthropic/claude-sonnet-4-5", "anthropic/claude-sonnet-4",
		"anthropic/claude-haiku-4-5", "anthropic/claude-3-5-haiku",
		"deepseek/deepseek-chat", "deepseek/deepseek-reasoner",
		"openrouter/anthropic/claude-sonnet-4", "openrouter/openai/gpt-5",
	}
	for _, ref := range listed {
		p, m, err := ParseModelRef(ref)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := c.Lookup(p, m); !ok {
			t.Errorf("Lookup(%q) not found", ref)
		}
	}
	models := c.Models()
	if !slices.IsSortedFunc(models, func(a, b Model) int { return strings.Compare(a.Ref(), b.Ref()) }) {
		t.Error("Models() is not sorted by provider, then ID")
	}
	for _, m := range models {
		if _, ok := c.Provider(m.Provider); !ok {
			t.Errorf("%s: provider not in the table", m.Ref())
		}
		if m.ContextWindow <= 0 || m.MaxOutput <= 0 || m.MaxOutput > m.ContextWindow {
			t.Errorf("%s: window %d, max output %d", m.Ref(), m.ContextWindow, m.MaxOutput)
		}
		pr := m.Price
		if pr.Input < 0 || pr.Output < 0 || pr.CacheRead > pr.Input || (pr.Input > 0 && pr.CacheWrite < pr.Input) {
			t.Errorf("%s: implausible price %+v (cache reads cost less than input, writes at least input)", m.Ref(), pr)
		}
	}
}

func TestLookup(t *testing.T) {
	c := mustNew(t)
	tests := []struct {
		provider, model string
		wantOK          bool
		wantWindow      int
		wantInput       float64
	}{
		{"anthropic", "claude-sonnet-4-5", true, 200_000, 3},
		{"anthropic", "claude-sonnet-4-5-20250929", true, 200_000, 3}, // dated snapshot
		{"anthropic", "claude-sonnet-4", true, 200_000, 3},            // alias
		{"anthropic", "claude-sonnet-4-20250514", true, 200_000, 3},   // dated alias
		{"anthropic", "claude-3-5-haiku-20241022", true, 200_000, 0.80},
		{"openai", "gpt-4o-2024-08-06", true, 128_000, 2.50},
		{"openai", "gpt-5", true, 400_000, 1.25},
		{"openrouter", "anthropic/claude-sonnet-4", true, 200_000, 3},
		{"deepseek", "deepseek-reasoner", true, 128_000, 0.28},
		{"openai", "gpt-6", false, 0, 0},
		{"openai", "claude-sonnet-4-5", false, 0, 0}, // right model, wrong provider
		{"ollama", "qwen3-coder", false, 0, 0},       // only Resolve applies defaults
		{"openai", "", false, 0, 0},
		{"nope", "gpt-5", false, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.provider+"/"+tt.model, func(t *testing.T) {
			m, ok := c.Lookup(tt.provider, tt.model)
			if ok != tt.wantOK {
				t.Fatalf("ok = %v, want %v", ok, tt.wantOK)
			}
			if !ok {
				return
			}
			if m.ID != tt.model || m.Provider != tt.provider {
				t.Errorf("got %s, want the ref as asked", m.Ref())
			}
			if m.ContextWindow != tt.wantWindow || m.Price.Input != tt.wantInput {
				t.Errorf("window %d, input $%g; want %d, $%g", m.ContextWindow, m.Price.Input, tt.wantWindow, tt.wantInput)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	c := mustNew(t)
	tests := []struct {
		ref         string
		wantWindow  int
		wantOutput  int
		wantWarning []string // substrings; none means no warning
	}{
		{"anthropic/claude-haiku-4-5", 200_000, 64_000, nil},
		{"ollama/qwen3-coder", ollamaWindow, 8_192,
			[]string{"ollama/qwen3-coder is not in the model catalog", "ollama's defaults", "32768-token window"}},
		{"openai/gpt-6", DefaultContextWindow, DefaultMaxOutput,
			[]string{"openai/gpt-6 is not in the model catalog", "128000-token window", "8192 output tokens", "$0"}},
		{"nope/thing", DefaultContextWindow, DefaultMaxOutput, []string{"nope/thing is not in the model catalog"}},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			p, id, _ := ParseModelRef(tt.ref)
			m, warn := c.Resolve(p, id)
			if m.Ref() != tt.ref || m.ContextWindow != tt.wantWindow || m.MaxOutput != tt.wantOutput {
				t.Errorf("Resolve = %s window %d output %d; want %s %d %d",
					m.Ref(), m.ContextWindow, m.MaxOutput, tt.ref, tt.wantWindow, tt.wantOutput)
			}
			if len(tt.wantWarning) == 0 && warn != "" {
				t.Errorf("warning = %q, want none", warn)
			}
			if len(tt.wantWarning) > 0 && m.Price != (Price{}) {
				t.Errorf("price = %+v, want zero for an unknown model", m.Price)
			}
			for _, w := range tt.wantWarning {
				if !strings.Contains(warn, w) {
					t.Errorf("warning = %q, want it to contain %q", warn, w)
				}
			}
		})
	}
}

func TestCatalogCopiesOut(t *testing.T) {
	c := mustNew(t, Overrides{Providers: []Provider{{Name: "openrouter", Headers: map[string]string{"X-Title": "godwit"}}}})
	p, _ := c.Provider("openrouter")
	p.Headers["X-Title"] = "changed"
	m, _ := c.Lookup("anthropic", "claude-sonnet-4-0")
	m.Aliases[0] = "changed"
	for _, m := range c.Models() {
		if m.Aliases != nil {
			m.Aliases[0] = "changed"
		}
	}
	p, _ = c.Provider("openrouter")
	if !maps.Equal(p.Headers, map[string]string{"X-Title": "godwit"}) {
		t.Errorf("headers changed through a returned copy: %v", p.Headers)
	}
	if _, ok := c.Lookup("anthropic", "claude-sonnet-4"); !ok {
		t.Error("alias lost through a returned copy")
	}
	if m, _ := c.Lookup("anthropic", "claude-sonnet-4-0"); m.Aliases[0] != "claude-sonnet-4" {
		t.Errorf("aliases changed through a returned copy: %v", m.Aliases)
	}
}

// The catalog says which models take images; an override can say so of
// one it does not list.
func TestImages(t *testing.T) {
	c, err := New(Overrides{Models: []Model{{Provider: "ollama", ID: "llava", Images: true}}})
	if err != nil {
		t.Fatal(err)
	}
	for ref, want := range map[string]bool{
		"openai/gpt-5": true, "anthropic/claude-sonnet-4-5-20250929": true, "openrouter/google/gemini-2.5-pro": true,
		"deepseek/deepseek-chat": false, "ollama/llama3": false, "ollama/llava": true,
	} {
		p, id, _ := ParseModelRef(ref)
		if m, _ := c.Resolve(p, id); m.Images != want {
			t.Errorf("%s: Images = %v, want %v", ref, m.Images, want)
		}
	}
}

// ollamaWindow is builtin.json's window for an Ollama model.
const ollamaWindow = 32_768
