package catalog

import (
	"fmt"
	"math"
	"testing"

	"github.com/godwit/godwit/llm"
)

func TestCost(t *testing.T) {
	sonnet := Price{Input: 3, Output: 15, CacheRead: 0.30, CacheWrite: 3.75}
	tests := []struct {
		name  string
		price Price
		usage llm.Usage
		want  float64
	}{
		{"nothing", sonnet, llm.Usage{}, 0},
		{"plain input and output", Price{Input: 1.25, Output: 10},
			llm.Usage{InputTokens: 2_000_000, OutputTokens: 1_000_000}, 12.5},
		{"cached share priced apart", sonnet,
			// 300k uncached*3 + 600k read*0.30 + 100k written*3.75 + 10k out*15
			llm.Usage{InputTokens: 1_000_000, CacheReadTokens: 600_000, CacheWriteTokens: 100_000, OutputTokens: 10_000},
			0.9 + 0.18 + 0.375 + 0.15},
		{"reasoning is inside output, not added", Price{Output: 10},
			llm.Usage{OutputTokens: 1_000_000, ReasoningTokens: 800_000}, 10},
		{"inconsistent usage never goes negative", sonnet,
			llm.Usage{InputTokens: 100, CacheReadTokens: 1_000_000}, 0.30},
		{"unknown model costs nothing", Price{}, llm.Usage{InputTokens: 5_000, OutputTokens: 5_000}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.price.Cost(tt.usage); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("Cost = %.9f, want %.9f", got, tt.want)
			}
		})
	}
}

func TestParseModelRef(t *testing.T) {
	const how = "name a model as provider/model, e.g. anthropic/claude-sonnet-4-5"
	tests := []struct {
		ref, provider, model, err string
	}{
		{"anthropic/claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5", ""},
		{"openrouter/anthropic/claude-sonnet-4", "openrouter", "anthropic/claude-sonnet-4", ""},
		{"  ollama/qwen3:30b \n", "ollama", "qwen3:30b", ""},
		{"claude-sonnet-4-5", "", "", `catalog: model "claude-sonnet-4-5" names no provider; ` + how},
		{"", "", "", "catalog: no model given; " + how},
		{"/gpt-5", "", "", `catalog: model "/gpt-5" has an empty provider before the '/'; ` + how},
		{"openai/", "", "", `catalog: model "openai/" has no model after the '/'; ` + how},
		{"openai/gpt 5", "", "", `catalog: model "openai/gpt 5" contains a space; ` + how},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			p, m, err := ParseModelRef(tt.ref)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Errorf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || p != tt.provider || m != tt.model {
				t.Errorf("= %q, %q, %v; want %q, %q", p, m, err, tt.provider, tt.model)
			}
		})
	}
}

func ExampleCatalog_Resolve() {
	c, err := New(Overrides{Models: []Model{
		{Provider: "anthropic", ID: "claude-sonnet-4-5", Price: Price{Input: 2.5}},
	}})
	if err != nil {
		panic(err)
	}
	provider, model, _ := ParseModelRef("anthropic/claude-sonnet-4-5-20250929")
	m, warning := c.Resolve(provider, model)
	fmt.Println(m.Ref(), m.ContextWindow, m.MaxOutput, m.Price.Input, m.Price.Output, warning == "")
	cost := m.Price.Cost(llm.Usage{InputTokens: 1_000_000, CacheReadTokens: 800_000, OutputTokens: 20_000})
	fmt.Printf("$%.2f\n", cost)
	// Output:
	// anthropic/claude-sonnet-4-5-20250929 200000 64000 2.5 15 true
	// $1.04
}
