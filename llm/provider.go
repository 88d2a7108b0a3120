package llm

import (
	"context"
	"iter"
)

// Provider streams model answers.
//
// Stream sends req and yields the answer's events as they arrive, without
// buffering: the first text delta reaches the caller as soon as the vendor
// sends it. A successful stream ends with an EventStop. A failure is
// yielded once as (Event{}, err), after which the sequence ends; err is, or
// wraps, an *Error where the vendor said why. Breaking out of the loop
// early releases the connection. Cancelling ctx ends the stream with
// ctx's error.
//
// Implementations must be safe for concurrent use; a Stream sequence is
// meant to be ranged over once.
type Provider interface {
	// Name is the provider's configured name ("openai", "anthropic", ...).
	Name() string
	Stream(ctx context.Context, req Request) iter.Seq2[Event, error]
}

// Collect drains a stream into a Response. It returns the partial response
// together with the stream's error, if any.
func Collect(stream iter.Seq2[Event, error]) (Response, error) {
	var acc Accumulator
	for ev, err := range stream {
		if err != nil {
			return acc.Response(), err
		}
		acc.Add(ev)
	}
	return acc.Response(), nil
}
