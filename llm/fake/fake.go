// Package fake is a scripted llm.Provider for agent tests and the demo: it
// answers each request with the next scripted Step, streaming it as real
// adapters do, and records every Request it received.
//
// Of godwit's packages it imports only llm.
package fake

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"sync"

	"github.com/godwit/godwit/llm"
)

// Step is one scripted answer. Exactly what is set is streamed, in the
// order thinking, text, tool calls. Err, when set, fails the call instead.
type Step struct {
	Thinking  string
	Text      string
	ToolCalls []llm.ToolCall
	Usage     *llm.Usage
	Err       error
	// Respond, when set, computes the step from the request (for scripts
	// that depend on what the engine sent, e.g. a handoff request).
	Respond func(req llm.Request) Step
}

// Call returns a tool call with args marshalled from v (a string is used
// verbatim, so tests can send invalid JSON).
func Call(id, name string, v any) llm.ToolCall {
	var raw json.RawMessage
	switch a := v.(type) {
	case string:
		raw = json.RawMessage(a)
	case nil:
		raw = json.RawMessage("{}")
	default:
		b, err := json.Marshal(a)
		if err != nil {
			panic(fmt.Sprintf("fake: marshal args: %v", err))
		}
		raw = b
	}
	return llm.ToolCall{ID: id, Name: name, Args: raw}
}

// Provider replays Steps in order. It is safe for concurrent use.
type Provider struct {
	brain func(llm.Request) Step

	mu       sync.Mutex
	steps    []Step
	next     int
	requests []llm.Request
}

// New returns a provider that answers with steps in order.
func New(steps ...Step) *Provider { return &Provider{steps: steps} }

// NewFunc returns a provider that answers every request with brain's
// step: a scripted model that reacts to what the engine sent (long
// sessions, evals), with no fixed number of calls.
func NewFunc(brain func(req llm.Request) Step) *Provider {
	return &Provider{brain: brain}
}

// Name implements llm.Provider.
func (p *Provider) Name() string { return "fake" }

// Add appends steps to the script.
func (p *Provider) Add(steps ...Step) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.steps = append(p.steps, steps...)
}

// Requests returns copies of the requests received so far.
func (p *Provider) Requests() []llm.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]llm.Request(nil), p.requests...)
}

// Remaining reports how many scripted steps were not used.
func (p *Provider) Remaining() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.steps) - p.next
}

// Stream implements llm.Provider.
func (p *Provider) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		p.mu.Lock()
		p.requests = append(p.requests, CloneRequest(req))
		if p.brain != nil {
			p.mu.Unlock()
			p.play(ctx, p.brain(req), req, yield)
			return
		}
		if p.next >= len(p.steps) {
			n := len(p.requests)
			p.mu.Unlock()
			yield(llm.Event{}, fmt.Errorf("fake: script exhausted: request %d has no scripted step", n))
			return
		}
		st := p.steps[p.next]
		p.next++
		p.mu.Unlock()

		p.play(ctx, st, req, yield)
	}
}

func (p *Provider) play(ctx context.Context, st Step, req llm.Request, yield func(llm.Event, error) bool) {
	if st.Respond != nil {
		st = st.Respond(req)
	}
	if err := ctx.Err(); err != nil {
		yield(llm.Event{}, err)
		return
	}
	if st.Err != nil {
		yield(llm.Event{}, st.Err)
		return
	}
	for _, ev := range events(st, req) {
		if !yield(ev, nil) {
			return
		}
	}
}

func events(st Step, req llm.Request) []llm.Event {
	var evs []llm.Event
	if st.Thinking != "" {
		evs = append(evs,
			llm.Event{Type: llm.EventThinkingDelta, Text: st.Thinking},
			llm.Event{Type: llm.EventThinkingEnd, Thinking: &llm.Thinking{Text: st.Thinking, Signature: "fake-sig", Provider: "fake"}})
	}
	if st.Text != "" {
		evs = append(evs, llm.Event{Type: llm.EventTextDelta, Text: st.Text})
	}
	for i, c := range st.ToolCalls {
		c.Args = llm.ArgsOrEmpty(c.Args)
		evs = append(evs,
			llm.Event{Type: llm.EventToolCallStart, Index: i, ToolCall: &llm.ToolCall{ID: c.ID, Name: c.Name}},
			llm.Event{Type: llm.EventToolCallDelta, Index: i, Text: string(c.Args)},
			llm.Event{Type: llm.EventToolCallEnd, Index: i, ToolCall: &c})
	}
	u := st.Usage
	if u == nil {
		u = &llm.Usage{InputTokens: estimate(req), OutputTokens: int64(len(st.Text)+len(st.Thinking))/4 + 1}
	}
	evs = append(evs, llm.Event{Type: llm.EventUsage, Usage: u})
	stop := llm.StopEndTurn
	if len(st.ToolCalls) > 0 {
		stop = llm.StopToolUse
	}
	return append(evs, llm.Event{Type: llm.EventStop, StopReason: stop})
}

// estimate gives a plausible input token count (4 bytes a token) so that
// usage-driven code paths see non-zero numbers.
func estimate(req llm.Request) int64 {
	b, _ := json.Marshal(req)
	return int64(len(b)/4 + 1)
}

// CloneRequest copies r deeply (through JSON), so later changes the
// engine makes to its slices cannot reach a record of it.
func CloneRequest(r llm.Request) llm.Request {
	b, err := json.Marshal(r)
	if err != nil {
		return r
	}
	var c llm.Request
	if json.Unmarshal(b, &c) != nil {
		return r
	}
	return c
}
