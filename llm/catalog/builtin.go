package catalog

// builtinProviders returns a fresh copy of the built-in provider table.
func builtinProviders() []Provider {
	return []Provider{
		{
			Name: "openai", Type: TypeOpenAIResponses,
			BaseURL: "https://api.openai.com/v1", BaseURLEnv: "OPENAI_BASE_URL",
			APIKeyEnv: "OPENAI_API_KEY", SendCacheKey: true,
		},
		{
			Name: "anthropic", Type: TypeAnthropic,
			BaseURL: "https://api.anthropic.com", BaseURLEnv: "ANTHROPIC_BASE_URL",
			APIKeyEnv: "ANTHROPIC_API_KEY",
		},
		{
			Name: "deepseek", Type: TypeOpenAIChat,
			BaseURL: "https://api.deepseek.com", BaseURLEnv: "DEEPSEEK_BASE_URL",
			APIKeyEnv: "DEEPSEEK_API_KEY",
		},
		{
			Name: "openrouter", Type: TypeOpenAIChat,
			BaseURL: "https://openrouter.ai/api/v1", BaseURLEnv: "OPENROUTER_BASE_URL",
			APIKeyEnv: "OPENROUTER_API_KEY",
		},
		{
			// OLLAMA_HOST is Ollama's own variable but holds host:port
			// only; OLLAMA_BASE_URL is a full URL, /v1 included.
			Name: "ollama", Type: TypeOpenAIChat,
			BaseURL: "http://localhost:11434/v1", BaseURLEnv: "OLLAMA_BASE_URL",
			NoKey: true,
		},
	}
}

// OllamaContextWindow is the window assumed for an Ollama model the config
// does not describe. Ollama silently truncates prompts beyond its own
// context length (OLLAMA_CONTEXT_LENGTH, a few thousand tokens by default),
// so the server must be set to at least this much, or the model's window
// lowered in the config.
const OllamaContextWindow = 32_768

