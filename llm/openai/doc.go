// Package openai adapts the two OpenAI wire formats to llm.Provider: Chat
// Completions (NewChat), spoken by OpenAI and the compatible servers
// (DeepSeek, Ollama, vLLM, llama.cpp, OpenRouter, Groq, GLM, Kimi), and
// the Responses API (NewResponses). Both stream over net/http, map the
// vendor's events to llm.Event and classify failures into *llm.Error.
// Reasoning goes back as each server documents: encrypted reasoning items
// (Responses), reasoning_content (DeepSeek and the like), and
// OpenRouter's reasoning_details (details.go).
//
// The request bodies are byte for byte what the openai-go SDK wrote
// (testdata/wire pins them), so recorded sessions replay the same bytes.
// Retries live in llm/retry.
//
// Of godwit's packages it imports only llm, llm/internal/retryafter and
// llm/internal/sse.
package openai
