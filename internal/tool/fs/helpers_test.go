package fs_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/tool/fs"
	"github.com/godwit/godwit/internal/tool/workspace"
	"github.com/godwit/godwit/tool"
)

// newWS makes a workspace holding files (path -> content; a path ending in
// "/" makes a folder).
func newWS(t testing.TB, files map[string]string) (*workspace.Workspace, string) {
	t.Helper()
	root := t.TempDir()
	writeFiles(t, root, files)
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	return ws, ws.Root()
}

func writeFiles(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		abs := filepath.Join(root, p)
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(abs, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// call runs a tool as the runner does: Access, then Run, errors turned
// into the *tool.ToolError the model reads (nil on success).
func call(t testing.TB, tl tool.Tool, args any) (tool.Result, *tool.ToolError) {
	t.Helper()
	raw, ok := args.(string)
	if !ok {
		b, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		raw = string(b)
	}
	if a, ok := tl.(tool.Accessor); ok {
		if _, err := a.Access(json.RawMessage(raw)); err != nil {
			return tool.Result{}, tool.AsToolError(err)
		}
	}
	res, err := tl.Run(context.Background(), json.RawMessage(raw))
	if err != nil {
		return res, tool.AsToolError(err)
	}
	return res, nil
}

// mustCall is call that fails the test on a tool error.
func mustCall(t testing.TB, tl tool.Tool, args any) tool.Result {
	t.Helper()
	res, te := call(t, tl, args)
	if te != nil {
		t.Fatalf("%s(%v): %v", tl.Name(), args, te)
	}
	return res
}

func readFile(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// byName picks one tool of fs.Tools.
func byName(t testing.TB, ws *workspace.Workspace, opts fs.Options, name string) tool.Tool {
	t.Helper()
	for _, tl := range fs.Tools(ws, opts) {
		if tl.Name() == name {
			return tl
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

// numbered renders lines from..to of "line N" files as file_read shows them.
func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		b.WriteString(itoa(i) + "\tline " + itoa(i) + "\n")
	}
	return b.String()
}

func lines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString("line " + itoa(i) + "\n")
	}
	return b.String()
}

func itoa(i int) string { return strconv.Itoa(i) }

func jsonArgs(v any) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	return json.RawMessage(b), err
}
