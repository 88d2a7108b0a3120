package gitguard

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/godwit/godwit/tool"
)

// Tool wraps shell_exec with g. Before a call, changes found are the
// user's own (nothing of godwit's ran since the last check) unless busy
// reports a background job running, which may have made them: then they
// are restored. After the call, every change is restored. The result
// tells the model (a note in Content, or in the error's message) and the
// user (Result.Notice) what was restored and why.
func Tool(t tool.Tool, g *Guard, busy func() bool) tool.Tool {
	gt := &guarded{Tool: t, g: g, busy: busy}
	if a, ok := t.(tool.Accessor); ok {
		return &guardedAccessor{guarded: gt, acc: a}
	}
	return gt
}

type guarded struct {
	tool.Tool
	g    *Guard
	busy func() bool
}

type guardedAccessor struct {
	*guarded
	acc tool.Accessor
}

// Access implements tool.Accessor.
func (t *guardedAccessor) Access(args json.RawMessage) (tool.Access, error) {
	return t.acc.Access(args)
}

// Run implements tool.Tool.
func (t *guarded) Run(ctx context.Context, args json.RawMessage) (tool.Result, error) {
	var before []Change
	if t.busy != nil && t.busy() {
		before = t.g.Check()
	} else {
		t.g.Accept()
	}
	res, err := t.Tool.Run(ctx, args)
	changes := append(before, t.g.Check()...)
	if len(changes) == 0 {
		return res, err
	}
	note := Note(changes)
	res.Notice = Summary(changes)
	if err != nil && tool.IsFatal(err) {
		return res, err // the turn ends; the user has the notice in the log
	}
	if err != nil {
		te := *tool.AsToolError(err) // a copy: the error may be shared
		te.Message = strings.TrimRight(te.Message, "\n") + "\n" + note
		return res, &te
	}
	res.Content = strings.TrimRight(res.Content, "\n") + "\n" + note
	return res, nil
}
