package retry

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/godwit/godwit/llm"
)

func TestRetry(t *testing.T) {
	cut := &llm.Error{Kind: llm.KindRetryable, Provider: "fake", Message: "stream cut mid-way"}
	auth := &llm.Error{Kind: llm.KindAuth, Provider: "fake", StatusCode: 401, Message: "invalid x-api-key"}
	bad := &llm.Error{Kind: llm.KindBadRequest, Provider: "fake", StatusCode: 400, Message: "tools.0: bad schema"}
	long := &llm.Error{Kind: llm.KindContextTooLong, Provider: "fake", StatusCode: 400, Message: "prompt is too long"}
	partial := attempt{
		events: []llm.Event{{Type: llm.EventTextDelta, Text: "half an ans"}},
		err:    cut,
	}

	tests := []struct {
		name        string
		opts        Options
		script      []attempt
		wantWaits   []time.Duration
		wantRetries []llm.Retry // Reason is checked to be non-empty only
		wantText    string      // the accumulated answer on success
		wantErr     error       // errors.Is target; nil means success
		wantSame    bool        // the error is returned unchanged
		wantErrText string
	}{
		{
			name:        "429 honours Retry-After",
			script:      []attempt{fail(rateLimited(7 * time.Second)), answer("ok")},
			wantWaits:   []time.Duration{7 * time.Second},
			wantRetries: []llm.Retry{{Attempt: 2, Wait: 7 * time.Second}},
			wantText:    "ok",
		},
		{
			name:        "Retry-After shorter than backoff uses backoff",
			opts:        Options{BaseDelay: 3 * time.Second},
			script:      []attempt{fail(rateLimited(time.Second)), answer("ok")},
			wantWaits:   []time.Duration{3 * time.Second},
			wantRetries: []llm.Retry{{Attempt: 2, Wait: 3 * time.Second}},
			wantText:    "ok",
		},
		{
			name:      "529 overloaded backs off exponentially",
			script:    []attempt{fail(overloaded()), fail(overloaded()), answer("ok")},
			wantWaits: []time.Duration{time.Second, 2 * time.Second},
			wantRetries: []llm.Retry{
				{Attempt: 2, Wait: time.Second},
				{Attempt: 3, Wait: 2 * time.Second},
			},
			wantText: "ok",
		},
		{
			name:        "500 is retried",
			script:      []attempt{fail(serverError()), answer("fine")},
			wantWaits:   []time.Duration{time.Second},
			wantRetries: []llm.Retry{{Attempt: 2, Wait: time.Second}},
			wantText:    "fine",
		},
		{
			name:        "stream cut mid-way discards the partial answer",
			script:      []attempt{partial, answer("whole answer")},
			wantWaits:   []time.Duration{time.Second},
			wantRetries: []llm.Retry{{Attempt: 2, Wait: time.Second, Discarded: true}},
			wantText:    "whole answer",
		},
		{
			name:      "backoff is capped by MaxDelay",
			opts:      Options{MaxAttempts: 6, BaseDelay: time.Second, MaxDelay: 4 * time.Second},
			script:    []attempt{fail(overloaded()), fail(overloaded()), fail(overloaded()), fail(overloaded()), fail(overloaded()), answer("ok")},
			wantWaits: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second, 4 * time.Second},
			wantRetries: []llm.Retry{
				{Attempt: 2, Wait: time.Second}, {Attempt: 3, Wait: 2 * time.Second},
				{Attempt: 4, Wait: 4 * time.Second}, {Attempt: 5, Wait: 4 * time.Second},
				{Attempt: 6, Wait: 4 * time.Second},
			},
			wantText: "ok",
		},
		{
			name:     "401 is not retried",
			script:   []attempt{fail(auth)},
			wantErr:  llm.ErrAuth,
			wantSame: true,
		},
		{
			name:     "bad request is not retried",
			script:   []attempt{fail(bad)},
			wantErr:  llm.ErrBadRequest,
			wantSame: true,
		},
		{
			name:     "context too long is not retried",
			script:   []attempt{fail(long)},
			wantErr:  llm.ErrContextTooLong,
			wantSame: true,
		},
		{
			name:        "max attempts reached",
			opts:        Options{MaxAttempts: 3},
			script:      []attempt{fail(overloaded()), fail(overloaded()), fail(overloaded())},
			wantWaits:   []time.Duration{time.Second, 2 * time.Second},
			wantRetries: []llm.Retry{{Attempt: 2, Wait: time.Second}, {Attempt: 3, Wait: 2 * time.Second}},
			wantErr:     llm.ErrRetryable,
			wantErrText: "retry: gave up after 3 attempts: llm: fake: HTTP 529: Overloaded",
		},
		{
			name:        "MaxAttempts 1 disables retries",
			opts:        Options{MaxAttempts: 1},
			script:      []attempt{fail(overloaded())},
			wantErr:     llm.ErrRetryable,
			wantErrText: "retry: gave up after 1 attempt: llm: fake: HTTP 529: Overloaded",
		},
		{
			name:        "Retry-After beyond MaxWait fails at once",
			opts:        Options{MaxWait: time.Minute},
			script:      []attempt{fail(rateLimited(5 * time.Minute))},
			wantErr:     llm.ErrRetryable,
			wantErrText: "fake asked to wait 5m0s, longer than the 1m0s allowed (MaxWait)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newScripted(t, "fake", tt.script...)
			var sl sleeper
			opts := tt.opts
			opts.Sleep, opts.Jitter = sl.sleep, fullJitter
			evs, err := drain(New(p, opts).Stream(t.Context(), llm.Request{Model: "m"}))

			if got := p.callCount(); got != len(tt.script) {
				t.Errorf("calls = %d, want %d", got, len(tt.script))
			}
			if !slices.Equal(sl.waits, tt.wantWaits) {
				t.Errorf("waits = %v, want %v", sl.waits, tt.wantWaits)
			}
			var retries []llm.Retry
			for _, ev := range ofType(evs, llm.EventRetry) {
				if ev.Retry.Reason == "" {
					t.Errorf("retry %d has no reason", ev.Retry.Attempt)
				}
				r := *ev.Retry
				r.Reason = ""
				retries = append(retries, r)
			}
			if !slices.Equal(retries, tt.wantRetries) {
				t.Errorf("retries = %+v, want %+v", retries, tt.wantRetries)
			}

			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("err = %v, want success", err)
				}
				var acc llm.Accumulator
				for _, ev := range evs {
					acc.Add(ev)
				}
				if got := acc.Response().Message.Text(); got != tt.wantText {
					t.Errorf("answer = %q, want %q", got, tt.wantText)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want errors.Is %v", err, tt.wantErr)
			}
			if tt.wantSame && err != tt.script[len(tt.script)-1].err {
				t.Errorf("err = %#v, want the provider's error unchanged", err)
			}
			if !strings.Contains(err.Error(), tt.wantErrText) {
				t.Errorf("err = %q, want it to contain %q", err, tt.wantErrText)
			}
		})
	}
}

