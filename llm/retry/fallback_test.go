package retry

import (
	"context"
	"errors"
	"iter"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/godwit/godwit/llm"
)

// refused returns a real connection-refused error, classified the way an
// adapter classifies a transport failure.
func refusedErr(t *testing.T) error {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	resp, err := http.Get("http://" + addr + "/v1/messages")
	if err == nil {
		resp.Body.Close()
		t.Fatal("GET on a closed port succeeded")
	}
	return &llm.Error{Kind: llm.KindRetryable, Provider: "fake", Err: err}
}

type chainRun struct {
	events []llm.Event
	err    error
}

func run(t *testing.T, c *Chain, ctx context.Context) chainRun {
	t.Helper()
	evs, err := drain(c.Stream(ctx, llm.Request{Model: "as-asked"}))
	return chainRun{evs, err}
}

func fallbacks(evs []llm.Event) []llm.Fallback {
	var out []llm.Fallback
	for _, ev := range ofType(evs, llm.EventFallback) {
		out = append(out, *ev.Fallback)
	}
	return out
}

func TestFallback(t *testing.T) {
	dns := &llm.Error{Kind: llm.KindRetryable, Provider: "fake",
		Err: &net.DNSError{Err: "no such host", Name: "api.example.invalid", IsNotFound: true}}
	tests := []struct {
		name          string
		a, b          []attempt // scripts for the two entries
		wantFallbacks int
		wantRetries   int
		wantText      string
		wantErr       error // errors.Is target; nil means success
		wantErrText   string
		wantCurrent   string
	}{
		{
			name:          "moves on after overload outlasts retries",
			a:             []attempt{fail(overloaded()), fail(overloaded())},
			b:             []attempt{answer("from b")},
			wantFallbacks: 1, wantRetries: 1,
			wantText:    "from b",
			wantCurrent: "b/model-b",
		},
		{
			name:          "moves on at once when the connection is refused",
			a:             []attempt{fail(refusedErr(t))},
			b:             []attempt{answer("from b")},
			wantFallbacks: 1,
			wantText:      "from b",
			wantCurrent:   "b/model-b",
		},
		{
			name:          "moves on at once on a DNS failure",
			a:             []attempt{fail(dns)},
			b:             []attempt{answer("from b")},
			wantFallbacks: 1,
			wantText:      "from b",
			wantCurrent:   "b/model-b",
		},
		{
			name:        "stays when the first model answers",
			a:           []attempt{answer("from a")},
			wantText:    "from a",
			wantCurrent: "a/model-a",
		},
		{
			name:        "bad request does not fall back",
			a:           []attempt{fail(&llm.Error{Kind: llm.KindBadRequest, StatusCode: 400, Message: "bad tool schema"})},
			wantErr:     llm.ErrBadRequest,
			wantErrText: "bad tool schema",
			wantCurrent: "a/model-a",
		},
		{
			name:        "auth error does not fall back",
			a:           []attempt{fail(&llm.Error{Kind: llm.KindAuth, StatusCode: 401})},
			wantErr:     llm.ErrAuth,
			wantCurrent: "a/model-a",
		},
		{
			name:          "every model failing says which were tried",
			a:             []attempt{fail(overloaded()), fail(overloaded())},
			b:             []attempt{fail(overloaded()), fail(overloaded())},
			wantFallbacks: 1, wantRetries: 2,
			wantErr:     llm.ErrRetryable,
			wantErrText: "retry: every model in the fallback chain failed (a/model-a, b/model-b): retry: gave up after 2 attempts",
			wantCurrent: "a/model-a",
		},
		{
			name:          "the last entry unreachable is retried, not skipped",
			a:             []attempt{fail(dns)},
			b:             []attempt{fail(dns), answer("b at last")},
			wantFallbacks: 1, wantRetries: 1,
			wantText:    "b at last",
			wantCurrent: "b/model-b",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pa, pb := newScripted(t, "a", tt.a...), newScripted(t, "b", tt.b...)
			var sl sleeper
			c := NewFallback([]Named{
				{Provider: pa, Model: "model-a"},
				{Provider: pb, Model: "model-b"},
			}, FallbackOptions{Retry: Options{MaxAttempts: 2, Sleep: sl.sleep}})
			r := run(t, c, t.Context())

			if pa.callCount() != len(tt.a) || pb.callCount() != len(tt.b) {
				t.Errorf("calls = %d, %d; want %d, %d", pa.callCount(), pb.callCount(), len(tt.a), len(tt.b))
			}
			for _, m := range pa.models {
				if m != "model-a" {
					t.Errorf("a was asked for model %q, want model-a", m)
				}
			}
			for _, m := range pb.models {
				if m != "model-b" {
					t.Errorf("b was asked for model %q, want model-b", m)
				}
			}
			fbs := fallbacks(r.events)
			if len(fbs) != tt.wantFallbacks {
				t.Errorf("fallback events = %+v, want %d", fbs, tt.wantFallbacks)
			}
			for _, fb := range fbs {
				if fb.From != "a/model-a" || fb.To != "b/model-b" || fb.Reason == "" {
					t.Errorf("fallback = %+v, want a/model-a -> b/model-b with a reason", fb)
				}
			}
			if n := len(ofType(r.events, llm.EventRetry)); n != tt.wantRetries {
				t.Errorf("retry events = %d, want %d", n, tt.wantRetries)
			}
			if got := c.Current().Label; got != tt.wantCurrent {
				t.Errorf("Current() = %q, want %q", got, tt.wantCurrent)
			}
			if tt.wantErr == nil {
				if r.err != nil {
					t.Fatalf("err = %v, want success", r.err)
				}
				var acc llm.Accumulator
				for _, ev := range r.events {
					acc.Add(ev)
				}
				if got := acc.Response().Message.Text(); got != tt.wantText {
					t.Errorf("answer = %q, want %q", got, tt.wantText)
				}
				return
			}
			if !errors.Is(r.err, tt.wantErr) || !strings.Contains(r.err.Error(), tt.wantErrText) {
				t.Errorf("err = %v, want errors.Is %v and text %q", r.err, tt.wantErr, tt.wantErrText)
			}
		})
	}
}

