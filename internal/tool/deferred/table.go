package deferred

import (
	"fmt"
	"sync"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
)

// Table holds every tool a session may use and, per session, which
// deferred tools it has called. It is safe for concurrent use.
type Table struct {
	opts  Options
	proxy *Proxy

	mu    sync.Mutex // guards the fields below
	tools []tool.Tool
	index map[string]int
	used  map[string]map[string]bool // session id -> deferred tools called
}

// New returns a table holding tools, in their order.
func New(opts Options, tools ...tool.Tool) (*Table, error) {
	t := &Table{opts: opts.withDefaults(), index: map[string]int{}, used: map[string]map[string]bool{}}
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
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, tl := range tools {
		if !t.addLocked(tl) {
			return fmt.Errorf("deferred: cannot add a tool named %q (empty, the proxy's, or a duplicate)", tl.Name())
		}
	}
	return nil
}

// Offer adds the tools whose names the table lacks and skips the rest,
// for a server that lists its tools again; it returns how many it added.
func (t *Table) Offer(tools ...tool.Tool) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, tl := range tools {
		if t.addLocked(tl) {
			n++
		}
	}
	return n
}

// addLocked adds tl unless its name is empty, the proxy's or taken.
func (t *Table) addLocked(tl tool.Tool) bool {
	name := tl.Name()
	if _, dup := t.index[name]; dup || name == "" || name == ProxyName {
		return false
	}
	t.index[name] = len(t.tools)
	t.tools = append(t.tools, tl)
	return true
}

// Get returns the named tool.
func (t *Table) Get(name string) (tool.Tool, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	i, ok := t.index[name]
	if !ok {
		return nil, false
	}
	return t.tools[i], true
}

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
	t.mu.Lock()
	tools := append([]tool.Tool(nil), t.tools...)
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
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for _, tl := range t.tools {
		if t.opts.Deferrable(tl.Name()) {
			out = append(out, tl.Name())
		}
	}
	return out
}