// builtinModels returns a fresh copy of the built-in model table.
//
// Images marks the models their vendors document as taking image input;
// DeepSeek's API takes none, and for Ollama it depends on the model
// pulled (images: true under models: in config.yaml says so).
//
// Prices are list prices in USD per million tokens. Where a vendor charges
// nothing extra for writing its cache (OpenAI, DeepSeek, Gemini), CacheWrite
// equals Input, so that cache writes an adapter reports are priced as the
// ordinary input they are.
func builtinModels() []Model {
	gpt5 := Price{Input: 1.25, Output: 10, CacheRead: 0.125, CacheWrite: 1.25}
	sonnet := Price{Input: 3, Output: 15, CacheRead: 0.30, CacheWrite: 3.75}
	deepseek := Price{Input: 0.28, Output: 0.42, CacheRead: 0.028, CacheWrite: 0.28}
	return []Model{
		// OpenAI.
		{Provider: "openai", ID: "gpt-5", Images: true, ContextWindow: 400_000, MaxOutput: 128_000, Price: gpt5},
		{Provider: "openai", ID: "gpt-5-mini", Images: true, ContextWindow: 400_000, MaxOutput: 128_000,
			Price: Price{Input: 0.25, Output: 2, CacheRead: 0.025, CacheWrite: 0.25}},
		{Provider: "openai", ID: "gpt-5-nano", Images: true, ContextWindow: 400_000, MaxOutput: 128_000,
			Price: Price{Input: 0.05, Output: 0.40, CacheRead: 0.005, CacheWrite: 0.05}},
		{Provider: "openai", ID: "gpt-4.1", Images: true, ContextWindow: 1_047_576, MaxOutput: 32_768,
			Price: Price{Input: 2, Output: 8, CacheRead: 0.50, CacheWrite: 2}},
		{Provider: "openai", ID: "gpt-4.1-mini", Images: true, ContextWindow: 1_047_576, MaxOutput: 32_768,
			Price: Price{Input: 0.40, Output: 1.60, CacheRead: 0.10, CacheWrite: 0.40}},
		{Provider: "openai", ID: "gpt-4o", Images: true, ContextWindow: 128_000, MaxOutput: 16_384,
			Price: Price{Input: 2.50, Output: 10, CacheRead: 1.25, CacheWrite: 2.50}},
		{Provider: "openai", ID: "gpt-4o-mini", Images: true, ContextWindow: 128_000, MaxOutput: 16_384,
			Price: Price{Input: 0.15, Output: 0.60, CacheRead: 0.075, CacheWrite: 0.15}},
		{Provider: "openai", ID: "o3", Images: true, ContextWindow: 200_000, MaxOutput: 100_000,
			Price: Price{Input: 2, Output: 8, CacheRead: 0.50, CacheWrite: 2}},
		{Provider: "openai", ID: "o4-mini", Images: true, ContextWindow: 200_000, MaxOutput: 100_000,
			Price: Price{Input: 1.10, Output: 4.40, CacheRead: 0.275, CacheWrite: 1.10}},

		// Anthropic: ids are the API's aliases; dated ids resolve to them.
		// Cache writes are priced at the 5-minute TTL rate. The 1M-token
		// window of Sonnet (beta, dearer past 200k) is not modelled.
		{Provider: "anthropic", ID: "claude-opus-4-1", Images: true, ContextWindow: 200_000, MaxOutput: 32_000,
			Price: Price{Input: 15, Output: 75, CacheRead: 1.50, CacheWrite: 18.75}},
		{Provider: "anthropic", ID: "claude-sonnet-4-5", Images: true, ContextWindow: 200_000, MaxOutput: 64_000, Price: sonnet},
		{Provider: "anthropic", ID: "claude-sonnet-4-0", Aliases: []string{"claude-sonnet-4"}, Images: true,
			ContextWindow: 200_000, MaxOutput: 64_000, Price: sonnet},
		{Provider: "anthropic", ID: "claude-haiku-4-5", Images: true, ContextWindow: 200_000, MaxOutput: 64_000,
			Price: Price{Input: 1, Output: 5, CacheRead: 0.10, CacheWrite: 1.25}},
		// Claude 3.5 Haiku takes no images.
		{Provider: "anthropic", ID: "claude-3-5-haiku-latest", Aliases: []string{"claude-3-5-haiku"},
			ContextWindow: 200_000, MaxOutput: 8_192,
			Price: Price{Input: 0.80, Output: 4, CacheRead: 0.08, CacheWrite: 1}},

		// DeepSeek (V3.2 prices; CacheRead is the cache-hit rate).
		{Provider: "deepseek", ID: "deepseek-chat", ContextWindow: 128_000, MaxOutput: 8_192, Price: deepseek},
		{Provider: "deepseek", ID: "deepseek-reasoner", ContextWindow: 128_000, MaxOutput: 65_536, Price: deepseek},

		// OpenRouter passes the upstream list price through.
		{Provider: "openrouter", ID: "anthropic/claude-sonnet-4.5", Images: true, ContextWindow: 200_000, MaxOutput: 64_000, Price: sonnet},
		{Provider: "openrouter", ID: "anthropic/claude-sonnet-4", Images: true, ContextWindow: 200_000, MaxOutput: 64_000, Price: sonnet},
		{Provider: "openrouter", ID: "openai/gpt-5", Images: true, ContextWindow: 400_000, MaxOutput: 128_000, Price: gpt5},
		{Provider: "openrouter", ID: "google/gemini-2.5-pro", Images: true, ContextWindow: 1_048_576, MaxOutput: 65_536,
			Price: Price{Input: 1.25, Output: 10, CacheRead: 0.31, CacheWrite: 1.25}},

		// Ollama runs whatever the user pulled, locally and free: one
		// default for all its models.
		{Provider: "ollama", ID: "", ContextWindow: OllamaContextWindow, MaxOutput: 8_192},
	}
}
