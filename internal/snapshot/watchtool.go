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
	return tool.Wrap(t, func(ctx context.Context, args json.RawMessage) (tool.Result, error) {
		return watchRun(ctx, t, w, args)
	})
}

func watchRun(ctx context.Context, t tool.Tool, w *Watcher, args json.RawMessage) (tool.Result, error) {
	var a struct {
		Action     string `json:"action"`
		Background bool   `json:"background"`
	}
	if json.Unmarshal(args, &a) != nil || (a.Action != "" && a.Action != "run") || (a.Background && !w.detach) {
		return t.Run(ctx, args)
	}
	fp := w.Take()
	var note string
	if w.detach {
		if shared := fp.Shared(); len(shared) > 0 {
			done, err := w.Detach(shared)
			if err != nil {
				w.log.Warn("snapshot: could not give a hard-linked file a copy of its own", "err", err)
			}
			if len(done) > 0 {
				note = detachNote(done) // the user hears it as the call's notice
			}
		}
	}
	res, err := t.Run(ctx, args)
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
