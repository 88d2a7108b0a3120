package snapshot

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/godwit/godwit/tool"
)

// WatchTool wraps the shell_exec tool: around each foreground run it
// fingerprints the workspace and adds the files the command changed to
// the result's Changed list, where the store keeps them for Undo to
// report. With WatchOptions.DetachShared, before every run (background
// ones too) it also gives each file hard-linked outside the workspace a
// file of its own (Detach), and says so. The job actions pass through.
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
	if json.Unmarshal(args, &a) != nil || (a.Action != "" && a.Action != "run") || (a.Background && !t.w.detach) {
		return t.Tool.Run(ctx, args)
	}
	fp := t.w.Take()
	var note string
	if t.w.detach {
		if shared := fp.Shared(); len(shared) > 0 {
			done, err := t.w.Detach(shared)
			if err != nil {
				t.w.log.Warn("snapshot: could not give a hard-linked file a copy of its own", "err", err)
			}
			if len(done) > 0 {
				note = detachNote(done) // the user hears it as the call's notice
			}
		}
	}
	res, err := t.Tool.Run(ctx, args)
	if !a.Background {
		for _, p := range fp.Changed() {
			if !slices.Contains(res.Changed, p) {
				res.Changed = append(res.Changed, p)
			}
		}
	}
	if note != "" {
		res.Notice = strings.TrimSpace(res.Notice + "\n" + note)
		if err == nil {
			res.Content = strings.TrimRight(res.Content, "\n") + "\n[godwit: " + note + ".]"
		}
	}
	return res, err
}
