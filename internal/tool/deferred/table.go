package deferred

import (
	"fmt"
	"slices"
	"sync"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
)

// Table holds every tool a session may use and, per session, which
// deferred tools it has called. It is safe for concurrent use.
type Table struct {
	opts  Options
	proxy *Proxy
	reg   tool.Registry // every tool but the proxy, in order

	mu   sync.Mutex                 // guards used
	used map[string]map[string]bool // session id -> deferred tools called
}

// New returns a table holding tools, in their order.
func New(opts Options, tools ...tool.Tool) (*Table, error) {
	t := &Table{opts: opts.withDefaults(), used: map[string]map[string]bool{}}
	t.proxy = &Proxy{table: t}
	if err := t.Add(tools...); err != nil {
		return nil, err
	}
	return t, nil
}

// Add takes more tools (an MCP server's, once it is ready). They are
// callable through the proxy at once and reach the table, or the
// listing, at the next segment.
func (t *Table) Add(tools ...tool.Tool) error {
	for _, tl := range tools {
		if tl.Name() == ProxyName || t.reg.Add(tl) != nil {
			return fmt.Errorf("deferred: cannot add a tool named %q (empty, the proxy's, or a duplicate)", tl.Name())
		}
	}
	return nil
}

// Offer adds the tools whose names the table lacks and skips the rest,
// for a server that lists its tools again; it returns how many it added.
func (t *Table) Offer(tools ...tool.Tool) int {
	tools = slices.DeleteFunc(slices.Clone(tools), func(tl tool.Tool) bool { return tl.Name() == ProxyName })
	return len(t.reg.Offer(tools...))
}

// Get returns the named tool.
func (t *Table) Get(name string) (tool.Tool, bool) { return t.reg.Get(name) }

// Proxy returns the tool_call tool. Offer it in the runner's registry
// whenever the mode is not Off; Segment puts it in the table when
// something is deferred.
func (t *Table) Proxy() *Proxy { return t.proxy }

// Segment is what one segment offers the model.
type Segment struct {
	// Tools is the tool table: the resident tools, then tool_call when
	// anything is deferred.
	Tools []llm.ToolSpec
	// Deferred names the tools left out.
	Deferred []string
	// Listing is the block for the system prompt ("" when nothing is
	// deferred).
	Listing string
}

// Segment returns the table and listing for a new segment of session.
// The caller keeps them for the whole segment: the table must not
// change within one.
func (t *Table) Segment(session string) Segment {
	tools := t.reg.Tools()
	t.mu.Lock()
	used := map[string]bool{}
	for name := range t.used[session] {
		used[name] = true
	}
	t.mu.Unlock()

	resident, deferred := Split(tools, t.opts, func(name string) bool { return used[name] })
	var seg Segment
	for _, r := range resident {
		seg.Tools = append(seg.Tools, r.Spec())
	}
	if len(deferred) > 0 {
		seg.Tools = append(seg.Tools, proxySpec)
		for _, d := range deferred {
			seg.Deferred = append(seg.Deferred, d.Name())
		}
		seg.Listing = Listing(deferred)
	}
	return seg
}

// markUsed records that session called name through the proxy.
func (t *Table) markUsed(session, name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.used[session] == nil {
		t.used[session] = map[string]bool{}
	}
	t.used[session][name] = true
}

// deferredNames lists the tools that are deferrable in this mode, for
// error messages.
func (t *Table) deferredNames() []string {
	var out []string
	for _, tl := range t.reg.Tools() {
		if t.opts.Deferrable(tl.Name()) {
			out = append(out, tl.Name())
		}
	}
	return out
}
