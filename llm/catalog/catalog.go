package catalog

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Wire types a provider can speak.
const (
	TypeAnthropic       = "anthropic"
	TypeOpenAIResponses = "openai-responses"
	TypeOpenAIChat      = "openai-chat"
)

// Defaults for a model the catalog does not know, and for the unset limits
// of a model added by an override.
const (
	DefaultContextWindow = 128_000
	DefaultMaxOutput     = 8_192
)

// Provider is an endpoint godwit can call.
type Provider struct {
	// Name is the part of a model reference before the first '/'.
	Name string
	// Type is the wire format: TypeAnthropic, TypeOpenAIResponses or
	// TypeOpenAIChat.
	Type string
	// BaseURL is the API root, used unless BaseURLEnv names a variable
	// that is set.
	BaseURL    string
	BaseURLEnv string
	// APIKeyEnv names the environment variable holding the key.
	APIKeyEnv string
	// Headers are sent with every request.
	Headers map[string]string
	// NoKey marks a server that needs no key (a local Ollama).
	NoKey bool
	// SendCacheKey sends Request.CacheKey (OpenAI's prompt_cache_key).
	SendCacheKey bool
	// IdleTimeout is how long the server may send nothing before a call
	// counts as dropped; 0 is the adapters' default.
	IdleTimeout time.Duration
}

// URL returns the base URL to use: the value of BaseURLEnv when that is
// set, else BaseURL, without a trailing slash.
func (p Provider) URL(getenv func(string) string) string {
	u := p.BaseURL
	if p.BaseURLEnv != "" {
		if v := strings.TrimSpace(getenv(p.BaseURLEnv)); v != "" {
			u = v
		}
	}
	return strings.TrimRight(u, "/")
}

// APIKey returns the key from the environment. A NoKey provider may have
// none; any other fails with an error naming the variable to set.
func (p Provider) APIKey(getenv func(string) string) (string, error) {
	var key string
	if p.APIKeyEnv != "" {
		key = strings.TrimSpace(getenv(p.APIKeyEnv))
	}
	switch {
	case key != "" || p.NoKey:
		return key, nil
	case p.APIKeyEnv == "":
		return "", fmt.Errorf("catalog: provider %q names no api_key_env; set it to the environment variable holding the key", p.Name)
	default:
		return "", &KeyError{Provider: p.Name, Env: p.APIKeyEnv}
	}
}

// KeyError says a provider's API key variable is not set.
type KeyError struct {
	Provider string
	// Env is the variable to set.
	Env string
}

func (e *KeyError) Error() string {
	return fmt.Sprintf("catalog: provider %q needs an API key: set %s in the environment", e.Provider, e.Env)
}

// Model describes one model of a provider.
type Model struct {
	Provider string
	// ID is the model name sent to the API. An empty ID is the provider's
	// default: it describes every model of that provider not listed.
	ID string
	// Aliases are other names of the same model, for lookups only.
	Aliases []string
	// ContextWindow is the whole window in tokens, output included.
	ContextWindow int
	MaxOutput     int
	Price         Price
	// Reasoning is the effort asked of a model that reasons: "low",
	// "medium" or "high"; empty leaves the provider's default (for
	// Anthropic, no extended thinking; through OpenRouter, the upstream
	// model's default). It reaches OpenAI as reasoning_effort or
	// reasoning.effort, OpenRouter as reasoning: {effort}, Anthropic as a
	// thinking budget.
	Reasoning string
	// Images says the model takes image input: godwit refuses to attach
	// an image for one that does not, before sending anything.
	Images bool
}

// Efforts are the values Model.Reasoning takes.
var Efforts = []string{"low", "medium", "high"}

// Ref returns "provider/id".
func (m Model) Ref() string { return m.Provider + "/" + m.ID }

// Overrides is one layer of user configuration merged over the built-ins.
// For an existing provider or model an override replaces only the fields
// it sets (non-empty strings, positive numbers, true booleans, non-nil
// slices); Headers merge key by key, and an empty value removes a header.
// So an override cannot set a number back to zero or a boolean to false.
// Anything not yet known is added and must be complete.
type Overrides struct {
	Providers []Provider
	Models    []Model
}

type key struct{ provider, id string }

// Catalog is the merged table of providers and models.
type Catalog struct {
	providers map[string]Provider
	models    map[key]Model
	aliases   map[key]string // alias -> ID within the same provider
}

