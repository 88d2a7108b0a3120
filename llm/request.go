package llm

// Request is one model call. Adapters must send System, Tools and the
// Messages in exactly the given order and bytes: the window package keeps
// them append-only within a segment so that provider prompt caches hit.
type Request struct {
	Model    string     `json:"model"`
	System   string     `json:"system,omitempty"`
	Messages []Message  `json:"messages"`
	Tools    []ToolSpec `json:"tools,omitempty"`
	// MaxOutputTokens caps the answer; 0 means the adapter's default (for
	// Anthropic, which requires a value, the model's maximum from the
	// catalog or a safe constant).
	MaxOutputTokens int `json:"max_output_tokens,omitempty"`
	// Temperature is nil for the provider's default.
	Temperature *float64 `json:"temperature,omitempty"`
	// Reasoning is an effort hint ("low", "medium", "high"); empty leaves
	// the provider's default. Anthropic maps it to a thinking budget.
	Reasoning string `json:"reasoning,omitempty"`
	// CacheKey groups requests that share a prefix (OpenAI's
	// prompt_cache_key); godwit sets it to the session id.
	CacheKey string `json:"cache_key,omitempty"`
}

// PartStat is the size of one named part of a request (system, tools,
// messages, tool outputs, ...), as godwit measured it before sending.
type PartStat struct {
	Name   string `json:"name"`
	Bytes  int    `json:"bytes"`
	Tokens int    `json:"tokens"`
}
