package retry

import (
	"context"
	"iter"
	"sync"
	"testing"
	"time"

	"github.com/godwit/godwit/llm"
)

// attempt is one scripted answer: events, then err if set.
type attempt struct {
	events []llm.Event
	err    error
}

// scripted is a func-backed provider that serves its attempts in order and
// fails the test on a call past the script.
type scripted struct {
	t        testing.TB
	name     string
	mu       sync.Mutex
	attempts []attempt
	calls    int
	models   []string // Request.Model of each call
}

func newScripted(t testing.TB, name string, attempts ...attempt) *scripted {
	return &scripted{t: t, name: name, attempts: attempts}
}

func (s *scripted) Name() string { return s.name }

func (s *scripted) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		s.mu.Lock()
		n := s.calls
		s.calls++
		s.models = append(s.models, req.Model)
		s.mu.Unlock()
		if n >= len(s.attempts) {
			s.t.Errorf("%s: unexpected call %d (script has %d)", s.name, n+1, len(s.attempts))
			yield(llm.Event{}, &llm.Error{Kind: llm.KindBadRequest, Message: "unscripted call"})
			return
		}
		a := s.attempts[n]
		for _, ev := range a.events {
			if !yield(ev, nil) {
				return
			}
		}
		if a.err != nil {
			yield(llm.Event{}, a.err)
		}
	}
}

func (s *scripted) callCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// answer is a complete successful stream saying text.
func answer(text string) attempt {
	return attempt{events: []llm.Event{
		{Type: llm.EventTextDelta, Text: text},
		{Type: llm.EventStop, StopReason: llm.StopEndTurn},
	}}
}

func fail(err error) attempt { return attempt{err: err} }

// sleeper records the waits asked for without sleeping.
type sleeper struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleeper) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return ctx.Err()
}

// fullJitter makes backoff deterministic: always the ceiling.
func fullJitter(max time.Duration) time.Duration { return max }

// drain collects a stream's events and its error.
func drain(stream iter.Seq2[llm.Event, error]) ([]llm.Event, error) {
	var evs []llm.Event
	for ev, err := range stream {
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

func ofType(evs []llm.Event, t llm.EventType) []llm.Event {
	var out []llm.Event
	for _, ev := range evs {
		if ev.Type == t {
			out = append(out, ev)
		}
	}
	return out
}

func rateLimited(after time.Duration) error {
	return &llm.Error{Kind: llm.KindRetryable, Provider: "fake", StatusCode: 429, Message: "rate limited", RetryAfter: after}
}

func overloaded() error {
	return &llm.Error{Kind: llm.KindRetryable, Provider: "fake", StatusCode: 529, Message: "Overloaded"}
}

func serverError() error {
	return &llm.Error{Kind: llm.KindRetryable, Provider: "fake", StatusCode: 500, Message: "internal error"}
}

// funcProvider is a Provider backed by a function.
type funcProvider struct {
	name   string
	stream func(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error]
}

func (f funcProvider) Name() string { return f.name }

func (f funcProvider) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	return f.stream(ctx, req)
}
