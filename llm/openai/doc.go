// Package openai adapts the two OpenAI wire formats to llm.Provider:
// Chat Completions (NewChat), spoken by OpenAI and by the compatible servers
// (DeepSeek, Ollama, vLLM, llama.cpp, OpenRouter, Groq, GLM, Kimi), and the
// Responses API (NewResponses). Both stream, map the vendor's events to
// llm.Event, build requests from llm.Request, and classify failures into
// *llm.Error. Reasoning goes back as each server documents: encrypted
// reasoning items (Responses, which asks reasoning models for summaries),
// reasoning_content (DeepSeek and the like), and OpenRouter's
// reasoning_details, merged from its stream fragments (details.go) and
// echoed on the assistant message as received.
//
// It speaks both APIs over net/http with the few request and event types
// their references name; llm/internal/sse reads the streams. The request
// bodies are the bytes the openai-go SDK sent when the adapter used it
// (testdata/wire, recorded from it), so sessions recorded then replay
// the same bytes. Retries live in llm/retry.
//
// Of godwit's packages it imports only llm, llm/internal/retryafter and
// llm/internal/sse.
package openai
