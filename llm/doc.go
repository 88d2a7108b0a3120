// Package llm holds godwit's provider-neutral model types: messages and their
// parts, tool specs, requests, the streamed events a provider emits, usage,
// the typed errors callers branch on, and the Provider interface.
//
// It owns the vocabulary every other package speaks; adapters live in
// subpackages such as llm/openai and llm/anthropic. It imports none of
// godwit's packages.
package llm
