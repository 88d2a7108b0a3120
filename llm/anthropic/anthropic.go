package anthropic

import (
	"context"
	"fmt"
	"iter"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/godwit/godwit/llm"
)

// DefaultMaxTokens is the max_tokens sent when neither the request nor
// Options name one: the API requires a value, and 8192 fits every current
// model's output limit.
const DefaultMaxTokens = 8192

// Options configures the provider. The zero value talks to
// https://api.anthropic.com without a key; the SDK's environment defaults
// (ANTHROPIC_API_KEY, profiles, ANTHROPIC_BASE_URL) are never read: the
// caller's configuration is the only source.
type Options struct {
	// Name is what Name() reports; "anthropic" when empty.
	Name string
	// BaseURL is the API root, e.g. "https://api.anthropic.com". A trailing
	// "/v1" is accepted and dropped, since the SDK adds it.
	BaseURL string
	APIKey  string
	// Headers are added to every request (e.g. anthropic-beta).
	Headers map[string]string
	// HTTPClient replaces the default client (a clone of
	// http.DefaultTransport with a 10-minute response-header timeout).
	HTTPClient *http.Client
	// DefaultMaxTokens is used when Request.MaxOutputTokens is 0;
	// DefaultMaxTokens (the constant) when this is 0 too.
	DefaultMaxTokens int
	// Logger receives debug records of each call; discarded when nil.
	Logger *slog.Logger
}

type provider struct {
	name      string
	client    sdk.Client
	maxTokens int64
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
	p := &provider{name: opts.Name, log: opts.Logger, maxTokens: int64(opts.DefaultMaxTokens)}
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
	ropts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		// godwit retries in its own layer, where it can tell the consumer
		// (EventRetry); a hidden SDK retry would double the attempts.
		option.WithMaxRetries(0),
		option.WithMiddleware(requireEventStream),
	}
	if opts.BaseURL != "" {
		base, err := normalizeBaseURL(opts.BaseURL)
		if err != nil {
			p.cfgErr = err
		}
		ropts = append(ropts, option.WithBaseURL(base))
	}
	if opts.APIKey != "" {
		ropts = append(ropts, option.WithAPIKey(opts.APIKey))
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = defaultHTTPClient()
	}
	ropts = append(ropts, option.WithHTTPClient(hc))
	for k, v := range opts.Headers {
		ropts = append(ropts, option.WithHeader(k, v))
	}
	p.client = sdk.NewClient(ropts...)
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

		stream := p.client.Messages.NewStreaming(ctx, params)
		defer stream.Close()
		d := decoder{provider: p.name}
		emit := func(e llm.Event) bool { return yield(e, nil) }
		stopped, seen := false, false
		for stream.Next() {
			seen = true
			ev := stream.Current()
			done, cont, err := d.handle(&ev, emit)
			if err != nil {
				yield(llm.Event{}, err)
				return
			}
			if !cont {
				return
			}
			if done {
				stopped = true
				break
			}
		}
		if !stopped {
			yield(llm.Event{}, p.streamError(ctx, stream.Err(), seen))
			return
		}
		p.log.Debug("anthropic: done", "model", req.Model, "stop", d.stop, "input_tokens", d.usage.InputTokens, "output_tokens", d.usage.OutputTokens, "elapsed", time.Since(start))
	}
}

// streamError explains why a stream ended before message_stop.
func (p *provider) streamError(ctx context.Context, err error, midStream bool) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("anthropic: %w", ctxErr)
	}
	if err == nil {
		// A clean EOF before message_stop: the connection was closed mid-answer.
		return &llm.Error{Kind: llm.KindRetryable, Provider: p.name, Message: "stream ended before message_stop (connection closed mid-answer)"}
	}
	return classify(p.name, err, midStream)
}

func normalizeBaseURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return s, fmt.Errorf("BaseURL %q is not an absolute URL; set it to e.g. https://api.anthropic.com", s)
	}
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/v1")
	return u.String(), nil
}

func defaultHTTPClient() *http.Client {
	t, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return &http.Client{}
	}
	t = t.Clone()
	// Bounds the wait for headers only; a long stream is unaffected.
	t.ResponseHeaderTimeout = 10 * time.Minute
	return &http.Client{Transport: t}
}

// requireEventStream rejects a successful answer that is not an event
// stream (a misconfigured BaseURL answering JSON or HTML), which would
// otherwise look like an empty stream and be retried forever.
func requireEventStream(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if err != nil || res.StatusCode >= 300 {
		return res, err
	}
	ct := res.Header.Get("Content-Type")
	if mt, _, perr := mime.ParseMediaType(ct); ct == "" || (perr == nil && mt == "text/event-stream") {
		return res, nil
	}
	_ = res.Body.Close()
	return nil, &contentTypeError{contentType: ct, url: req.URL.String()}
}

type contentTypeError struct{ contentType, url string }

func (e *contentTypeError) Error() string {
	return fmt.Sprintf("%s answered %q, not an event stream; check that BaseURL points at the Anthropic Messages API", e.url, e.contentType)
}
