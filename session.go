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
// when not nil, receives the turn's events, and no other session's, as
// they happen, one at a time and none after Send returns; a slow onEvent
// slows the turn. The error is non-nil when the turn did not end with an
// answer; the Result is filled in as far as the turn got.
func (s *Session) Send(ctx context.Context, text string, onEvent func(Event)) (Result, error) {
	s.turn.Lock()
	defer s.turn.Unlock()
	res, err := s.a.env.Runtime.Run(ctx, agent.RunInput{SessionID: s.ID(), Prompt: text, Sink: s.sink(onEvent)})
	s.setID(res.SessionID)
	return result(res), err
}

// sink is a turn's: it learns a new session's id from session.started
// before onEvent sees it, and hands onEvent one event at a time.
func (s *Session) sink(onEvent func(Event)) agent.Sink {
	var mu sync.Mutex
	return agent.SinkFunc(func(e agent.Event) {
		if e.Type == agent.EventSessionStarted {
			s.setID(e.SessionID)
		}
		if onEvent != nil {
			mu.Lock()
			defer mu.Unlock()
			onEvent(e)
		}
	})
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
