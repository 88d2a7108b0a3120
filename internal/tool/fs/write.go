package fs

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	iofs "io/fs"
	"syscall"

	"github.com/godwit/godwit/internal/tool/workspace"
	"github.com/godwit/godwit/tool"
)

//go:embed file_write.md
var writeDesc string

const writeSchema = `{"type":"object","properties":{
"path":{"type":"string"},
"content":{"type":"string"}
},"required":["path","content"]}`

const writeFields = "path, content"

// previewLines is how much of new content an approval prompt shows.
const previewLines = 20

// Write is the file_write tool.
type Write struct {
	base
	opts Options
}

// NewWrite returns the file_write tool.
func NewWrite(ws *workspace.Workspace, opts Options) *Write {
	return &Write{base: base{ws: ws, spec: newSpec("file_write", writeDesc, writeSchema)}, opts: opts}
}

type writeArgs struct {
	Path    *string `json:"path"`
	Content *string `json:"content"`
}

func (t *Write) parse(raw json.RawMessage) (writeArgs, error) {
	var a writeArgs
	if err := decodeArgs(raw, &a, writeFields); err != nil {
		return a, err
	}
	if a.Path == nil || *a.Path == "" {
		return a, missing("path", writeFields)
	}
	if a.Content == nil {
		return a, missing("content", writeFields)
	}
	return a, nil
}

// Access declares the file as written and previews its first lines.
func (t *Write) Access(raw json.RawMessage) (tool.Access, error) {
	a, err := t.parse(raw)
	if err != nil {
		return tool.Access{}, err
	}
	abs, rel, err := t.resolve(*a.Path)
	if err != nil {
		return tool.Access{}, err
	}
	verb := "create"
	if _, err := t.ws.Lstat(abs); err == nil {
		verb = "overwrite"
	}
	return tool.Access{
		Paths:   []tool.PathAccess{{Path: abs, Write: true}},
		Mutates: true,
		Summary: verb + " " + rel,
		Preview: headLines(*a.Content, previewLines),
	}, nil
}

// Run writes the file atomically, keeping the mode of a file it replaces.
func (t *Write) Run(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	a, err := t.parse(raw)
	if err != nil {
		return tool.Result{}, err
	}
	abs, rel, err := t.judged(ctx, *a.Path)
	if err != nil {
		return tool.Result{}, err
	}
	fi, err := t.ws.Lstat(abs)
	mode, exists, err := newMode(fi, err, "write", rel)
	if err != nil {
		return tool.Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}
	data := []byte(*a.Content)
	if err := writeNew(ctx, t.ws, t.opts, abs, rel, mode, data); err != nil {
		return tool.Result{}, err
	}
	verb := "created"
	if exists {
		verb = "overwrote"
	}
	return tool.Result{
		Content: fmt.Sprintf("%s %s (%d bytes, %s)", verb, rel, len(data), plural(countLines(data), "line")),
		Changed: []string{rel},
	}, nil
}

// newMode is the mode a write gives the file: an existing file's
// (exists), else 0644. fi and statErr are Lstat's; a folder is EISDIR
// for op.
func newMode(fi iofs.FileInfo, statErr error, op, rel string) (mode iofs.FileMode, exists bool, err error) {
	switch {
	case statErr == nil && fi.IsDir():
		return 0, false, &iofs.PathError{Op: op, Path: rel, Err: syscall.EISDIR}
	case statErr == nil:
		return keptMode(fi), true, nil
	case !errors.Is(statErr, iofs.ErrNotExist):
		return 0, false, relErr(statErr, rel)
	}
	return 0o644, false, nil
}

// headLines returns the first n lines of s, saying how many were left out.
func headLines(s string, n int) string {
	head, rest := firstLines(s, n)
	if rest == "" {
		return head
	}
	return head + fmt.Sprintf("… (%d more lines)", countLines([]byte(rest)))
}
