package fs_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/tool/fs"
	"github.com/godwit/godwit/tool"
)

func TestFileList(t *testing.T) {
	ws, root := newWS(t, map[string]string{
		".gitignore":           "*.log\nbuild/\n",
		".git/HEAD":            "ref",
		"README.md":            "r",
		"app.log":              "l",
		"build/out.bin":        "b",
		"cmd/godwit/main.go":   "m",
		"cmd/godwit/deep/x.go": "x",
		"pkg/a.go":             "a",
		"pkg/b.go":             "b",
		"pkg/sub/c.go":         "c",
		"pkg/sub/.gitignore":   "gen.go\n",
		"pkg/sub/gen.go":       "g",
		"node_modules/x/i.js":  "i",
		"vendor/mod/m.go":      "m",
		"empty/":               "",
	})
	if err := os.Symlink("pkg/a.go", filepath.Join(root, "link.go")); err != nil {
		t.Fatal(err)
	}
	ls := fs.NewList(ws)
	tests := []struct {
		name string
		args map[string]any
		want string
		code string
	}{
		{name: "default depth 2", args: map[string]any{}, want: `.gitignore
README.md
cmd/
  godwit/ (1 file, 1 dir)
empty/
link.go -> pkg/a.go
node_modules/ (skipped)
pkg/
  a.go
  b.go
  sub/ (2 files, 0 dirs)
vendor/ (skipped)
[2 gitignored entries not shown]
`},
		{name: "depth 1", args: map[string]any{"depth": 1}, want: `.gitignore
README.md
cmd/ (0 files, 1 dir)
empty/ (0 files, 0 dirs)
link.go -> pkg/a.go
node_modules/ (skipped)
pkg/ (2 files, 1 dir)
vendor/ (skipped)
[2 gitignored entries not shown]
`},
		{name: "subfolder sees nested gitignore", args: map[string]any{"path": "pkg/sub"}, want: ".gitignore\nc.go\n[1 gitignored entry not shown]\n"},
		{name: "empty folder", args: map[string]any{"path": "empty"}, want: "[empty folder]\n"},
		{name: "file", args: map[string]any{"path": "README.md"}, code: tool.CodeNotDir},
		{name: "missing", args: map[string]any{"path": "nope"}, code: tool.CodeNotFound},
		{name: "bad depth", args: map[string]any{"depth": 0}, code: tool.CodeBadArgs},
		{name: "outside", args: map[string]any{"path": ".."}, code: tool.CodeOutsideWorkspace},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, te := call(t, ls, tt.args)
			if tt.code != "" {
				if te == nil || te.Code != tt.code {
					t.Fatalf("got %q, %v; want %s", res.Content, te, tt.code)
				}
				return
			}
			if te != nil {
				t.Fatal(te)
			}
			if res.Content != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", res.Content, tt.want)
			}
		})
	}
}

func TestFileListCap(t *testing.T) {
	files := map[string]string{}
	for d := range 5 {
		for f := range 100 {
			files[fmt.Sprintf("d%d/f%03d.txt", d, f)] = ""
		}
	}
	ws, _ := newWS(t, files)
	res := mustCall(t, fs.NewList(ws), map[string]any{})
	// Breadth first: all five folders show; the budget runs out inside.
	for d := range 5 {
		if !strings.Contains(res.Content, fmt.Sprintf("d%d/", d)) {
			t.Errorf("d%d/ missing", d)
		}
	}
	if !strings.Contains(res.Content, "d4/ (100 files, 0 dirs)") || !strings.HasSuffix(res.Content, "[truncated at 400 entries; list a subfolder or use a smaller depth]\n") {
		t.Errorf("no counts or note for the cut:\n%s", res.Content[len(res.Content)-300:])
	}
	if n := strings.Count(res.Content, "\n"); n > 410 {
		t.Errorf("%d lines, want about 400", n)
	}
}
