package wiring

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/godwit/godwit/internal/config"
	"github.com/godwit/godwit/internal/suggest"
	"github.com/godwit/godwit/internal/window"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/anthropic"
	"github.com/godwit/godwit/llm/catalog"
	"github.com/godwit/godwit/llm/openai"
	"github.com/godwit/godwit/llm/retry"
)

// ProviderModel is a provider ready to answer for one model, with the
// catalog's facts about the model (only its ID for a caller's provider).
type ProviderModel struct {
	Provider     llm.Provider
	ProviderName string
	Model        catalog.Model
	// Warning is set when the model is not in the catalog and defaults
	// were assumed; say it to the user once.
	Warning string
}

// NewProvider builds the provider a "provider/model" reference names,
// with retries and the config's fallbacks for it. A fallback without its
// API key is left out with a warning; any other problem with one is an
// *InputError, like a bad main model.
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
		if refs := providersOf(cat, strings.TrimSpace(ref)); len(refs) > 0 {
			err = fmt.Errorf("%w; did you mean %s?", err, strings.Join(refs, " or "))
		}
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
		p = anthropic.New(anthropic.Options{Name: prov.Name, BaseURL: prov.URL(getenv), APIKey: key, Headers: prov.Headers, DefaultMaxTokens: model.MaxOutput, IdleTimeout: prov.IdleTimeout, Logger: log})
	case catalog.TypeOpenAIResponses:
		p = openai.NewResponses(openai.Options{Name: prov.Name, BaseURL: prov.URL(getenv), APIKey: key, Headers: prov.Headers, SendCacheKey: true, IdleTimeout: prov.IdleTimeout, Logger: log})
	case catalog.TypeOpenAIChat:
		p = openai.NewChat(openai.Options{Name: prov.Name, BaseURL: prov.URL(getenv), APIKey: key, Headers: prov.Headers, SendCacheKey: prov.SendCacheKey,
			OpenRouter: prov.Name == "openrouter", IdleTimeout: prov.IdleTimeout, Logger: log})
	default:
		return built{}, inputError(fmt.Errorf("wiring: provider %q has type %q; use anthropic, openai-responses or openai-chat", prov.Name, prov.Type))
	}
	p = withHints(p, prov, key, getenv)
	return built{entry: retry.Named{Label: provName + "/" + modelID, Provider: p, Model: modelID}, model: model, warning: warning}, nil
}

// providersOf names the models of the catalog that id, given without a
// provider (--model gpt-5), may mean: provider/id for each provider that
// lists it, by its ID, an alias or as the last part of its ID
// (openrouter/openai/gpt-5).
func providersOf(cat *catalog.Catalog, id string) []string {
	if id == "" || strings.Contains(id, "/") {
		return nil
	}
	var refs []string
	for _, m := range cat.Models() {
		if m.ID == "" {
			continue
		}
		if m.ID == id || slices.Contains(m.Aliases, id) || strings.HasSuffix(m.ID, "/"+id) {
			refs = append(refs, m.Provider+"/"+m.ID)
		}
	}
	return refs
}

// ref is "provider/model", as a session's records name it.
func (m ProviderModel) ref() string { return m.ProviderName + "/" + m.Model.ID }

// chooseModel builds the provider opts.Model names, or takes the
// caller's (opts.Provider) and names its records after opts.Model (no
// catalog entry then).
func chooseModel(opts Options, cfg config.Config, cat *catalog.Catalog) (ProviderModel, error) {
	if opts.Provider != nil {
		name, id := splitModel(opts.Model, opts.Provider.Name())
		return ProviderModel{Provider: opts.Provider, ProviderName: name, Model: catalog.Model{ID: id}}, nil
	}
	if opts.Model == "" {
		return ProviderModel{}, inputError(errors.New("wiring: no model configured: name one with --model provider/model or GODWIT_MODEL"))
	}
	pm, err := NewProvider(cfg, cat, opts.Model, withProjectKey(opts, cat), opts.Logger)
	if err == nil && pm.Warning != "" {
		opts.Logger.Warn(pm.Warning)
	}
	return pm, err
}

// withProjectKey is opts.Getenv, and, where it has no key for the
// provider opts.Model names, the workspace .env's key for it: the user
// named that provider, so the repository's key can only fill in, never
// choose. It says so, since the key's account receives the session.
func withProjectKey(opts Options, cat *catalog.Catalog) func(string) string {
	name, _, err := catalog.ParseModelRef(opts.Model)
	prov, ok := cat.Provider(name)
	if err != nil || !ok || opts.ProjectKey == nil || prov.APIKeyEnv == "" || opts.Getenv(prov.APIKeyEnv) != "" {
		return opts.Getenv
	}
	key, ok := opts.ProjectKey(prov.APIKeyEnv)
	if !ok || key == "" {
		return opts.Getenv
	}
	opts.Logger.Warn(fmt.Sprintf("using %s from the workspace's .env for %s, which you named: that key's account receives this session; export your own key to use it instead", prov.APIKeyEnv, name))
	env := prov.APIKeyEnv
	return func(k string) string {
		if k == env {
			return key
		}
		return opts.Getenv(k)
	}
}

// splitModel names a caller-given provider's records: "provider/model",
// or the provider's own name and ref (or "scripted") as the model.
func splitModel(ref, fallbackProvider string) (provider, model string) {
	if p, m, ok := strings.Cut(ref, "/"); ok {
		return p, m
	}
	if ref == "" {
		ref = "scripted"
	}
	return fallbackProvider, ref
}

// summarizer builds the summariser of paged outputs on the model
// config.yaml's summary_model names; none without one. Like a fallback,
// the summary model is a spare: without its key, outputs are summarised
// without it.
func summarizer(ref string, cat *catalog.Catalog, opts Options) (func(context.Context, llm.ToolCall, string) window.SummaryCall, error) {
	if ref == "" {
		return nil, nil
	}
	sm, err := NewProvider(config.Config{}, cat, ref, opts.Getenv, opts.Logger)
	var ke *catalog.KeyError
	switch {
	case errors.As(err, &ke):
		opts.Logger.Warn(fmt.Sprintf("summary_model %s is skipped: %s is not set; paged outputs are summarised without a model", ref, ke.Env))
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("wiring: config.yaml: summary_model: %w", err)
	}
	return window.ModelSummarizer(sm.Provider, sm.ProviderName, sm.Model.ID, sm.Model.Price.Cost), nil
}
