package wiring

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/godwit/godwit/internal/config"
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
// a fallback chain.
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
	fallbacks := cfg.Fallback[ref]
	if len(fallbacks) == 0 {
		pm.Provider = retry.New(primary.entry.Provider, ropts)
		return pm, nil
	}
	chain := []retry.Named{primary.entry}
	for _, fb := range fallbacks {
		one, err := buildOne(cat, fb, getenv, log)
		if err != nil {
			return ProviderModel{}, fmt.Errorf("wiring: fallback for %s: %w", ref, err)
		}
		chain = append(chain, one.entry)
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
		return built{}, err
	}
	prov, ok := cat.Provider(provName)
	if !ok {
		var names []string
		for _, p := range cat.Providers() {
			names = append(names, p.Name)
		}
		return built{}, fmt.Errorf("wiring: no provider %q; known providers: %v (add your own under providers: in config.yaml)", provName, names)
	}
	key, err := prov.APIKey(getenv)
	if err != nil {
		return built{}, err
	}
	model, warning := cat.Resolve(provName, modelID)
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
		return built{}, fmt.Errorf("wiring: provider %q has type %q; use anthropic, openai-responses or openai-chat", prov.Name, prov.Type)
	}
	return built{entry: retry.Named{Label: provName + "/" + modelID, Provider: p, Model: modelID}, model: model, warning: warning}, nil
}
