package fs_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/tool/fs"
	"github.com/godwit/godwit/tool"
)

func TestFileWrite(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		args    any
		want    string // content of result
		code    string
		path    string // file to check afterwards
		content string
	}{
		{name: "create with parents", args: map[string]any{"path": "a/b/c.txt", "content": "x\ny\n"},
			want: "created a/b/c.txt (4 bytes, 2 lines)", path: "a/b/c.txt", content: "x\ny\n"},
		{name: "overwrite", files: map[string]string{"f.txt": "old"}, args: map[string]any{"path": "f.txt", "content": "new"},
			want: "overwrote f.txt (3 bytes, 1 line)", path: "f.txt", content: "new"},
		{name: "empty content", args: map[string]any{"path": "e.txt", "content": ""},
			want: "created e.txt (0 bytes, 0 lines)", path: "e.txt", content: ""},
		{name: "missing content", args: map[string]any{"path": "f.txt"}, code: tool.CodeBadArgs},
		{name: "missing path", args: map[string]any{"content": "x"}, code: tool.CodeBadArgs},
		{name: "directory", files: map[string]string{"d/": ""}, args: map[string]any{"path": "d", "content": "x"}, code: tool.CodeIsDir},
		{name: "parent is a file", files: map[string]string{"f": "x"}, args: map[string]any{"path": "f/g.txt", "content": "x"}, code: tool.CodeNotDir},
		{name: "outside", args: map[string]any{"path": "../evil.txt", "content": "x"}, code: tool.CodeOutsideWorkspace},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, root := newWS(t, tt.files)
			res, te := call(t, fs.NewWrite(ws, fs.Options{}), tt.args)
			if tt.code != "" {
				if te == nil || te.Code != tt.code {
					t.Fatalf("got %q, %v; want code %s", res.Content, te, tt.code)
				}
				return
			}
			if te != nil {
				t.Fatal(te)
			}
			if res.Content != tt.want {
				t.Errorf("content %q, want %q", res.Content, tt.want)
			}
			if got := readFile(t, filepath.Join(root, tt.path)); got != tt.content {
				t.Errorf("file holds %q, want %q", got, tt.content)
			}
			if len(res.Changed) != 1 || res.Changed[0] != tt.path {
				t.Errorf("Changed = %v, want [%s]", res.Changed, tt.path)
			}
			assertNoTemp(t, root)
		})
	}
}

// assertNoTemp fails when a temp file of an atomic write is left behind.
func assertNoTemp(t *testing.T, root string) {
	t.Helper()
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if strings.Contains(d.Name(), ".godwit-") {
			t.Errorf("temp file left: %s", p)
		}
		return nil
	})
}

func TestFileWriteAtomicKeepsMode(t *testing.T) {
	ws, root := newWS(t, map[string]string{"run.sh": "old"})
	p := filepath.Join(root, "run.sh")
	if err := os.Chmod(p, 0o750); err != nil {
		t.Fatal(err)
	}
	// A reader holding the old file keeps seeing it whole: the new content
	// arrives by rename, never by rewriting in place.
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mustCall(t, fs.NewWrite(ws, fs.Options{}), map[string]any{"path": "run.sh", "content": "new content"})
	old, _ := io.ReadAll(f)
	if string(old) != "old" {
		t.Errorf("open handle reads %q, want the old content", old)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o750 {
		t.Errorf("mode %v, want 0750", fi.Mode().Perm())
	}
	if got := readFile(t, p); got != "new content" {
		t.Errorf("file holds %q", got)
	}
}

func TestFileWriteThroughSymlink(t *testing.T) {
	ws, root := newWS(t, map[string]string{"real.txt": "old"})
	if err := os.Symlink("real.txt", filepath.Join(root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	res := mustCall(t, fs.NewWrite(ws, fs.Options{}), map[string]any{"path": "link.txt", "content": "new"})
	if got := readFile(t, filepath.Join(root, "real.txt")); got != "new" {
		t.Errorf("target holds %q", got)
	}
	if fi, _ := os.Lstat(filepath.Join(root, "link.txt")); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the symlink was replaced by a file")
	}
	if res.Changed[0] != "real.txt" {
		t.Errorf("Changed = %v, want the real file", res.Changed)
	}
}

func TestBeforeWrite(t *testing.T) {
	for _, name := range []string{"file_write", "file_edit"} {
		t.Run(name, func(t *testing.T) {
			ws, root := newWS(t, map[string]string{"f.txt": "old\n"})
			p := filepath.Join(root, "f.txt")
			args := map[string]any{"path": "f.txt", "content": "new\n"}
			if name == "file_edit" {
				args = map[string]any{"path": "f.txt", "old_text": "old", "new_text": "new"}
			}
			var seen []string
			opts := fs.Options{BeforeWrite: func(ctx context.Context, abs string) error {
				seen = append(seen, abs+"="+readFile(t, abs))
				return nil
			}}
			mustCall(t, byName(t, ws, opts, name), args)
			if len(seen) != 1 || seen[0] != p+"=old\n" {
				t.Errorf("hook saw %v, want one call before the change", seen)
			}

			// A failing hook aborts the write.
			writeFiles(t, root, map[string]string{"f.txt": "old\n"})
			opts.BeforeWrite = func(context.Context, string) error { return errors.New("disk snapshot failed") }
			_, te := call(t, byName(t, ws, opts, name), args)
			if te == nil || !strings.Contains(te.Message, "disk snapshot failed") {
				t.Fatalf("error %v, want the hook's", te)
			}
			if got := readFile(t, p); got != "old\n" {
				t.Errorf("file changed to %q despite the hook's error", got)
			}
		})
	}
}

func TestWriteAccess(t *testing.T) {
	ws, root := newWS(t, map[string]string{"f.txt": "x"})
	w := fs.NewWrite(ws, fs.Options{})
	content := lines(30)
	for _, tt := range []struct{ path, summary string }{{"f.txt", "overwrite f.txt"}, {"new/g.txt", "create new/g.txt"}} {
		raw, _ := jsonArgs(map[string]any{"path": tt.path, "content": content})
		acc, err := w.Access(raw)
		if err != nil {
			t.Fatal(err)
		}
		want := tool.PathAccess{Path: filepath.Join(root, tt.path), Write: true}
		if !acc.Mutates || len(acc.Paths) != 1 || acc.Paths[0] != want || acc.Summary != tt.summary {
			t.Errorf("Access = %+v", acc)
		}
		if !strings.HasPrefix(acc.Preview, "line 1\n") || !strings.HasSuffix(acc.Preview, "line 20\n… (10 more lines)") {
			t.Errorf("Preview = %q", acc.Preview)
		}
	}
}
