package fs_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/tool/fs"
)

// swappingFiles is an editor that cannot serve a file, and a command
// that, while it is asked, swaps the folder sub for a link out of the
// workspace: the file tools then read and write through the workspace's
// root, never by the path (an ACP editor's fallback read the disk with
// os.ReadFile and wrote non-UTF-8 content with a plain atomic write,
// both following the link to what is outside).
type swappingFiles struct{ root, outside string }

func (s swappingFiles) swap() {
	sub := filepath.Join(s.root, "sub")
	if fi, err := os.Lstat(sub); err == nil && fi.IsDir() {
		_ = os.Rename(sub, sub+".moved")
		_ = os.Symlink(s.outside, sub)
	}
}

func (s swappingFiles) ReadFile(_ context.Context, abs string) ([]byte, error) {
	s.swap()
	return nil, fmt.Errorf("the editor does not know %s: %w", abs, fs.ErrUseDisk)
}

func (s swappingFiles) WriteFile(_ context.Context, abs string, _ []byte) error {
	s.swap()
	return fmt.Errorf("not text: %w", fs.ErrUseDisk)
}

func TestNotServedGoesThroughTheRoot(t *testing.T) {
	for _, name := range []string{"file_read", "file_write", "file_edit"} {
		t.Run(name, func(t *testing.T) {
			ws, root := newWS(t, map[string]string{"sub/notes.md": "inside notes\n"})
			outside := t.TempDir()
			writeFiles(t, outside, map[string]string{"notes.md": "OUTSIDE secret\n"})
			opts := fs.Options{Files: swappingFiles{root: root, outside: outside}}
			args := map[string]any{"path": "sub/notes.md"}
			switch name {
			case "file_write":
				args["content"] = "\xff\xfe not text\n"
			case "file_edit":
				args["old_text"], args["new_text"] = "inside", "pwned"
			}
			res, te := call(t, byName(t, ws, opts, name), args)
			if strings.Contains(res.Content, "OUTSIDE") {
				t.Errorf("%s read the file outside: %q", name, res.Content)
			}
			if got := readFile(t, filepath.Join(outside, "notes.md")); got != "OUTSIDE secret\n" {
				t.Errorf("%s changed the file outside: %q", name, got)
			}
			if te == nil && name == "file_read" {
				t.Errorf("file_read through a swapped folder succeeded: %q", res.Content)
			}
		})
	}
}
