// Package anthropic adapts Anthropic's Messages API to llm.Provider, using
// the official Go SDK (github.com/anthropics/anthropic-sdk-go/v2) for the
// transport, the SSE decoding and the request types.
//
// It owns three translations: an llm.Request into a streaming Messages
// request (roles, tool results, thinking blocks, prompt-cache breakpoints),
// the stream's events into llm.Events, and the vendor's failures into
// *llm.Error. It retries nothing: the SDK's retries are off, and retrying
// is the caller's decision, made from the error's Kind.
//
// It imports llm and the SDK only; never another adapter, nor any godwit
// package above llm.
package anthropic
