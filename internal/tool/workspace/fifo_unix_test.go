//go:build unix

package workspace_test

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/tool/workspace"
)

// TestFIFO: a FIFO in the workspace (a tarball's, or one a command made)
// is refused at once by every read of the layer; an open for reading
// would otherwise wait for a writer forever, and Load's check of the
// file's type came after the open.
func TestFIFO(t *testing.T) {
	w, root, _ := setup(t)
	p := filepath.Join(root, "a", "AGENTS.md")
	must(t, syscall.Mkfifo(p, 0o644))
	for name, read := range map[string]func() error{
		"Open":     func() error { f, err := w.Open(p); closeIf(f); return err },
		"ReadFile": func() error { _, err := w.ReadFile(p); return err },
		"ReadInto": func() error { _, err := w.ReadInto(p, nil, 1<<20); return err },
		"Load":     func() error { _, _, err := w.Load("a/AGENTS.md", 1<<20); return err },
	} {
		done := make(chan error, 1)
		go func() { done <- read() }()
		select {
		case err := <-done:
			if !errors.Is(err, workspace.ErrNotFile) {
				t.Errorf("%s of a FIFO: %v, want ErrNotFile", name, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s of a FIFO waits for a writer", name)
		}
	}
}
