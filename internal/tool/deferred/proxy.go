package deferred

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
)

// ProxyName is the proxy tool's model-facing name.
const ProxyName = "tool_call"

var proxySpec = llm.ToolSpec{
	Name:        ProxyName,
	Description: "Call a deferred tool listed in the system prompt.",
	Schema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},` +
		`"args":{"type":"object","description":"The tool's arguments; a wrong call returns its schema."}},"required":["name"]}`),
}

// Proxy is tool_call: it runs a tool of its Table by name. It declares
// what the tool it calls declares, so locks and approvals are those of
// that tool.
type Proxy struct{ table *Table }

type proxyArgs struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// Name implements tool.Tool.
func (*Proxy) Name() string { return ProxyName }

// Spec implements tool.Tool.
func (*Proxy) Spec() llm.ToolSpec { return proxySpec }

// resolve parses a call and finds its tool.
func (p *Proxy) resolve(raw json.RawMessage) (tool.Tool, json.RawMessage, error) {
	var a proxyArgs
	if err := json.Unmarshal(raw, &a); err != nil || strings.TrimSpace(a.Name) == "" {
		return nil, nil, tool.Errorf(tool.CodeBadArgs, `Send {"name": "a_listed_tool", "args": {...}}.`, "tool_call needs the name of a deferred tool")
	}
	t, ok := p.table.Get(a.Name)
	if !ok {
		return nil, nil, tool.Errorf(tool.CodeUnknownTool, "Use one of: "+strings.Join(p.table.deferredNames(), ", ")+".",
			"no deferred tool named %q", a.Name)
	}
	args := llm.ArgsOrEmpty(bytes.TrimSpace(a.Args))
	if err := checkArgs(t.Spec(), args); err != nil {
		return nil, nil, err
	}
	return t, args, nil
}

// checkArgs catches what a model that saw only the one-line listing gets
// wrong, and answers with the schema, so the next call can be right.
func checkArgs(spec llm.ToolSpec, args json.RawMessage) error {
	var obj map[string]json.RawMessage
	var missing []string
	if err := json.Unmarshal(args, &obj); err == nil {
		var s struct {
			Required []string `json:"required"`
		}
		_ = json.Unmarshal(spec.Schema, &s)
		for _, r := range s.Required {
			if _, ok := obj[r]; !ok {
				missing = append(missing, r)
			}
		}
		if len(missing) == 0 {
			return nil
		}
	}
	msg := "args must be a JSON object"
	if len(missing) > 0 {
		msg = "args lack " + strings.Join(missing, ", ")
	}
	return tool.Errorf(tool.CodeBadArgs, "Call it again with args matching its schema: "+string(spec.Schema),
		"%s: %s", spec.Name, msg)
}

// Access implements tool.Accessor with the called tool's access.
func (p *Proxy) Access(raw json.RawMessage) (tool.Access, error) {
	t, args, err := p.resolve(raw)
	if err != nil {
		return tool.Access{}, err
	}
	var acc tool.Access
	if a, ok := t.(tool.Accessor); ok {
		if acc, err = a.Access(args); err != nil {
			return tool.Access{}, err
		}
	}
	if acc.Summary == "" {
		acc.Summary = t.Name()
	}
	acc.Tool, acc.Via = t.Name(), ProxyName // rules and "always" answers match the real tool; rules naming tool_call hold too
	return acc, nil
}

// Run implements tool.Tool.
func (p *Proxy) Run(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	t, args, err := p.resolve(raw)
	if err != nil {
		return tool.Result{}, err
	}
	if s, ok := tool.SessionFrom(ctx); ok {
		p.table.markUsed(s.ID, t.Name())
	}
	return t.Run(ctx, args)
}
