package snapshot

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/godwit/godwit/tool"
)

// WatchTool wraps the shell_exec tool: around each foreground run it
// fingerprints the workspace and adds the files the command changed to
// the result's Changed list, where the store keeps them for Undo to
// report. Background runs and the job actions pass through unwatched.
func WatchTool(t tool.Tool, w *Watcher) tool.Tool {
	wt := &watched{Tool: t, w: w}
	if a, ok := t.(tool.Accessor); ok {
		return &watchedAccessor{watched: wt, acc: a}
	}
	return wt
}

type watched struct {
	tool.Tool
	w *Watcher
}

type watchedAccessor struct {
	*watched
	acc tool.Accessor
}

// Access implements tool.Accessor.
func (t *watchedAccessor) Access(args json.RawMessage) (tool.Access, error) {
	return t.acc.Access(args)
}

// Run implements tool.Tool.
func (t *watched) Run(ctx context.Context, args json.RawMessage) (tool.Result, error) {
	var a struct {
		Action     string `json:"action"`
		Background bool   `json:"background"`
	}
	if json.Unmarshal(args, &a) != nil || (a.Action != "" && a.Action != "run") || a.Background {
		return t.Tool.Run(ctx, args)
	}
	fp := t.w.Take()
	res, err := t.Tool.Run(ctx, args)
	for _, p := range fp.Changed() {
		if !slices.Contains(res.Changed, p) {
			res.Changed = append(res.Changed, p)
		}
	}
	return res, err
}
