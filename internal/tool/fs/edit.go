package fs

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	iofs "io/fs"
	"syscall"

	"github.com/godwit/godwit/internal/tool/workspace"
	"github.com/godwit/godwit/tool"
)

//go:embed file_edit.md
var editDesc string

const editSchema = `{"type":"object","properties":{
"path":{"type":"string"},
"old_text":{"type":"string","description":"Exact text to replace, without line-number prefixes; include enough lines to be unique."},
"new_text":{"type":"string"},
"replace_all":{"type":"boolean","description":"Replace every exact match."}
},"required":["path","old_text","new_text"]}`

const editFields = "path, old_text, new_text, optional replace_all"

const (
	// maxPreviewSize: Access computes the real diff for an approval prompt
	// only for files up to this size.
	maxPreviewSize = 1 << 20
	// maxModelDiff is how many diff lines the model reads back.
	maxModelDiff = 60
)

// Edit is the file_edit tool.
type Edit struct {
	base
	opts Options
}

// NewEdit returns the file_edit tool.
func NewEdit(ws *workspace.Workspace, opts Options) *Edit {
	return &Edit{base: base{ws: ws, spec: newSpec("file_edit", editDesc, editSchema)}, opts: opts}
}

type editArgs struct {
	Path       *string `json:"path"`
	OldText    *string `json:"old_text"`
	NewText    *string `json:"new_text"`
	ReplaceAll bool    `json:"replace_all"`
}

func (t *Edit) parse(raw json.RawMessage) (editArgs, error) {
	var a editArgs
	if err := decodeArgs(raw, &a, editFields); err != nil {
		return a, err
	}
	switch {
	case a.Path == nil || *a.Path == "":
		return a, missing("path", editFields)
	case a.OldText == nil:
		return a, missing("old_text", editFields)
	case a.NewText == nil:
		return a, missing("new_text", editFields)
	case *a.OldText == *a.NewText:
		return a, tool.Errorf(tool.CodeBadArgs, "Send the changed text as new_text.", "old_text and new_text are identical; nothing would change")
	}
	return a, nil
}

// Access declares the file as written; the preview is the diff when the
// file is small enough to compute it now, else old and new text.
func (t *Edit) Access(raw json.RawMessage) (tool.Access, error) {
	a, err := t.parse(raw)
	if err != nil {
		return tool.Access{}, err
	}
	abs, rel, err := t.resolve(*a.Path)
	if err != nil {
		return tool.Access{}, err
	}
	acc := tool.Access{
		Paths:   []tool.PathAccess{{Path: abs, Write: true}},
		Mutates: true,
		Summary: "edit " + rel,
		Preview: "old_text:\n" + headLines(*a.OldText, previewLines) + "\nnew_text:\n" + headLines(*a.NewText, previewLines),
	}
	if *a.OldText == "" {
		acc.Summary = "create " + rel
		acc.Preview = headLines(*a.NewText, previewLines)
		return acc, nil
	}
	// A failed dry run is not an error here: an earlier call of the same
	// batch may change the file first. Run reports the real outcome.
	if fi, err := t.ws.Lstat(abs); err == nil && fi.Mode().IsRegular() && fi.Size() <= maxPreviewSize {
		if content, err := t.ws.ReadLimit(abs, maxPreviewSize); err == nil { // bounded as read: a job may grow it
			if p, err := planEdit(content, *a.OldText, *a.NewText, a.ReplaceAll); err == nil {
				diff, _, _ := editDiff(content, p)
				acc.Preview = diff
			}
		}
	}
	return acc, nil
}

// Run applies the edit: one read and one streamed write, so memory is
// about the size of the file.
func (t *Edit) Run(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	a, err := t.parse(raw)
	if err != nil {
		return tool.Result{}, err
	}
	abs, rel, err := t.judged(ctx, *a.Path)
	if err != nil {
		return tool.Result{}, err
	}
	fi, err := t.ws.Lstat(abs)
	if *a.OldText == "" {
		return t.create(ctx, abs, rel, fi, err, *a.NewText)
	}
	if err != nil {
		return tool.Result{}, relErr(err, rel)
	}
	if fi.IsDir() {
		return tool.Result{}, &iofs.PathError{Op: "edit", Path: rel, Err: syscall.EISDIR}
	}
	if err := checkRegular(fi, rel); err != nil {
		return tool.Result{}, err
	}
	content, err := readWhole(ctx, t.ws, t.opts.Files, abs)
	if err != nil {
		return tool.Result{}, relErr(err, rel)
	}
	if looksBinary(content[:min(len(content), sniffLen)]) {
		return tool.Result{}, binaryError(rel, int64(len(content)))
	}
	p, err := planEdit(content, *a.OldText, *a.NewText, a.ReplaceAll)
	if err != nil {
		return tool.Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}
	if err := beforeWrite(ctx, t.opts, abs, rel); err != nil {
		return tool.Result{}, err
	}
	if err := writeWhole(ctx, t.ws, t.opts.Files, abs, keptMode(fi), edited(content, p)...); err != nil {
		return tool.Result{}, relErr(err, rel)
	}
	diff, added, removed := editDiff(content, p)
	head := fmt.Sprintf("edited %s: %s, +%d -%d lines", rel, plural(len(p.spans), "replacement"), added, removed)
	if p.how != "" {
		head += " (matched " + p.how + ")"
	}
	return tool.Result{
		Content: head + "\n" + cutLines(diff, maxModelDiff),
		Diff:    unifiedHeader(rel) + cutLines(diff, maxDiffLines),
		Changed: []string{rel},
	}, nil
}

// create handles an empty old_text: a new file, or filling an empty one.
func (t *Edit) create(ctx context.Context, abs, rel string, fi iofs.FileInfo, statErr error, text string) (tool.Result, error) {
	mode, exists, err := newMode(fi, statErr, "edit", rel)
	if err != nil {
		return tool.Result{}, err
	}
	if exists && fi.Size() > 0 {
		return tool.Result{}, tool.Errorf(tool.CodeBadArgs, "Give the exact text to replace as old_text, or use file_write to replace the whole file.",
			"old_text is empty but %s exists and is not empty", rel)
	}
	data := []byte(text)
	if err := writeNew(ctx, t.ws, t.opts, abs, rel, mode, data); err != nil {
		return tool.Result{}, err
	}
	diff, added, _ := editDiff(nil, plan{spans: []span{{0, 0}}, repl: data})
	return tool.Result{
		Content: fmt.Sprintf("created %s: +%d lines", rel, added),
		Diff:    unifiedHeader(rel) + cutLines(diff, maxDiffLines),
		Changed: []string{rel},
	}, nil
}

// edited returns the pieces of the edited file, to be written in order
// without joining them.
func edited(content []byte, p plan) [][]byte {
	out := make([][]byte, 0, 2*len(p.spans)+1)
	prev := 0
	for _, s := range p.spans {
		out = append(out, content[prev:s.start], p.repl)
		prev = s.end
	}
	return append(out, content[prev:])
}

func unifiedHeader(rel string) string {
	return "--- a/" + rel + "\n+++ b/" + rel + "\n"
}
