package catalog

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sync"
)

// Provider returns the named provider.
func (c *Catalog) Provider(name string) (Provider, bool) {
	p, ok := c.providers[name]
	if ok {
		p.Headers = maps.Clone(p.Headers)
	}
	return p, ok
}

// Providers returns every provider, sorted by name.
func (c *Catalog) Providers() []Provider {
	out := make([]Provider, 0, len(c.providers))
	for _, name := range c.providerNames() {
		p, _ := c.Provider(name)
		out = append(out, p)
	}
	return out
}

// Models returns every model, sorted by provider then ID; a provider's
// default (empty ID) comes first.
func (c *Catalog) Models() []Model {
	out := make([]Model, 0, len(c.models))
	for _, m := range c.models {
		m.Aliases = slices.Clone(m.Aliases)
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b Model) int {
		return cmp.Or(cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.ID, b.ID))
	})
	return out
}

// datedID matches a snapshot suffix: claude-sonnet-4-5-20250929,
// gpt-4o-2024-08-06.
var datedID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`-(\d{8}|\d{4}-\d{2}-\d{2})$`) })

// Lookup finds a listed model by its ID, an alias, or a dated snapshot of
// either. The result's ID is model as asked: the catalog never renames
// what is sent to the API.
func (c *Catalog) Lookup(provider, model string) (Model, bool) {
	if model == "" {
		return Model{}, false
	}
	m, ok := c.find(provider, model)
	if !ok {
		if base := datedID().ReplaceAllString(model, ""); base != model {
			m, ok = c.find(provider, base)
		}
	}
	if !ok {
		return Model{}, false
	}
	m.ID = model
	m.Aliases = slices.Clone(m.Aliases)
	return m, true
}

func (c *Catalog) find(provider, id string) (Model, bool) {
	if canon, ok := c.aliases[key{provider, id}]; ok {
		id = canon
	}
	m, ok := c.models[key{provider, id}]
	return m, ok
}

// Resolve is Lookup that always answers. A model not listed takes its
// provider's default when there is one, else DefaultContextWindow,
// DefaultMaxOutput and a zero price; the warning then says what was
// assumed, for the user to see. The warning is empty for a listed model.
func (c *Catalog) Resolve(provider, model string) (Model, string) {
	if m, ok := c.Lookup(provider, model); ok {
		return m, ""
	}
	ref := provider + "/" + model
	if def, ok := c.models[key{provider, ""}]; ok {
		def.ID = model
		def.Aliases = nil
		return def, fmt.Sprintf("catalog: %s is not in the model catalog; assuming %s's defaults: %d-token window, %d output tokens, $%g/$%g per million input/output tokens (set its limits and prices under models: in config.yaml if they differ)",
			ref, provider, def.ContextWindow, def.MaxOutput, def.Price.Input, def.Price.Output)
	}
	m := Model{Provider: provider, ID: model, ContextWindow: DefaultContextWindow, MaxOutput: DefaultMaxOutput}
	return m, fmt.Sprintf("catalog: %s is not in the model catalog; assuming a %d-token window, %d output tokens and no price, so its cost shows as $0 (set its limits and prices under models: in config.yaml)",
		ref, DefaultContextWindow, DefaultMaxOutput)
}
