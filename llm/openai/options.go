package openai

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// DefaultBaseURL is used when Options.BaseURL is empty.
const DefaultBaseURL = "https://api.openai.com/v1"

// Options configures an adapter. The zero value talks to OpenAI without a
// key (which OpenAI refuses with an auth error); set APIKey for OpenAI.
type Options struct {
	// Name is the provider's configured name, used in events and errors
	// ("openai", "deepseek", "ollama"). Default "openai".
	Name string
	// BaseURL is the API root including the version path, e.g.
	// "http://localhost:11434/v1". Default DefaultBaseURL.
	BaseURL string
	// APIKey is sent as a bearer token. Empty sends no Authorization header
	// (Ollama, llama.cpp). The environment is never read.
	APIKey string
	// Headers are added to every request (OpenRouter's HTTP-Referer, ...).
	Headers map[string]string
	// HTTPClient replaces http.DefaultClient. Do not give it a Timeout: a
	// long answer streams for minutes; cancel the context instead.
	HTTPClient *http.Client
	// SendCacheKey sends Request.CacheKey as prompt_cache_key on Chat
	// Completions to a server other than api.openai.com (which always
	// gets it); servers that reject unknown fields need it off.
	SendCacheKey bool
	// OpenRouter selects OpenRouter's dialect of Chat Completions
	// (reasoning: {effort}, reasoning_details sent back); an openrouter.ai
	// base URL implies it.
	OpenRouter bool
	// IdleTimeout is how long the server may send nothing (no headers,
	// no bytes of the stream) before the call counts as a dropped
	// connection, which is retried; 0 means 5 minutes.
	IdleTimeout time.Duration
	// Logger receives debug records; nil discards them.
	Logger *slog.Logger
}

func (o Options) name() string {
	if o.Name != "" {
		return o.Name
	}
	return "openai"
}

func (o Options) baseURL() string {
	if o.BaseURL != "" {
		return o.BaseURL
	}
	return DefaultBaseURL
}

func (o Options) logger() *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// check validates the options; the providers report its error from
// Stream, since their constructors cannot fail.
func (o Options) check() error {
	u, err := url.Parse(o.baseURL())
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("openai: base URL %q is not an absolute http(s) URL: write it like http://localhost:11434/v1", o.BaseURL)
	}
	return nil
}

// host is the base URL's host name, lower case.
func (o Options) host() string {
	u, err := url.Parse(o.baseURL())
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

func (o Options) isOpenAI() bool { return o.host() == "api.openai.com" }

// isOpenRouter reports whether the adapter speaks OpenRouter's dialect.
func (o Options) isOpenRouter() bool {
	h := o.host()
	return o.OpenRouter || h == "openrouter.ai" || strings.HasSuffix(h, ".openrouter.ai")
}

// client posts requests to one server. The environment (OPENAI_API_KEY,
// OPENAI_BASE_URL) is never read: a key meant for OpenAI must never reach
// a local server configured without one.
type client struct {
	name    string
	base    string
	apiKey  string
	headers map[string]string
	http    *http.Client
	now     func() time.Time
}

func newClient(o Options, now func() time.Time) client {
	c := client{name: o.name(), base: strings.TrimRight(o.baseURL(), "/"), apiKey: o.APIKey, headers: o.Headers, http: o.HTTPClient, now: now}
	if c.http == nil {
		c.http = http.DefaultClient
	}
	if c.now == nil {
		c.now = time.Now
	}
	return c
}

// post sends body to {base}{path} and returns the event stream, or the
// failed answer as a classified *llm.Error (see checkResponse).
func (c client) post(ctx context.Context, path string, body []byte) (io.ReadCloser, error) {
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "text/event-stream")
	if c.apiKey != "" {
		hr.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	for k, v := range c.headers {
		hr.Header.Set(k, v)
	}
	res, err := c.http.Do(hr)
	if err != nil {
		return nil, err
	}
	return checkResponse(c.name, res, c.now())
}

// reasoningModel reports whether model names one of OpenAI's reasoning
// families (max_completion_tokens, encrypted reasoning), by name: the API
// offers no way to ask.
func reasoningModel(model string) bool {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 { // "openai/gpt-5" on routers
		m = m[i+1:]
	}
	for _, p := range []string{"o1", "o3", "o4", "gpt-5", "codex"} {
		if strings.HasPrefix(m, p) {
			return true
		}
	}
	return false
}
