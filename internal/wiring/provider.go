package wiring

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/godwit/godwit/internal/config"
	"github.com/godwit/godwit/internal/suggest"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/anthropic"
	"github.com/godwit/godwit/llm/catalog"
	"github.com/godwit/godwit/llm/openai"
	"github.com/godwit/godwit/llm/retry"
)

// ProviderModel is a provider ready to answer for one model, with the
// catalog's facts about the model.
type ProviderModel struct {
	Provider     llm.Provider
	ProviderName string
	Model        catalog.Model
	// Warning is set when the model is not in the catalog and defaults
	// were assumed; say it to the user once.
	Warning string
}

// NewProvider builds the provider a "provider/model" reference names,
// wrapped in retries and, when the config lists fallbacks for the model,
// a fallback chain. A fallback whose API key is not set is left out of
// the chain with a warning, so that a missing key for a spare model never
// stops the main one; any other problem with a fallback is the config's,
// an *InputError like a bad main model.
func NewProvider(cfg config.Config, cat *catalog.Catalog, ref string, getenv func(string) string, log *slog.Logger) (ProviderModel, error) {
	primary, err := buildOne(cat, ref, getenv, log)
	if err != nil {
		return ProviderModel{}, err
	}
	ropts := retry.Options{MaxAttempts: cfg.Retry.MaxAttempts, Logger: log}
	if cfg.Retry.MaxDelaySeconds > 0 {
		ropts.MaxDelay = time.Duration(cfg.Retry.MaxDelaySeconds) * time.Second
	}
	pm := ProviderModel{ProviderName: primary.entry.Provider.Name(), Model: primary.model, Warning: primary.warning}
	chain := []retry.Named{primary.entry}
	for _, fb := range cfg.Fallback[ref] {
		one, err := buildOne(cat, fb, getenv, log)
		var ke *catalog.KeyError
		switch {
		case errors.As(err, &ke):
			log.Warn(fmt.Sprintf("fallback %s is skipped: %s is not set (config.yaml lists it under fallback for %s)", fb, ke.Env, ref))
			continue
		case err != nil:
			return ProviderModel{}, inputError(fmt.Errorf("wiring: config.yaml: fallback %s for %s: %w", fb, ref, err))
		}
		chain = append(chain, one.entry)
	}
	if len(chain) == 1 {
		pm.Provider = retry.New(primary.entry.Provider, ropts)
		return pm, nil
	}
	pm.Provider = retry.NewFallback(chain, retry.FallbackOptions{Retry: ropts, Logger: log})
	return pm, nil
}

type built struct {
	entry   retry.Named
	model   catalog.Model
	warning string
}

func buildOne(cat *catalog.Catalog, ref string, getenv func(string) string, log *slog.Logger) (built, error) {
	provName, modelID, err := catalog.ParseModelRef(ref)
	if err != nil {
		return built{}, inputError(err)
	}
	prov, ok := cat.Provider(provName)
	if !ok {
		var names []string
		for _, p := range cat.Providers() {
			names = append(names, p.Name)
		}
		msg := fmt.Sprintf("wiring: unknown provider %q in %s", provName, ref)
		if s := suggest.Nearest(provName, names); s != "" {
			msg += fmt.Sprintf(": did you mean %s/%s?", s, modelID)
		}
		return built{}, inputError(fmt.Errorf("%s (the providers are %s; add your own under providers: in config.yaml)", msg, strings.Join(names, ", ")))
	}
	key, err := prov.APIKey(getenv)
	if err != nil {
		return built{}, err
	}
	model, warning := cat.Resolve(provName, modelID)
	if warning != "" {
		var ids []string
		for _, m := range cat.Models() {
			if m.Provider == provName && m.ID != "" {
				ids = append(ids, m.ID)
			}
		}
		if s := suggest.Nearest(modelID, ids); s != "" {
			warning += fmt.Sprintf("; did you mean %s/%s? (`godwit models %s` lists the known ones)", provName, s, provName)
		}
	}
	var p llm.Provider
	switch prov.Type {
	case catalog.TypeAnthropic:
		p = anthropic.New(anthropic.Options{Name: prov.Name, BaseURL: prov.URL(getenv), APIKey: key, Headers: prov.Headers, DefaultMaxTokens: model.MaxOutput, Logger: log})
	case catalog.TypeOpenAIResponses:
		p = openai.NewResponses(openai.Options{Name: prov.Name, BaseURL: prov.URL(getenv), APIKey: key, Headers: prov.Headers, SendCacheKey: true, Logger: log})
	case catalog.TypeOpenAIChat:
		p = openai.NewChat(openai.Options{Name: prov.Name, BaseURL: prov.URL(getenv), APIKey: key, Headers: prov.Headers, SendCacheKey: prov.SendCacheKey,
			OpenRouter: prov.Name == "openrouter", Logger: log})
	default:
		return built{}, inputError(fmt.Errorf("wiring: provider %q has type %q; use anthropic, openai-responses or openai-chat", prov.Name, prov.Type))
	}
	return built{entry: retry.Named{Label: provName + "/" + modelID, Provider: p, Model: modelID}, model: model, warning: warning}, nil
}
