package wiring

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/catalog"
)

// hinted adds to a refused key or an answer in another wire format what
// the user must change in the configuration, under the retries, so every
// entry of a fallback chain names its own.

// hintError is a provider failure with what to do about it. It unwraps to
// the provider's error, so errors.Is and errors.As see the *llm.Error.
type hintError struct {
	err  error
	hint string
}

func (e *hintError) Error() string { return e.err.Error() + "; " + e.hint }
func (e *hintError) Unwrap() error { return e.err }

// Hint is what to do; the agent keeps it in the turn's record.
func (e *hintError) Hint() string { return e.hint }

type hinted struct {
	llm.Provider
	auth, malformed string
}

// withHints wraps p so that its failures name prov's configuration.
func withHints(p llm.Provider, prov catalog.Provider, key string, getenv func(string) string) llm.Provider {
	h := &hinted{Provider: p}
	switch {
	case prov.APIKeyEnv != "" && key != "":
		h.auth = fmt.Sprintf("%s is set, but %s does not accept it (wrong, expired, revoked, or without access to this model): put a valid key in %s, or pick another model with --model provider/model",
			prov.APIKeyEnv, prov.Name, prov.APIKeyEnv)
	default:
		h.auth = fmt.Sprintf("%s is sent no key (no_key, or api_key_env unset); name the variable holding its key with api_key_env under providers: %s: in config.yaml",
			prov.Name, prov.Name)
	}
	where := "base_url under providers: " + prov.Name + ": in config.yaml"
	if prov.BaseURLEnv != "" && getenv(prov.BaseURLEnv) != "" {
		where = prov.BaseURLEnv
	}
	h.malformed = fmt.Sprintf("%s's base URL is %s (from %s): check that it points at a server speaking %s", prov.Name, prov.URL(getenv), where, wireName(prov.Type))
	return h
}

func wireName(typ string) string {
	switch typ {
	case catalog.TypeAnthropic:
		return "the Anthropic Messages API"
	case catalog.TypeOpenAIResponses:
		return "the OpenAI Responses API"
	}
	return "the OpenAI Chat Completions API (or set type: under providers: in config.yaml)"
}

func (h *hinted) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		for ev, err := range h.Provider.Stream(ctx, req) {
			if err != nil {
				switch {
				case ctx.Err() != nil:
				case errors.Is(err, llm.ErrAuth):
					err = &hintError{err: err, hint: h.auth}
				case errors.Is(err, llm.ErrMalformed):
					err = &hintError{err: err, hint: h.malformed}
				}
			}
			if !yield(ev, err) {
				return
			}
		}
	}
}
