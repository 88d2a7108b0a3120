//go:build unix

package fs_test

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/godwit/godwit/internal/tool/fs"
	"github.com/godwit/godwit/tool"
)

// A FIFO is refused, not opened: opening it would block until a writer
// came.
func TestFIFORefused(t *testing.T) {
	ws, root := newWS(t, map[string]string{"dir/a.txt": "needle\n"})
	if err := syscall.Mkfifo(filepath.Join(root, "dir", "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tl   tool.Tool
		args map[string]any
	}{
		{fs.NewRead(ws), map[string]any{"path": "dir/fifo"}},
		{fs.NewEdit(ws, fs.Options{}), map[string]any{"path": "dir/fifo", "old_text": "a", "new_text": "b"}},
		{fs.NewGrep(ws), map[string]any{"pattern": "x", "path": "dir/fifo"}},
	} {
		_, te := call(t, tc.tl, tc.args)
		if te == nil || te.Code != tool.CodeBadArgs || !strings.Contains(te.Message, "not a regular file") {
			t.Errorf("%s: %v, want BAD_ARGS not a regular file", tc.tl.Name(), te)
		}
	}
	// A folder search skips it.
	res := mustCall(t, fs.NewGrep(ws), map[string]any{"pattern": "needle"})
	if res.Content != "dir/a.txt\n1:needle\n" {
		t.Errorf("grep: %q", res.Content)
	}
}
