// Package retry makes model calls survive transient failures, visibly.
//
// New wraps an llm.Provider so that a call failing with a retryable error
// is tried again after an exponential backoff with full jitter, never
// sooner than the vendor's Retry-After; every retry is announced as an
// llm.EventRetry before the wait begins. NewFallback runs a chain of
// models in order of preference, moving on with an llm.EventFallback when
// one stays overloaded or cannot be reached. Time is injected
// (Options.Sleep, Options.Jitter), so tests never sleep.
//
// Of godwit's packages it imports only llm.
package retry
