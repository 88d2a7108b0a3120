package subagent

import (
	"context"
	"encoding/json"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
)

// guard wraps each of the sub-agent's tools: a call that declares a
// write is denied whatever the approver says, and recall looks in the
// parent's session.
type guard struct{ t tool.Tool }

func (g guard) Name() string       { return g.t.Name() }
func (g guard) Spec() llm.ToolSpec { return g.t.Spec() }

func (g guard) Access(args json.RawMessage) (tool.Access, error) {
	a, ok := g.t.(tool.Accessor)
	if !ok {
		return tool.Access{}, nil
	}
	acc, err := a.Access(args)
	if err != nil {
		return acc, err
	}
	for _, p := range acc.Paths {
		if p.Write {
			return tool.Access{}, tool.Errorf(tool.CodeDenied, "Report what should change instead; the parent agent makes changes.",
				"a sub-agent cannot write (%s)", p.Path)
		}
	}
	return acc, nil
}

func (g guard) Run(ctx context.Context, args json.RawMessage) (tool.Result, error) {
	if g.t.Name() == "recall" {
		if p, ok := parentFrom(ctx); ok && p.ID != "" {
			ctx = tool.WithSession(ctx, p)
		}
	}
	return g.t.Run(ctx, args)
}

type parentKey struct{}

func withParent(ctx context.Context, s tool.Session) context.Context {
	return context.WithValue(ctx, parentKey{}, s)
}

func parentFrom(ctx context.Context) (tool.Session, bool) {
	s, ok := ctx.Value(parentKey{}).(tool.Session)
	return s, ok
}
