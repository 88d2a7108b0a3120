// Package openai adapts the two OpenAI wire formats to llm.Provider:
// Chat Completions (NewChat), spoken by OpenAI and by the compatible servers
// (DeepSeek, Ollama, vLLM, llama.cpp, OpenRouter, Groq, GLM, Kimi), and the
// Responses API (NewResponses). Both stream, map the vendor's events to
// llm.Event, build requests from llm.Request, and classify failures into
// *llm.Error. Reasoning goes back as each server documents: encrypted
// reasoning items (Responses, which asks reasoning models for summaries),
// reasoning_content (DeepSeek and the like), and OpenRouter's
// reasoning_details, merged from its stream fragments (details.go) and
// echoed on the assistant message as received. A Chat Completions
// request's messages are written by chat_body.go, byte for byte as the
// SDK encodes them (the rest of the body is the SDK's), kept because the
// SDK's encoder costs a resumed turn 42% more instructions at turn 301
// of bench/turncost's session.
//
// Of godwit's packages it imports only llm and llm/internal/retryafter.
// Retries live in llm/retry, so the SDK's own retries are switched off.
package openai
