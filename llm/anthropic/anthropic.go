package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/internal/sse"
)

// apiVersion is the anthropic-version header: the version of the
// Messages API whose reference this adapter follows.
const apiVersion = "2023-06-01"

// DefaultMaxTokens is the max_tokens sent when neither the request nor
// Options name one: the API requires a value, and 8192 fits every current
// model's output limit.
const DefaultMaxTokens = 8192

// Options configures the provider. The zero value talks to
// https://api.anthropic.com without a key; the environment
// (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL) is never read: the caller's
// configuration is the only source.
type Options struct {
	// Name is what Name() reports; "anthropic" when empty.
	Name string
	// BaseURL is the API root, e.g. "https://api.anthropic.com". A trailing
	// "/v1" is accepted and dropped, since the adapter adds it.
	BaseURL string
	APIKey  string
	// Headers are added to every request (e.g. anthropic-beta).
	Headers map[string]string
	// HTTPClient replaces http.DefaultClient. Do not give it a Timeout: a
	// long answer streams for minutes; IdleTimeout bounds a silent one.
	HTTPClient *http.Client
	// DefaultMaxTokens is used when Request.MaxOutputTokens is 0;
	// DefaultMaxTokens (the constant) when this is 0 too.
	DefaultMaxTokens int
	// IdleTimeout is how long the server may send nothing (no headers,
	// no bytes of the stream; the API's pings count) before the call
	// counts as a dropped connection, which is retried; 0 means 5
	// minutes.
	IdleTimeout time.Duration
	// Logger receives debug records of each call; discarded when nil.
	Logger *slog.Logger
}

type provider struct {
	name      string
	url       string // the messages endpoint
	apiKey    string
	headers   map[string]string
	client    *http.Client
	maxTokens int64
	idle      time.Duration
	log       *slog.Logger
	// cfgErr is a configuration mistake found by New, reported by every
	// Stream since New cannot fail.
	cfgErr error
}

// New returns a Provider for the Messages API. It is safe for concurrent
// use. Configuration mistakes (a malformed BaseURL, a negative
// DefaultMaxTokens) are reported by the first Stream as a KindBadRequest
// error.
func New(opts Options) llm.Provider {
	p := &provider{name: opts.Name, log: opts.Logger, maxTokens: int64(opts.DefaultMaxTokens), idle: opts.IdleTimeout}
	if p.name == "" {
		p.name = "anthropic"
	}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	switch {
	case opts.DefaultMaxTokens < 0:
		p.cfgErr = fmt.Errorf("DefaultMaxTokens is %d; set it to 0 (the default, %d) or a positive token count", opts.DefaultMaxTokens, DefaultMaxTokens)
	case opts.DefaultMaxTokens == 0:
		p.maxTokens = DefaultMaxTokens
	}
	p.url, p.apiKey, p.headers, p.client = "https://api.anthropic.com/v1/messages", opts.APIKey, opts.Headers, opts.HTTPClient
	if opts.BaseURL != "" {
		base, err := normalizeBaseURL(opts.BaseURL)
		if err != nil {
			p.cfgErr = err
		}
		p.url = base + "/v1/messages"
	}
	if p.client == nil {
		p.client = http.DefaultClient
	}
	return p
}

func (p *provider) Name() string { return p.name }

// Stream implements llm.Provider. Tool-call events carry in Index the
// call's position among this answer's calls (0, 1, ...); usage is yielded
// twice, from message_start (input known) and message_delta (final).
func (p *provider) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		if p.cfgErr != nil {
			yield(llm.Event{}, &llm.Error{Kind: llm.KindBadRequest, Provider: p.name, Message: "configuration: " + p.cfgErr.Error()})
			return
		}
		params, budget, err := buildParams(req, p.maxTokens)
		if err != nil {
			yield(llm.Event{}, &llm.Error{Kind: llm.KindBadRequest, Provider: p.name, Message: err.Error(), Err: err})
			return
		}
		if budget > 0 && req.Temperature != nil {
			p.log.Debug("anthropic: temperature dropped: extended thinking requires the default", "reasoning", req.Reasoning)
		}
		start := time.Now()
		p.log.Debug("anthropic: request", "model", req.Model, "messages", len(params.Messages), "tools", len(params.Tools), "max_tokens", params.MaxTokens, "thinking_budget", budget)

		wctx, idle := sse.Watch(ctx, p.idle)
		defer idle.Stop()
		body, err := p.send(wctx, params)
		if err != nil {
			yield(llm.Event{}, p.failed(ctx, idle.Err(err), false))
			return
		}
		defer body.Close()
		d := decoder{provider: p.name}
		emit := func(e llm.Event) bool { return yield(e, nil) }
		events := sse.NewReader(idle.Body(body))
		seen := false
		for {
			raw, err := events.Next()
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				yield(llm.Event{}, p.failed(ctx, idle.Err(err), seen))
				return
			}
			seen = true
			var ev event
			if err := json.Unmarshal(raw.Data, &ev); err != nil {
				yield(llm.Event{}, p.failed(ctx, fmt.Errorf("%w: %s", errUnparseable, err), seen))
				return
			}
			if ev.Type == "error" {
				yield(llm.Event{}, fromAPIError(p.name, 0, nil, raw.Data))
				return
			}
			done, cont, err := d.handle(&ev, emit)
			if err != nil {
				yield(llm.Event{}, err)
				return
			}
			if !cont {
				return
			}
			if done {
				break
			}
		}
		p.log.Debug("anthropic: done", "model", req.Model, "stop", d.stop, "input_tokens", d.usage.InputTokens, "output_tokens", d.usage.OutputTokens, "elapsed", time.Since(start))
	}
}

// send posts the request and returns the event stream's body; a failed
// answer is an *llm.Error.
func (p *provider) send(ctx context.Context, params request) (io.ReadCloser, error) {
	data, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("encoding the request: %w", err)
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "text/event-stream")
	hr.Header.Set("Anthropic-Version", apiVersion)
	if p.apiKey != "" {
		// As the official SDK (v2) sends it.
		hr.Header.Set("Authorization", "Bearer "+p.apiKey)
	}
	for k, v := range p.headers {
		hr.Header.Set(k, v)
	}
	res, err := p.client.Do(hr)
	if err != nil {
		return nil, err
	}
	if res.StatusCode >= 300 {
		defer res.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
		return nil, fromAPIError(p.name, res.StatusCode, res.Header, b)
	}
	ct := res.Header.Get("Content-Type")
	if mt, _, perr := mime.ParseMediaType(ct); ct != "" && (perr != nil || mt != "text/event-stream") {
		res.Body.Close()
		// A misconfigured BaseURL answering JSON or HTML would otherwise
		// look like an empty stream and be retried forever.
		return nil, &llm.Error{Kind: llm.KindMalformed, Provider: p.name,
			Message: fmt.Sprintf("%s answered %q, not an event stream; check that BaseURL points at the Anthropic Messages API", p.url, ct)}
	}
	return res.Body, nil
}

func normalizeBaseURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return s, fmt.Errorf("BaseURL %q is not an absolute URL; set it to e.g. https://api.anthropic.com", s)
	}
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/v1")
	return u.String(), nil
}
