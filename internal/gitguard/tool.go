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
	return tool.Wrap(t, func(ctx context.Context, args json.RawMessage) (tool.Result, error) {
		return guardRun(ctx, t, g, busy, args)
	})
}

func guardRun(ctx context.Context, t tool.Tool, g *Guard, busy func() bool, args json.RawMessage) (tool.Result, error) {
	var before []Change
	if busy != nil && busy() {
		before = g.Check()
	} else {
		g.Accept()
	}
	res, err := t.Run(ctx, args)
	changes := append(before, g.Check()...)
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
