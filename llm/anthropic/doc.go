// Package anthropic adapts Anthropic's Messages API to llm.Provider over
// net/http, with the few request and event types the API reference names.
// It translates an llm.Request into a streaming Messages request (roles,
// tool results, thinking blocks, prompt-cache breakpoints), the stream's
// events into llm.Events, and failures into *llm.Error. It retries
// nothing: the caller decides from the error's Kind.
//
// Of godwit's packages it imports only llm, llm/internal/retryafter and
// llm/internal/sse.
package anthropic
