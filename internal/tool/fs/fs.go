package fs

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"path/filepath"
	"strings"

	"github.com/godwit/godwit/internal/tool/workspace"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
)

// Options configure the file tools.
type Options struct {
	// BeforeWrite, when set, is called with the absolute path of a file
	// before it is created or changed (the safety layer's snapshot); an
	// error aborts the write.
	BeforeWrite func(ctx context.Context, abs string) error
	// Files, when set, reads and writes the content of files for
	// file_read, file_write and file_edit instead of the OS (an editor's
	// unsaved buffers); metadata, file_list and grep still use the OS.
	Files Files
	// Hidden, when set, reports the paths (absolute) grep and file_list
	// pass over in a walk, and say they left out: the policy's deny and
	// ask rules, since a walk cannot ask about each file.
	Hidden func(toolName, abs string) bool
}

// Files reads and writes whole files by absolute path. Errors should
// keep an errno where one applies (an *fs.PathError wrapping ENOENT), so
// the model gets its remedy. An error wrapping ErrNotServed hands the
// file back to the tools, which then read or write it through the
// workspace's root.
type Files interface {
	ReadFile(ctx context.Context, abs string) ([]byte, error)
	WriteFile(ctx context.Context, abs string, data []byte) error
}

// Tools returns the five file tools in their fixed order: file_read,
// file_write, file_edit, file_list, grep.
func Tools(ws *workspace.Workspace, opts Options) []tool.Tool {
	return []tool.Tool{
		newRead(ws, opts.Files), NewWrite(ws, opts), NewEdit(ws, opts), newList(ws, opts.Hidden), newGrep(ws, opts.Hidden),
	}
}

// base holds what every file tool needs.
type base struct {
	ws   *workspace.Workspace
	spec llm.ToolSpec
}

func (b *base) Name() string       { return b.spec.Name }
func (b *base) Spec() llm.ToolSpec { return b.spec }

// walking is what the tools that walk folders (grep, file_list) share:
// the paths Options.Hidden has them pass over.
type walking struct {
	base
	hidden func(toolName, abs string) bool // Options.Hidden
}

// hides reports whether a walk passes over abs (Options.Hidden).
func (w *walking) hides(abs string) bool { return w.hidden != nil && w.hidden(w.Name(), abs) }

// stat resolves the path a walk starts from (judged: see judged) and
// stats it, naming it as the model does in an error.
func (w *walking) stat(ctx context.Context, p string) (abs, rel string, fi iofs.FileInfo, err error) {
	if abs, rel, err = w.judged(ctx, p); err != nil {
		return "", "", nil, err
	}
	if fi, err = w.ws.Lstat(abs); err != nil {
		return "", "", nil, relErr(err, rel)
	}
	return abs, rel, fi, nil
}

// newSpec builds a tool spec, compacting the schema so that its size is
// what the provider is sent.
func newSpec(name, desc, schema string) llm.ToolSpec {
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(schema)); err != nil {
		panic(fmt.Sprintf("fs: schema of %s: %v", name, err)) // a bug caught by every test
	}
	return llm.ToolSpec{Name: name, Description: strings.TrimSpace(desc), Schema: buf.Bytes()}
}

// judged is the path Run works on: the one the approver judged
// (tool.AccessFrom), never p resolved again, which a command may have
// changed since; p resolved for a call no runner judged.
func (b *base) judged(ctx context.Context, p string) (abs, rel string, err error) {
	if a, ok := tool.AccessFrom(ctx); ok && len(a.Paths) > 0 {
		abs = a.Paths[0].Path
		return abs, b.ws.Rel(abs), nil
	}
	return b.resolve(p)
}

// resolve maps a model path to an absolute path and the relative form
// shown back to the model.
func (b *base) resolve(p string) (abs, rel string, err error) {
	abs, err = b.ws.Resolve(p)
	if err != nil {
		return "", "", err
	}
	return abs, b.ws.Rel(abs), nil
}

