// Package llmtest is the wire-level test harness for provider adapters and
// binary tests: an httptest server that serves scripted or recorded answers
// in order and records every request it received, loaders for the recorded
// cassettes in shared/fixtures/providers, SSE builders for each wire format,
// and invariant checks on the captured requests.
//
// It is imported only by tests and by test binaries; it imports llm and the
// standard library, never an adapter.
package llmtest
