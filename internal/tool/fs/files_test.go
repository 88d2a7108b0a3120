package fs_test

import (
	"context"
	iofs "io/fs"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/godwit/godwit/internal/tool/fs"
	"github.com/godwit/godwit/tool"
)

// buffers is an editor holding files in memory: what it holds wins over
// the disk, as an unsaved buffer does.
type buffers struct {
	mu     sync.Mutex
	files  map[string]string // abs -> content
	reads  []string
	writes []string
}

func (b *buffers) ReadFile(_ context.Context, abs string) ([]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reads = append(b.reads, abs)
	c, ok := b.files[abs]
	if !ok {
		return nil, &iofs.PathError{Op: "read", Path: abs, Err: syscall.ENOENT}
	}
	return []byte(c), nil
}

func (b *buffers) WriteFile(_ context.Context, abs string, data []byte) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.writes = append(b.writes, abs)
	b.files[abs] = string(data)
	return nil
}

func TestFilesHook(t *testing.T) {
	tests := []struct {
		name     string
		disk     map[string]string
		buffers  map[string]string // relative paths
		tool     string
		args     map[string]any
		wantCode string
		want     string            // in the result
		after    map[string]string // buffers afterwards
		reads    int
	}{
		{name: "read sees the unsaved buffer",
			disk: map[string]string{"a.go": "on disk\n"}, buffers: map[string]string{"a.go": "in the editor\n"},
			tool: "file_read", args: map[string]any{"path": "a.go"}, want: "1\tin the editor\n", reads: 1},
		{name: "read a buffer never saved",
			buffers: map[string]string{"new.go": "package x\n"},
			tool:    "file_read", args: map[string]any{"path": "new.go"}, want: "1\tpackage x\n", reads: 1},
		{name: "read keeps the line window",
			disk: map[string]string{"a.txt": "x\n"}, buffers: map[string]string{"a.txt": "one\ntwo\nthree\n"},
			tool: "file_read", args: map[string]any{"path": "a.txt", "start_line": 2, "end_line": 2}, want: "2\ttwo\n[lines 2-2 of 3]", reads: 1},
		{name: "missing everywhere is ENOENT",
			tool: "file_read", args: map[string]any{"path": "gone.txt"}, wantCode: tool.CodeNotFound, reads: 1},
		{name: "a directory is refused before asking",
			disk: map[string]string{"dir/": ""},
			tool: "file_read", args: map[string]any{"path": "dir"}, wantCode: tool.CodeIsDir},
		{name: "binary content is refused",
			disk: map[string]string{"b.bin": "x"}, buffers: map[string]string{"b.bin": "a\x00b"},
			tool: "file_read", args: map[string]any{"path": "b.bin"}, wantCode: tool.CodeBinary, reads: 1},
		{name: "write goes to the editor",
			disk: map[string]string{"a.go": "old\n"},
			tool: "file_write", args: map[string]any{"path": "a.go", "content": "new\n"},
			want: "overwrote a.go", after: map[string]string{"a.go": "new\n"}},
		{name: "edit applies to the buffer",
			disk: map[string]string{"a.go": "on disk\n"}, buffers: map[string]string{"a.go": "x := 1\ny := 2\n"},
			tool: "file_edit", args: map[string]any{"path": "a.go", "old_text": "y := 2", "new_text": "y := 3"},
			want: "edited a.go", after: map[string]string{"a.go": "x := 1\ny := 3\n"}, reads: 1},
		{name: "edit creating a file",
			tool: "file_edit", args: map[string]any{"path": "sub/n.go", "old_text": "", "new_text": "package n\n"},
			want: "created sub/n.go", after: map[string]string{"sub/n.go": "package n\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, root := newWS(t, tt.disk)
			bufs := &buffers{files: map[string]string{}}
			for p, c := range tt.buffers {
				bufs.files[filepath.Join(root, p)] = c
			}
			var snapshots []string
			opts := fs.Options{Files: bufs, BeforeWrite: func(_ context.Context, abs string) error {
				snapshots = append(snapshots, abs)
				return nil
			}}
			res, te := call(t, byName(t, ws, opts, tt.tool), tt.args)
			switch {
			case tt.wantCode != "" && (te == nil || te.Code != tt.wantCode):
				t.Fatalf("got %v %q, want code %s", te, res.Content, tt.wantCode)
			case tt.wantCode == "" && te != nil:
				t.Fatal(te)
			}
			if !strings.Contains(res.Content, tt.want) {
				t.Errorf("result %q lacks %q", res.Content, tt.want)
			}
			if len(bufs.reads) != tt.reads {
				t.Errorf("%d reads through Files, want %d", len(bufs.reads), tt.reads)
			}
			for p, want := range tt.after {
				abs := filepath.Join(root, p)
				if got := bufs.files[abs]; got != want {
					t.Errorf("buffer %s = %q, want %q", p, got, want)
				}
				if len(snapshots) != 1 || snapshots[0] != abs {
					t.Errorf("BeforeWrite saw %v, want %s", snapshots, abs)
				}
			}
			// The disk is left to the editor: nothing was written there.
			for p, c := range tt.disk {
				if strings.HasSuffix(p, "/") {
					continue
				}
				if got := readFile(t, filepath.Join(root, p)); got != c {
					t.Errorf("disk %s changed to %q", p, got)
				}
			}
		})
	}
}

func TestFilesWriteErrorReachesTheModel(t *testing.T) {
	ws, _ := newWS(t, nil)
	failing := failingFiles{err: &iofs.PathError{Op: "write", Path: "x", Err: syscall.EACCES}}
	_, te := call(t, byName(t, ws, fs.Options{Files: failing}, "file_write"), map[string]any{"path": "a.txt", "content": "x"})
	if te == nil || te.Code != tool.CodePermission || !strings.Contains(te.Message, "a.txt") {
		t.Fatalf("got %v, want EACCES naming a.txt", te)
	}
}

type failingFiles struct{ err error }

func (f failingFiles) ReadFile(context.Context, string) ([]byte, error) { return nil, f.err }
func (f failingFiles) WriteFile(context.Context, string, []byte) error  { return f.err }
