// Package anthropic adapts Anthropic's Messages API to llm.Provider over
// net/http: the request and event types are the few the API reference
// names (the official SDK, one generated package of the whole API, took
// a quarter of a cold build's CPU for them), the events read by
// llm/internal/sse.
//
// It owns three translations: an llm.Request into a streaming Messages
// request (roles, tool results, thinking blocks, prompt-cache breakpoints),
// the stream's events into llm.Events, and the vendor's failures into
// *llm.Error. It retries nothing: retrying is the caller's decision, made
// from the error's Kind.
//
// Of godwit's packages it imports only llm, llm/internal/retryafter and
// llm/internal/sse.
package anthropic
