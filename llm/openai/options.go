package openai

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/openai/openai-go/v3/option"
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
	// Completions to a server other than api.openai.com (which always gets
	// it). Leave it off for servers that reject unknown fields. The
	// Responses adapter always sends it.
	SendCacheKey bool
	// OpenRouter selects OpenRouter's dialect of Chat Completions: the
	// reasoning effort goes as reasoning: {effort}, and reasoning_details
	// go back on assistant messages as received. It is implied by an
	// openrouter.ai base URL.
	OpenRouter bool
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

// isOpenAI reports whether the base URL is OpenAI's own API.
func (o Options) isOpenAI() bool {
	u, err := url.Parse(o.baseURL())
	return err == nil && strings.EqualFold(u.Hostname(), "api.openai.com")
}

// isOpenRouter reports whether the adapter speaks OpenRouter's dialect.
func (o Options) isOpenRouter() bool {
	if o.OpenRouter {
		return true
	}
	u, err := url.Parse(o.baseURL())
	if err != nil {
		return false
	}
	h := strings.ToLower(u.Hostname())
	return h == "openrouter.ai" || strings.HasSuffix(h, ".openrouter.ai")
}

// sdkOptions builds the SDK client options. The SDK's constructors that
// read OPENAI_API_KEY and OPENAI_BASE_URL are avoided on purpose: a key
// meant for OpenAI must never reach a local server configured without one.
func sdkOptions(o Options, now func() time.Time) []option.RequestOption {
	opts := []option.RequestOption{
		option.WithBaseURL(o.baseURL()),
		option.WithMaxRetries(0), // llm/retry owns retries
		option.WithMiddleware(checkResponse(o.name(), now)),
	}
	if o.APIKey != "" {
		opts = append(opts, option.WithAPIKey(o.APIKey))
	}
	if o.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(o.HTTPClient))
	}
	keys := make([]string, 0, len(o.Headers))
	for k := range o.Headers {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		opts = append(opts, option.WithHeader(k, o.Headers[k]))
	}
	return opts
}

// reasoningModel reports whether model names one of OpenAI's reasoning
// families, which take max_completion_tokens instead of max_tokens and
// can return encrypted reasoning. The test is by name because the API
// offers no way to ask; an unknown model is treated as not reasoning.
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
