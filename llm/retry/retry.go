package retry

import (
	"context"
	"fmt"
	"iter"
	"log/slog"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/godwit/godwit/llm"
)

// Defaults for the zero fields of Options.
const (
	DefaultMaxAttempts = 5
	DefaultBaseDelay   = time.Second
	DefaultMaxDelay    = 30 * time.Second
	DefaultMaxWait     = time.Minute
)

// Options configures New. The zero value is ready to use.
type Options struct {
	// MaxAttempts counts the first try; 1 disables retries. Zero or less
	// means DefaultMaxAttempts.
	MaxAttempts int
	// BaseDelay is the backoff ceiling before the first retry; it doubles
	// with each retry up to MaxDelay. The wait actually taken is drawn
	// uniformly from [0, ceiling] (full jitter), so that many clients
	// rate-limited together do not come back together.
	BaseDelay time.Duration
	MaxDelay  time.Duration
	// MaxWait is the longest Retry-After the wrapper honours. A vendor
	// asking for more fails the call at once with an error saying so,
	// rather than hanging the session.
	MaxWait time.Duration
	// Sleep waits d or until ctx is done, returning ctx's error in that
	// case. Nil means a real timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// Jitter returns a duration in [0, max]. Nil means uniform random.
	Jitter func(max time.Duration) time.Duration
	// Logger receives one record per retry, at info level: the retry
	// event is what the user sees. Nil discards.
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	if o.BaseDelay <= 0 {
		o.BaseDelay = DefaultBaseDelay
	}
	if o.MaxDelay <= 0 {
		o.MaxDelay = DefaultMaxDelay
	}
	if o.MaxDelay < o.BaseDelay {
		o.MaxDelay = o.BaseDelay
	}
	if o.MaxWait <= 0 {
		o.MaxWait = DefaultMaxWait
	}
	if o.Sleep == nil {
		o.Sleep = sleep
	}
	if o.Jitter == nil {
		o.Jitter = func(max time.Duration) time.Duration {
			return rand.N(max + 1)
		}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// New wraps p so that retryable failures are tried again (see Options).
//
// The wrapper never retries once ctx is done, and returns a non-retryable
// error (auth, bad request, context too long, ...) unchanged, so errors.Is
// on it works as on p's own errors. When every attempt fails, the error
// says how many were made and wraps the last failure. The result is safe
// for concurrent use if p is.
func New(p llm.Provider, opts Options) llm.Provider {
	return &retrying{p: p, opts: opts.withDefaults()}
}

type retrying struct {
	p    llm.Provider
	opts Options
}

func (r *retrying) Name() string { return r.p.Name() }

func (r *retrying) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		res := r.opts.run(ctx, r.p, req, yield, nil)
		if res.err != nil && !res.stopped {
			yield(llm.Event{}, res.err)
		}
	}
}

// result is how one run of the attempt loop ended.
type result struct {
	err      error // nil on success
	stopped  bool  // the consumer stopped ranging; yield nothing more
	partial  bool  // the last failed attempt had yielded events
	attempts int
}

// run streams req from p, retrying as Options say. giveUp, if set, ends
// the loop at once for an error that should not be retried here (the
// fallback chain moves to another model instead); its error is returned
// unchanged.
func (o Options) run(ctx context.Context, p llm.Provider, req llm.Request,
	yield func(llm.Event, error) bool, giveUp func(error) bool) result {
	for attempt := 1; ; attempt++ {
		yielded, stopped, err := streamOnce(ctx, p, req, yield)
		if stopped {
			return result{stopped: true, attempts: attempt}
		}
		if err == nil {
			return result{attempts: attempt}
		}
		res := result{err: err, partial: yielded, attempts: attempt}
		after, retryable := llm.RetryAfter(err)
		if !retryable || ctx.Err() != nil || (giveUp != nil && giveUp(err)) {
			return res
		}
		if attempt >= o.MaxAttempts {
			res.err = fmt.Errorf("retry: gave up after %s: %w", attempts(attempt), err)
			return res
		}
		if after > o.MaxWait {
			res.err = fmt.Errorf("retry: gave up after %s: %s asked to wait %v, longer than the %v allowed (MaxWait); try again later: %w",
				attempts(attempt), p.Name(), after, o.MaxWait, err)
			return res
		}
		wait := o.backoff(attempt)
		if wait < after {
			wait = after
		}
		ev := llm.Retry{Attempt: attempt + 1, Wait: wait, Reason: reason(err), Discarded: yielded}
		o.Logger.Info("retry: model call failed, retrying",
			"provider", p.Name(), "model", req.Model, "attempt", ev.Attempt,
			"wait", wait, "discarded", yielded, "err", err)
		if !yield(llm.Event{Type: llm.EventRetry, Retry: &ev}, nil) {
			return result{stopped: true, attempts: attempt}
		}
		if serr := o.Sleep(ctx, wait); serr != nil {
			res.err = fmt.Errorf("retry: stopped waiting to retry (last error: %v): %w", err, serr)
			res.partial = false // the retry event already voided it
			return res
		}
	}
}

// streamOnce runs one attempt, passing its events through. It reports the
// attempt's error, whether any event was yielded, and whether the consumer
// stopped.
func streamOnce(ctx context.Context, p llm.Provider, req llm.Request,
	yield func(llm.Event, error) bool) (yielded, stopped bool, err error) {
	for ev, err := range p.Stream(ctx, req) {
		if err != nil {
			return yielded, false, err
		}
		yielded = true
		if !yield(ev, nil) {
			return yielded, true, nil
		}
	}
	return yielded, false, nil
}

// backoff returns the jittered wait before retry number n (from 1).
func (o Options) backoff(n int) time.Duration {
	ceil := o.BaseDelay
	for i := 1; i < n && ceil < o.MaxDelay; i++ {
		ceil *= 2
	}
	ceil = min(ceil, o.MaxDelay)
	return max(0, min(o.Jitter(ceil), ceil))
}

// reason is a failure in words for the retry and fallback events, which
// people read: one line, without the package prefixes of godwit's errors.
func reason(err error) string {
	const limit = 200
	s := err.Error()
	for range 2 {
		for _, p := range []string{"retry: ", "llm: "} {
			s = strings.ReplaceAll(strings.TrimPrefix(s, p), ": "+p, ": ")
		}
	}
	if r := []rune(s); len(r) > limit {
		s = string(r[:limit]) + "…"
	}
	return s
}

func attempts(n int) string {
	if n == 1 {
		return "1 attempt"
	}
	return fmt.Sprintf("%d attempts", n)
}
