//go:build unix

package snapshot_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/godwit/godwit/internal/snapshot"
	"github.com/godwit/godwit/llm"
)

// TestUndoBigSparseFile: after the agent wrote a.txt, a command made it a
// sparse file of 1 GiB (under its size limit, no disk used). Undo puts
// the small file back without reading the big one whole into godwit's
// memory to compare it with the snapshot.
func TestUndoBigSparseFile(t *testing.T) {
	w := newWorld(t, map[string]string{"a.txt": "before\n"})
	sess := w.turn("", []llm.ToolCall{call("1", "file_write", map[string]any{"path": "a.txt", "content": "agent\n"})})
	p := filepath.Join(w.root, "a.txt")
	if err := os.Truncate(p, 1<<30); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := snapshot.Undo(context.Background(), w.st, sess, 1); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Errorf("undo allocated %d MiB to restore a 7-byte file over a sparse 1 GiB one", got>>20)
	}
	if b, _ := os.ReadFile(p); string(b) != "before\n" {
		t.Errorf("a.txt = %.40q, want it restored", b)
	}
}
