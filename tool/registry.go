package tool

import (
	"fmt"
	"sync"

	"github.com/godwit/godwit/llm"
)

// Registry holds the tools offered to the model, in a fixed order: the
// order of the tool table is part of the cached prompt prefix, so it must
// not depend on map iteration. It is safe for concurrent use: tools that
// arrive late (MCP servers) may be added while calls run.
type Registry struct {
	mu    sync.RWMutex // guards tools and index
	tools []Tool
	index map[string]int
}

// NewRegistry returns a registry holding tools in the given order. It
// fails on an empty or duplicate name.
func NewRegistry(tools ...Tool) (*Registry, error) {
	r := &Registry{}
	for _, t := range tools {
		if err := r.Add(t); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Add appends a tool; it fails on an empty or duplicate name.
func (r *Registry) Add(t Tool) error {
	switch {
	case t.Name() == "":
		return fmt.Errorf("tool: empty tool name")
	case len(r.Offer(t)) == 0:
		return fmt.Errorf("tool: duplicate tool %q", t.Name())
	}
	return nil
}

// Offer adds the tools whose names the registry lacks and skips the
// rest (an MCP server's tools, offered again when it lists them anew); it
// returns the names it added.
func (r *Registry) Offer(tools ...Tool) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.index == nil {
		r.index = make(map[string]int)
	}
	var added []string
	for _, t := range tools {
		name := t.Name()
		if _, dup := r.index[name]; dup || name == "" {
			continue
		}
		r.index[name] = len(r.tools)
		r.tools = append(r.tools, t)
		added = append(added, name)
	}
	return added
}

// Get returns the named tool.
func (r *Registry) Get(name string) (Tool, bool) {
	if r == nil {
		return nil, false
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	i, ok := r.index[name]
	if !ok {
		return nil, false
	}
	return r.tools[i], true
}

// Tools returns the tools in registry order.
func (r *Registry) Tools() []Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return append([]Tool(nil), r.tools...)
}

// Names returns the tool names in registry order.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, len(r.tools))
	for i, t := range r.tools {
		names[i] = t.Name()
	}
	return names
}

// Specs returns the tool table in registry order.
func (r *Registry) Specs() []llm.ToolSpec {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	specs := make([]llm.ToolSpec, len(r.tools))
	for i, t := range r.tools {
		specs[i] = t.Spec()
	}
	return specs
}