func TestFallbackIsSticky(t *testing.T) {
	a := newScripted(t, "a", fail(overloaded()), answer("a is back"))
	b := newScripted(t, "b", answer("b one"), answer("b two"), fail(overloaded()))
	var sl sleeper
	c := NewFallback([]Named{
		{Label: "a/x", Provider: a, Model: "x"},
		{Label: "b/y", Provider: b, Model: "y"},
	}, FallbackOptions{Retry: Options{MaxAttempts: 1, Sleep: sl.sleep}})

	want := []struct {
		text      string
		fallbacks []llm.Fallback
		current   string
	}{
		// a is overloaded: move to b.
		{"b one", []llm.Fallback{{From: "a/x", To: "b/y"}}, "b/y"},
		// b stays current: a is not tried again.
		{"b two", nil, "b/y"},
		// b fails: wrap around to a, which has recovered.
		{"a is back", []llm.Fallback{{From: "b/y", To: "a/x"}}, "a/x"},
	}
	for i, w := range want {
		r := run(t, c, t.Context())
		if r.err != nil {
			t.Fatalf("call %d: %v", i+1, r.err)
		}
		var acc llm.Accumulator
		for _, ev := range r.events {
			acc.Add(ev)
		}
		if got := acc.Response().Message.Text(); got != w.text {
			t.Errorf("call %d: answer = %q, want %q", i+1, got, w.text)
		}
		fbs := fallbacks(r.events)
		for j := range fbs {
			fbs[j].Reason = ""
		}
		if !slices.Equal(fbs, w.fallbacks) {
			t.Errorf("call %d: fallbacks = %+v, want %+v", i+1, fbs, w.fallbacks)
		}
		if got := c.Current().Label; got != w.current {
			t.Errorf("call %d: Current() = %q, want %q", i+1, got, w.current)
		}
		if got := c.Name(); got != c.Current().Provider.Name() {
			t.Errorf("call %d: Name() = %q, want the current provider's", i+1, got)
		}
	}
}