func TestRetryReasonNamesTheFailure(t *testing.T) {
	p := newScripted(t, "fake", fail(overloaded()), answer("ok"))
	var sl sleeper
	evs, err := drain(New(p, Options{Sleep: sl.sleep}).Stream(t.Context(), llm.Request{}))
	if err != nil {
		t.Fatal(err)
	}
	r := ofType(evs, llm.EventRetry)
	if len(r) != 1 || !strings.Contains(r[0].Retry.Reason, "529") {
		t.Fatalf("retry events = %+v, want one whose reason names HTTP 529", r)
	}
}

func TestRetryCancelDuringBackoffStopsAtOnce(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	p := newScripted(t, "fake", fail(overloaded()))
	sleeps := 0
	opts := Options{Sleep: func(ctx context.Context, d time.Duration) error {
		sleeps++
		cancel() // the user pressed Esc while we waited
		return ctx.Err()
	}}
	evs, err := drain(New(p, opts).Stream(ctx, llm.Request{}))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if errors.Is(err, llm.ErrRetryable) {
		t.Errorf("err = %v matches ErrRetryable; a cancelled call must not look retryable", err)
	}
	if sleeps != 1 || p.callCount() != 1 {
		t.Errorf("sleeps = %d, calls = %d; want 1 and 1", sleeps, p.callCount())
	}
	if n := len(ofType(evs, llm.EventRetry)); n != 1 {
		t.Errorf("retry events = %d, want 1 (announced before the wait)", n)
	}
}

func TestRetryNeverAfterCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	p := newScripted(t, "fake", fail(overloaded()))
	var sl sleeper
	evs, err := drain(New(p, Options{Sleep: sl.sleep}).Stream(ctx, llm.Request{}))
	if err == nil || len(evs) != 0 || len(sl.waits) != 0 || p.callCount() != 1 {
		t.Fatalf("err=%v events=%v waits=%v calls=%d; want the error, no retry", err, evs, sl.waits, p.callCount())
	}
}

func TestRetryConsumerStops(t *testing.T) {
	t.Run("mid-stream", func(t *testing.T) {
		p := newScripted(t, "fake", answer("ok"))
		for range New(p, Options{}).Stream(t.Context(), llm.Request{}) {
			break
		}
		if p.callCount() != 1 {
			t.Errorf("calls = %d, want 1", p.callCount())
		}
	})
	t.Run("at the retry event", func(t *testing.T) {
		p := newScripted(t, "fake", fail(overloaded()))
		var sl sleeper
		for ev := range New(p, Options{Sleep: sl.sleep}).Stream(t.Context(), llm.Request{}) {
			if ev.Type == llm.EventRetry {
				break
			}
		}
		if p.callCount() != 1 || len(sl.waits) != 0 {
			t.Errorf("calls = %d, waits = %v; want 1 call and no wait", p.callCount(), sl.waits)
		}
	})
}

func TestRetryName(t *testing.T) {
	if got := New(newScripted(t, "anthropic"), Options{}).Name(); got != "anthropic" {
		t.Errorf("Name() = %q, want the wrapped provider's", got)
	}
}

func TestDefaults(t *testing.T) {
	o := Options{}.withDefaults()
	if o.MaxAttempts != DefaultMaxAttempts || o.BaseDelay != DefaultBaseDelay ||
		o.MaxDelay != DefaultMaxDelay || o.MaxWait != DefaultMaxWait {
		t.Errorf("defaults = %+v", o)
	}
	for _, max := range []time.Duration{0, 1, time.Second, time.Hour} {
		for range 100 {
			if d := o.Jitter(max); d < 0 || d > max {
				t.Fatalf("Jitter(%v) = %v, outside [0, %v]", max, d, max)
			}
		}
	}
	// A Jitter that overshoots is clamped to the ceiling.
	o.Jitter = func(time.Duration) time.Duration { return time.Hour }
	if d := o.backoff(1); d != o.BaseDelay {
		t.Errorf("backoff with overshooting jitter = %v, want %v", d, o.BaseDelay)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := o.Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("default Sleep on a cancelled ctx = %v, want context.Canceled", err)
	}
}

func TestCollectAfterRetry(t *testing.T) {
	p := newScripted(t, "fake",
		attempt{events: []llm.Event{{Type: llm.EventTextDelta, Text: "stale"}}, err: serverError()},
		answer("fresh"))
	var sl sleeper
	resp, err := llm.Collect(New(p, Options{Sleep: sl.sleep}).Stream(t.Context(), llm.Request{}))
	if err != nil || resp.Message.Text() != "fresh" || resp.StopReason != llm.StopEndTurn {
		t.Fatalf("Collect = %q, %v, %v; want \"fresh\", end_turn, nil", resp.Message.Text(), resp.StopReason, err)
	}
}

func TestReasonHasNoPackagePrefixes(t *testing.T) {
	err := fmt.Errorf("retry: gave up after 5 attempts: %w", &llm.Error{Provider: "local", StatusCode: 529, Message: "Overloaded"})
	if got := reason(err); got != "gave up after 5 attempts: local: HTTP 529: Overloaded" {
		t.Errorf("reason = %q", got)
	}
}
