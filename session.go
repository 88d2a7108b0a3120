package godwit

import (
	"context"
	"errors"
	"iter"
	"sync"

	"github.com/godwit/godwit/internal/agent"
)

// Session is one conversation. Its turns run one at a time: a Send while
// another is running waits for it.
type Session struct {
	a *Agent

	turn sync.Mutex // held for a turn

	mu sync.Mutex // guards id
	id string
}

// ID returns the session's id, "" before its first message started it.
func (s *Session) ID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.id
}

func (s *Session) setID(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.id == "" {
		s.id = id
	}
}

// Send sends one user message and returns when the turn ends. onEvent,
// when not nil, receives the turn's events as they happen, from the
// engine's goroutines one at a time; a slow onEvent slows the turn. The
// error is non-nil when the turn did not end with an answer; the Result
// is filled in as far as the turn got.
func (s *Session) Send(ctx context.Context, text string, onEvent func(Event)) (Result, error) {
	if onEvent == nil {
		onEvent = func(Event) {}
	}
	s.turn.Lock()
	defer s.turn.Unlock()
	r := s.a.router
	if id := s.ID(); id != "" {
		r.subscribe(id, onEvent)
		defer r.unsubscribe(id)
		return s.a.env.Runtime.Run(ctx, agent.RunInput{SessionID: id, Prompt: text})
	}

	// A new session: take the pending slot until session.started names it.
	select {
	case r.newTurn <- struct{}{}:
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
	bound := make(chan struct{})
	r.setPending(&pendingTurn{onEvent: onEvent, bind: func(id string) {
		s.setID(id)
		close(bound)
	}})
	type outcome struct {
		res Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := s.a.env.Runtime.Run(ctx, agent.RunInput{Prompt: text})
		done <- outcome{res, err}
	}()
	var out outcome
	select {
	case <-bound:
		<-r.newTurn // the next new session may start while this turn runs
		out = <-done
	case out = <-done: // it failed, perhaps before the session existed
		r.setPending(nil)
		<-r.newTurn
	}
	s.setID(out.res.SessionID)
	if id := s.ID(); id != "" {
		r.unsubscribe(id)
	}
	return out.res, out.err
}

// Stream sends one user message and yields the turn's events as they
// happen. When the turn did not end with an answer, the last pair
// carries the error. Breaking out of the loop cancels the turn.
func (s *Session) Stream(ctx context.Context, text string) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		events := make(chan Event, 64)
		errc := make(chan error, 1)
		go func() {
			_, err := s.Send(ctx, text, func(e Event) { events <- e })
			close(events)
			errc <- err
		}()
		stopped := false
		for e := range events { // drained to the end, so Send never blocks
			if !stopped && !yield(e, nil) {
				stopped = true
				cancel()
			}
		}
		if err := <-errc; err != nil && !stopped && !errors.Is(err, context.Canceled) {
			yield(Event{}, err)
		}
	}
}