// New builds a catalog from the built-in tables and the given layers, later
// layers winning. It reports every invalid entry at once.
func New(layers ...Overrides) (*Catalog, error) {
	c := &Catalog{
		providers: map[string]Provider{},
		models:    map[key]Model{},
		aliases:   map[key]string{},
	}
	providers, models, err := builtin()
	if err != nil {
		return nil, err
	}
	for _, p := range providers {
		c.providers[p.Name] = p
	}
	for _, m := range models {
		c.putModel(m)
	}
	var errs []error
	for _, l := range layers {
		for _, p := range l.Providers {
			c.mergeProvider(p)
		}
		for _, m := range l.Models {
			if err := c.mergeModel(m); err != nil {
				errs = append(errs, err)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.providers)) {
		if err := validProvider(c.providers[name]); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	c.fillLimits()
	return c, nil
}

func (c *Catalog) mergeProvider(o Provider) {
	p, ok := c.providers[o.Name]
	if !ok {
		p = Provider{Name: o.Name}
	}
	setString(&p.Type, o.Type)
	setString(&p.BaseURL, o.BaseURL)
	setString(&p.BaseURLEnv, o.BaseURLEnv)
	setString(&p.APIKeyEnv, o.APIKeyEnv)
	p.NoKey = p.NoKey || o.NoKey
	p.SendCacheKey = p.SendCacheKey || o.SendCacheKey
	if o.IdleTimeout != 0 {
		p.IdleTimeout = o.IdleTimeout
	}
	if len(o.Headers) > 0 {
		h := maps.Clone(p.Headers)
		if h == nil {
			h = map[string]string{}
		}
		for k, v := range o.Headers {
			if v == "" {
				delete(h, k)
			} else {
				h[k] = v
			}
		}
		p.Headers = h
	}
	c.providers[o.Name] = p
}

func (c *Catalog) mergeModel(o Model) error {
	ref := o.Provider + "/" + o.ID
	switch {
	case o.Provider == "":
		return fmt.Errorf("catalog: model %q names no provider; give it the provider it belongs to", o.ID)
	case o.ContextWindow < 0 || o.MaxOutput < 0:
		return fmt.Errorf("catalog: model %q has a negative context window or max output; use a token count, or leave it unset", ref)
	case o.Price.Input < 0 || o.Price.Output < 0 || o.Price.CacheRead < 0 || o.Price.CacheWrite < 0:
		return fmt.Errorf("catalog: model %q has a negative price; prices are USD per million tokens", ref)
	case o.Reasoning != "" && !slices.Contains(Efforts, o.Reasoning):
		return fmt.Errorf("catalog: model %q has reasoning %q; use %s, or leave it unset for the provider's default", ref, o.Reasoning, strings.Join(Efforts, ", "))
	}
	if _, ok := c.providers[o.Provider]; !ok {
		return fmt.Errorf("catalog: model %q belongs to provider %q, which is not configured; add the provider or use one of: %s",
			ref, o.Provider, strings.Join(c.providerNames(), ", "))
	}
	id := o.ID
	if canon, ok := c.aliases[key{o.Provider, id}]; ok {
		id = canon
	}
	m, ok := c.models[key{o.Provider, id}]
	if base := datedID().ReplaceAllString(o.ID, ""); !ok && base != o.ID {
		// A dated snapshot starts from its listed model, so that setting
		// one price does not zero the others.
		if m, ok = c.find(o.Provider, base); ok {
			m.ID, m.Aliases = o.ID, nil
		}
	}
	if !ok {
		c.putModel(o)
		return nil
	}
	setPositive(&m.ContextWindow, o.ContextWindow)
	setPositive(&m.MaxOutput, o.MaxOutput)
	setPositive(&m.Price.Input, o.Price.Input)
	setPositive(&m.Price.Output, o.Price.Output)
	setPositive(&m.Price.CacheRead, o.Price.CacheRead)
	setPositive(&m.Price.CacheWrite, o.Price.CacheWrite)
	if o.Reasoning != "" {
		m.Reasoning = o.Reasoning
	}
	m.Images = m.Images || o.Images
	if o.Aliases != nil {
		for _, a := range m.Aliases {
			delete(c.aliases, key{m.Provider, a})
		}
		m.Aliases = o.Aliases
	}
	c.putModel(m)
	return nil
}

func (c *Catalog) putModel(m Model) {
	m.Aliases = slices.Clone(m.Aliases)
	c.models[key{m.Provider, m.ID}] = m
	for _, a := range m.Aliases {
		c.aliases[key{m.Provider, a}] = m.ID
	}
}

// fillLimits gives models added without limits their provider's default,
// or the global one.
func (c *Catalog) fillLimits() {
	for k, m := range c.models {
		def, ok := c.models[key{m.Provider, ""}]
		if !ok || k.id == "" {
			def = Model{ContextWindow: DefaultContextWindow, MaxOutput: DefaultMaxOutput}
		}
		if m.ContextWindow == 0 {
			m.ContextWindow = def.ContextWindow
		}
		if m.MaxOutput == 0 {
			m.MaxOutput = def.MaxOutput
		}
		c.models[k] = m
	}
}

func validProvider(p Provider) error {
	switch {
	case p.Name == "":
		return errors.New("catalog: a provider has no name; name it, e.g. \"local\"")
	case strings.ContainsAny(p.Name, "/ \t"):
		return fmt.Errorf("catalog: provider name %q contains '/' or a space; a model is referred to as provider/model, so pick a plain name", p.Name)
	case p.Type == "":
		return fmt.Errorf("catalog: provider %q has no type; set type to %s, %s or %s", p.Name, TypeAnthropic, TypeOpenAIResponses, TypeOpenAIChat)
	case p.Type != TypeAnthropic && p.Type != TypeOpenAIResponses && p.Type != TypeOpenAIChat:
		return fmt.Errorf("catalog: provider %q has unknown type %q; use %s, %s or %s", p.Name, p.Type, TypeAnthropic, TypeOpenAIResponses, TypeOpenAIChat)
	case p.BaseURL == "":
		return fmt.Errorf("catalog: provider %q has no base_url; set it to the API root, e.g. http://localhost:8000/v1", p.Name)
	case !strings.HasPrefix(p.BaseURL, "http://") && !strings.HasPrefix(p.BaseURL, "https://"):
		return fmt.Errorf("catalog: provider %q has base_url %q; it must start with http:// or https://", p.Name, p.BaseURL)
	case p.APIKeyEnv == "" && !p.NoKey:
		return fmt.Errorf("catalog: provider %q names no api_key_env; set it to the environment variable holding the key, or set no_key for a server that needs none", p.Name)
	}
	return nil
}

func setString(dst *string, v string) {
	if v != "" {
		*dst = v
	}
}

func setPositive[T int | float64](dst *T, v T) {
	if v > 0 {
		*dst = v
	}
}

func (c *Catalog) providerNames() []string {
	return slices.Sorted(maps.Keys(c.providers))
}
