package retry

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"net"
	"strings"
	"sync/atomic"

	"github.com/godwit/godwit/llm"
)

// Named is one entry of a fallback chain.
type Named struct {
	// Label names the entry in events, "provider/model". Empty means
	// Provider.Name() + "/" + Model (or just the name when Model is empty).
	Label    string
	Provider llm.Provider
	// Model replaces Request.Model for calls to this entry; empty leaves
	// the request's model as it is.
	Model string
}

// FallbackOptions configures NewFallback. The zero value is ready to use.
type FallbackOptions struct {
	// Retry governs the retries on each entry before the chain moves on.
	Retry Options
	// Logger receives one record per move, at info level: the fallback
	// event is what the user sees. Nil discards.
	Logger *slog.Logger
}

// Chain is a Provider that runs a list of models in order of preference.
//
// A call goes to the current entry, with that entry's retries. It moves to
// the next entry, yielding an llm.EventFallback, when the entry
//   - still fails with a retryable error after its retries (overloaded,
//     rate limited past MaxWait, 5xx), or
//   - cannot be reached: connection refused or a DNS failure. Then it moves
//     at once, without retrying, unless it is the last entry left to try.
//
// Every other error ends the call unchanged: a bad request or a context too
// long would fail on the next model just the same, and an auth error is a
// configuration mistake the user should see and fix rather than have
// quietly routed around onto another vendor's bill. A cancelled ctx never
// moves.
//
// The move is sticky: later calls start at the entry that last succeeded,
// so a session keeps one model (and its prompt cache) instead of bouncing
// back to an overloaded one on every turn. A call tries each entry at most
// once, from the current one to the end of the list and then from the
// start, so a preferred model that has recovered is used again when the
// current one fails. When every entry fails, the error lists the labels
// tried and wraps the last failure.
//
// Chain is safe for concurrent use if its providers are.
type Chain struct {
	entries []Named
	retry   Options
	logger  *slog.Logger
	current atomic.Int64 // index of the entry calls start at
}

// NewFallback returns a Chain over chain (copied). An empty chain or an
// entry without a Provider fails each call with an error saying so.
func NewFallback(chain []Named, opts FallbackOptions) *Chain {
	c := &Chain{
		entries: make([]Named, len(chain)),
		retry:   opts.Retry.withDefaults(),
		logger:  opts.Logger,
	}
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	for i, e := range chain {
		if e.Label == "" && e.Provider != nil {
			e.Label = e.Provider.Name()
			if e.Model != "" {
				e.Label += "/" + e.Model
			}
		}
		c.entries[i] = e
	}
	return c
}

// Current returns the entry calls start at, the zero Named for an empty
// chain.
func (c *Chain) Current() Named {
	if len(c.entries) == 0 {
		return Named{}
	}
	return c.entries[c.current.Load()]
}

// Name is the current entry's provider name.
func (c *Chain) Name() string {
	if p := c.Current().Provider; p != nil {
		return p.Name()
	}
	return "fallback"
}

func (c *Chain) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		if err := c.check(); err != nil {
			yield(llm.Event{}, err)
			return
		}
		n := len(c.entries)
		start := int(c.current.Load())
		var tried []string
		attempts := 0
		for k := range n {
			i := (start + k) % n
			e := c.entries[i]
			r := req
			if e.Model != "" {
				r.Model = e.Model
			}
			lastTry := k == n-1
			var giveUp func(error) bool
			if !lastTry {
				giveUp = unreachable
			}
			res := c.retry.run(ctx, e.Provider, r, yield, giveUp)
			attempts += res.attempts
			tried = append(tried, e.Label)
			if res.stopped {
				return
			}
			if res.err == nil {
				// Keep whatever another call settled on meanwhile.
				c.current.CompareAndSwap(int64(start), int64(i))
				return
			}
			if !c.movesOn(ctx, res.err) {
				yield(llm.Event{}, res.err)
				return
			}
			if lastTry {
				yield(llm.Event{}, fmt.Errorf("retry: every model in the fallback chain failed (%s): %w",
					strings.Join(tried, ", "), res.err))
				return
			}
			next := c.entries[(i+1)%n]
			why := reason(res.err)
			c.logger.Info("retry: falling back to another model",
				"from", e.Label, "to", next.Label, "err", res.err)
			fb := llm.Fallback{From: e.Label, To: next.Label, Reason: why, Discarded: res.partial}
			if !yield(llm.Event{Type: llm.EventFallback, Fallback: &fb}, nil) {
				return
			}
		}
	}
}

func (c *Chain) check() error {
	if len(c.entries) == 0 {
		return errors.New("retry: the fallback chain is empty; configure at least one model")
	}
	for i, e := range c.entries {
		if e.Provider == nil {
			return fmt.Errorf("retry: fallback entry %d (%q) has no provider; build one for it or drop it from the chain", i+1, e.Label)
		}
	}
	return nil
}

// movesOn reports whether a failure should send the call to the next
// entry rather than end it.
func (c *Chain) movesOn(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	_, retryable := llm.RetryAfter(err)
	return retryable || unreachable(err)
}

// unreachable reports a failure to reach the vendor at all, which retrying
// soon will not mend: a refused connection or a failed DNS lookup. It
// relies on adapters wrapping the transport error with %w.
func unreachable(err error) bool {
	var dns *net.DNSError
	return refused(err) || errors.As(err, &dns)
}

var _ llm.Provider = (*Chain)(nil)
