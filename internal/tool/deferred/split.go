package deferred

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
)

// Mode is the tools.deferred setting.
type Mode string

// Modes.
const (
	Off  Mode = "off"
	Auto Mode = "auto"
	On   Mode = "on"
)

// ParseMode reads a tools.deferred value; empty means Off.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return Off, nil
	case Off, Auto, On:
		return m, nil
	}
	return "", fmt.Errorf("deferred: tools.deferred is %q; use off, auto or on", s)
}

// AutoMin is the saving, in tokens per request, at which auto
// defers: below it the proxy and the listing cost about what they save.
const AutoMin = 1000

// Deferrable is the default choice of tools that may be deferred: MCP
// tools and the rarely used built-ins.
func Deferrable(name string) bool {
	return strings.HasPrefix(name, "mcp__") || name == "subagent" || name == "search_memory" || name == AlwaysDeferred
}

// AlwaysDeferred is deferred even with tools.deferred off: most sessions
// never message another, and the one-line listing costs less than its
// schema.
const AlwaysDeferred = "send_message"

// Options configure Split and Table.
type Options struct {
	Mode Mode
	// Deferrable picks the tools that may be deferred; nil means
	// Deferrable.
	Deferrable func(name string) bool
	// Count counts tokens (window.Counter.Count); nil estimates 4 bytes
	// a token.
	Count func(string) int
}

func (o Options) withDefaults() Options {
	if o.Mode == "" {
		o.Mode = Off
	}
	if o.Deferrable == nil {
		o.Deferrable = Deferrable
	}
	if o.Count == nil {
		o.Count = func(s string) int { return (len(s) + 3) / 4 }
	}
	return o
}

// Split divides tools, keeping their order, into those offered in the
// table and those deferred. keep names deferrable tools that must stay
// resident (those the session has used); nil keeps none.
func Split(tools []tool.Tool, opts Options, keep func(name string) bool) (resident, deferred []tool.Tool) {
	opts = opts.withDefaults()
	if opts.Mode == Off {
		return tools, nil
	}
	for _, t := range tools {
		if t.Name() != ProxyName && opts.Deferrable(t.Name()) && (keep == nil || !keep(t.Name())) {
			deferred = append(deferred, t)
		} else {
			resident = append(resident, t)
		}
	}
	if opts.Mode == Auto && len(deferred) > 0 {
		saved := specTokens(deferred, opts.Count) - opts.Count(Listing(deferred)) - opts.Count(specJSON(proxySpec))
		if saved < AutoMin {
			return tools, nil
		}
	}
	return resident, deferred
}

func specTokens(tools []tool.Tool, count func(string) int) int {
	specs := make([]llm.ToolSpec, len(tools))
	for i, t := range tools {
		specs[i] = t.Spec()
	}
	return count(llm.SpecsJSON(specs))
}

func specJSON(s llm.ToolSpec) string {
	t := llm.SpecsJSON([]llm.ToolSpec{s})
	return t[1 : len(t)-1]
}

// Listing renders the system prompt's block for the deferred tools, one
// line each: name(params): the first sentence of the description.
// Optional parameters end in '?'. It is "" when nothing is deferred.
func Listing(deferred []tool.Tool) string {
	if len(deferred) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("# Deferred tools\n")
	b.WriteString(`Not in the tool table; call them with tool_call {"name": ..., "args": {...}}. A tool you use joins the table at the next context reset.` + "\n")
	for _, t := range deferred {
		s := t.Spec()
		fmt.Fprintf(&b, "- %s(%s): %s\n", s.Name, params(s.Schema), firstSentence(s.Description, 120))
	}
	return b.String()
}

// params lists a schema's properties in their order, optional ones with
// a '?', at most six.
func params(schema json.RawMessage) string {
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return ""
	}
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	var names []string
	dec := json.NewDecoder(bytes.NewReader(s.Properties))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return ""
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		name, _ := tok.(string)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			break
		}
		if !required[name] {
			name += "?"
		}
		names = append(names, name)
	}
	if len(names) > 6 {
		names = append(names[:6], "...")
	}
	return strings.Join(names, ", ")
}

// firstSentence returns the description up to its first sentence end or
// line break, at most n bytes.
func firstSentence(d string, n int) string {
	d = strings.TrimSpace(d)
	if i := strings.IndexByte(d, '\n'); i >= 0 {
		d = d[:i]
	}
	if i := strings.Index(d, ". "); i >= 0 {
		d = d[:i+1]
	}
	d = strings.TrimSpace(d)
	if len(d) > n {
		d = strings.ToValidUTF8(d[:n-3], "") + "..."
	}
	return d
}
