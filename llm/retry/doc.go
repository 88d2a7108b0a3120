// Package retry makes model calls survive transient failures, visibly.
//
// New wraps an llm.Provider so that a call failing with a retryable error
// (llm.RetryAfter: 429, 5xx, overloaded, a reset connection, a stream cut
// mid-way) is tried again after an exponential backoff with full jitter,
// never sooner than the vendor's Retry-After. Every retry is announced to
// the consumer as an llm.EventRetry before the wait begins, so no retry is
// silent; when the failed attempt had already streamed events, the retry
// says Discarded and the consumer drops its partial answer.
//
// NewFallback runs a chain of models in order of preference: when one stays
// overloaded after its retries, or cannot be reached at all, the call moves
// on to the next and says so with an llm.EventFallback.
//
// Time is injected (Options.Sleep, Options.Jitter), so tests never sleep.
//
// Of godwit's packages it imports only llm.
package retry