func TestFallbackDiscardsPartialAnswer(t *testing.T) {
	cut := attempt{
		events: []llm.Event{{Type: llm.EventTextDelta, Text: "half of a's ans"}},
		err:    &llm.Error{Kind: llm.KindRetryable, Message: "stream cut mid-way"},
	}
	c := NewFallback([]Named{
		{Provider: newScripted(t, "a", cut), Model: "x"},
		{Provider: newScripted(t, "b", answer("b's answer")), Model: "y"},
	}, FallbackOptions{Retry: Options{MaxAttempts: 1}})
	var discarded bool
	resp, err := llm.Collect(func(yield func(llm.Event, error) bool) {
		for ev, err := range c.Stream(t.Context(), llm.Request{}) {
			if ev.Type == llm.EventFallback {
				discarded = ev.Fallback.Discarded
			}
			if !yield(ev, err) {
				return
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if !discarded {
		t.Error("the fallback event does not say the partial answer was discarded")
	}
	if got := resp.Message.Text(); got != "b's answer" {
		t.Errorf("answer = %q, want only b's", got)
	}
}

func TestFallbackNotAfterCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	a := funcProvider{name: "a", stream: func(ctx context.Context, _ llm.Request) iter.Seq2[llm.Event, error] {
		return func(yield func(llm.Event, error) bool) {
			cancel()
			yield(llm.Event{}, overloaded())
		}
	}}
	b := newScripted(t, "b") // must not be called
	c := NewFallback([]Named{{Provider: a}, {Provider: b}}, FallbackOptions{})
	r := run(t, c, ctx)
	if r.err == nil || len(fallbacks(r.events)) != 0 || b.callCount() != 0 {
		t.Errorf("err=%v fallbacks=%v b calls=%d; want the error and no move", r.err, fallbacks(r.events), b.callCount())
	}
}

func TestFallbackBadChain(t *testing.T) {
	tests := []struct {
		name  string
		chain []Named
		want  string
	}{
		{"empty", nil, "retry: the fallback chain is empty; configure at least one model"},
		{"nil provider", []Named{{Provider: newScripted(t, "a")}, {Label: "b/y"}},
			`retry: fallback entry 2 ("b/y") has no provider`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewFallback(tt.chain, FallbackOptions{})
			_, err := drain(c.Stream(t.Context(), llm.Request{}))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
			_ = c.Name() // must not panic
		})
	}
}

func TestFallbackConcurrent(t *testing.T) {
	down := funcProvider{name: "a", stream: func(context.Context, llm.Request) iter.Seq2[llm.Event, error] {
		return func(yield func(llm.Event, error) bool) { yield(llm.Event{}, overloaded()) }
	}}
	up := funcProvider{name: "b", stream: func(_ context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
		return func(yield func(llm.Event, error) bool) {
			for _, ev := range answer(req.Model).events {
				if !yield(ev, nil) {
					return
				}
			}
		}
	}}
	c := NewFallback([]Named{{Provider: down, Model: "x"}, {Provider: up, Model: "y"}},
		FallbackOptions{Retry: Options{MaxAttempts: 1}})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			resp, err := llm.Collect(c.Stream(t.Context(), llm.Request{}))
			if err != nil || resp.Message.Text() != "y" {
				t.Errorf("got %q, %v; want y", resp.Message.Text(), err)
			}
		})
	}
	wg.Wait()
	if got := c.Current().Label; got != "b/y" {
		t.Errorf("Current() = %q, want b/y", got)
	}
}

func TestFallbackDefaultLabel(t *testing.T) {
	a := newScripted(t, "a")
	tests := []struct {
		entry Named
		want  string
	}{
		{Named{Provider: a, Model: "x"}, "a/x"},
		{Named{Provider: a}, "a"},
		{Named{Label: "mine", Provider: a, Model: "x"}, "mine"},
	}
	for _, tt := range tests {
		if got := NewFallback([]Named{tt.entry}, FallbackOptions{}).Current().Label; got != tt.want {
			t.Errorf("label of %+v = %q, want %q", tt.entry, got, tt.want)
		}
	}
}