// decodeArgs decodes the model's arguments strictly: an unknown field or a
// wrong type is a BAD_ARGS error naming the fields to send.
func decodeArgs(raw json.RawMessage, v any, fields string) error {
	dec := json.NewDecoder(bytes.NewReader(llm.ArgsOrEmpty(raw)))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		return nil
	}
	remedy := "Send a JSON object with: " + fields + "."
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &te) && te.Field != "":
		return tool.Errorf(tool.CodeBadArgs, remedy, "%s must be %s, not %s", te.Field, jsonKind(te.Type.Kind().String()), te.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return tool.Errorf(tool.CodeBadArgs, remedy, "unknown argument %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	return tool.Errorf(tool.CodeBadArgs, remedy, "bad arguments: %v", err)
}

func jsonKind(goKind string) string {
	switch goKind {
	case "int", "int64":
		return "an integer"
	case "bool":
		return "a boolean"
	case "string":
		return "a string"
	}
	return "a " + goKind
}

func missing(name, fields string) error {
	return tool.Errorf(tool.CodeBadArgs, "Send a JSON object with: "+fields+".", "%s is required", name)
}

// relErr rewrites the path of an *iofs.PathError to the relative form the
// model knows, keeping the errno for tool.AsToolError.
func relErr(err error, rel string) error {
	var pe *iofs.PathError
	if errors.As(err, &pe) {
		return &iofs.PathError{Op: pe.Op, Path: rel, Err: pe.Err}
	}
	return err
}

// ErrNotServed is wrapped by a Files error for a file it leaves to the
// tools (an editor that does not know it, content it cannot carry): they
// go through the workspace's root, which follows no link, where a
// fallback of the Files' own by path would follow one a command swapped
// in since the path was judged.
var ErrNotServed = errors.New("fs: not served; read or write through the workspace")

// readWhole reads a file through files, or the workspace when files is
// nil or does not serve it.
func readWhole(ctx context.Context, ws *workspace.Workspace, files Files, abs string) ([]byte, error) {
	if files != nil {
		data, err := files.ReadFile(ctx, abs)
		if !errors.Is(err, ErrNotServed) {
			return data, err
		}
	}
	return ws.ReadFile(abs)
}

// writeWhole writes the concatenation of pieces through files, or, when
// files is nil, atomically through the workspace (with mode), without
// joining them.
func writeWhole(ctx context.Context, ws *workspace.Workspace, files Files, abs string, mode iofs.FileMode, pieces ...[]byte) error {
	if files != nil {
		err := files.WriteFile(ctx, abs, bytes.Join(pieces, nil))
		if !errors.Is(err, ErrNotServed) {
			return err
		}
	}
	return ws.Replace(abs, mode, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 64<<10) // a replace_all's many small pieces
		for _, p := range pieces {
			if _, err := bw.Write(p); err != nil {
				return err
			}
		}
		return bw.Flush()
	})
}

// keptMode is the part of an existing file's mode a rewrite keeps.
func keptMode(fi iofs.FileInfo) iofs.FileMode {
	return fi.Mode() & (iofs.ModePerm | iofs.ModeSetuid | iofs.ModeSetgid | iofs.ModeSticky)
}

// writeNew writes data to abs, a new file or one replaced whole: the
// snapshot hook first, then the missing folders.
func writeNew(ctx context.Context, ws *workspace.Workspace, opts Options, abs, rel string, mode iofs.FileMode, data []byte) error {
	if err := beforeWrite(ctx, opts, abs, rel); err != nil {
		return err
	}
	if err := ws.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return relErr(err, filepath.Dir(rel))
	}
	return relErr(writeWhole(ctx, ws, opts.Files, abs, mode, data), rel)
}

// beforeWrite runs the snapshot hook.
func beforeWrite(ctx context.Context, opts Options, abs, rel string) error {
	if opts.BeforeWrite == nil {
		return nil
	}
	if err := opts.BeforeWrite(ctx, abs); err != nil {
		var te *tool.ToolError
		if errors.As(err, &te) {
			return err
		}
		return fmt.Errorf("fs: before writing %s: %w", rel, err)
	}
	return nil
}

// countLines counts lines the way an editor shows them: a final line
// without a newline still counts.
func countLines(b []byte) int {
	n := bytes.Count(b, []byte{'\n'})
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// firstLines splits s after its first n lines; rest is empty when s has
// no more than n.
func firstLines(s string, n int) (head, rest string) {
	i := 0
	for range n {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			return s, ""
		}
		i += j + 1
	}
	return s[:i], s[i:]
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
