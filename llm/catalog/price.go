package catalog

import "github.com/godwit/godwit/llm"

// Price is a model's list price in USD per million tokens.
type Price struct {
	Input      float64 // uncached input
	Output     float64 // output, reasoning included
	CacheRead  float64 // input read from the prompt cache
	CacheWrite float64 // input written to the prompt cache
}

// Cost returns the USD cost of u. Following llm.Usage, InputTokens
// includes cached tokens, so the uncached share is InputTokens minus
// CacheReadTokens and CacheWriteTokens (never below zero); OutputTokens is
// taken to include ReasoningTokens, as both OpenAI and Anthropic report it.
func (p Price) Cost(u llm.Usage) float64 {
	uncached := max(0, u.InputTokens-u.CacheReadTokens-u.CacheWriteTokens)
	usd := float64(uncached)*p.Input +
		float64(u.CacheReadTokens)*p.CacheRead +
		float64(u.CacheWriteTokens)*p.CacheWrite +
		float64(u.OutputTokens)*p.Output
	return usd / 1e6
}
