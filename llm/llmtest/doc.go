// Package llmtest is the wire-level test harness for provider adapters and
// binary tests: an httptest server that serves scripted or recorded answers
// in order and records every request it received (or answers each request
// with a function of it, for benchmarks' scripted models), a loader for the
// cassettes the adapters keep in their testdata, SSE builders for each wire format,
// and invariant checks on the captured requests.
//
// Only tests and test binaries use it. Of godwit's packages it imports
// only llm/internal/sse.
package llmtest
