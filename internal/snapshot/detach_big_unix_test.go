//go:build unix

package snapshot_test

import (
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/godwit/godwit/internal/snapshot"
)

// TestDetachBigSparseFile: a command made a sparse file of 1 GiB (under
// its file size limit, no disk used) and a second name for it in a
// folder the walk skips, so that it counts as shared. godwit's own
// process gives it a copy: the copy must neither pass through godwit's
// memory whole (ReadFile took 1 GiB per file, and a command can make
// many) nor fill the disk with the zeros the file never held.
func TestDetachBigSparseFile(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	root := filepath.Join(base, "ws")
	if err := os.MkdirAll(filepath.Join(root, "node_modules"), 0o755); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(root, "big")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	const size = 1 << 30
	if _, err := f.WriteAt([]byte("head"), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("tail"), size-4); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Link(big, filepath.Join(root, "node_modules", "big")); err != nil {
		t.Skipf("hard links: %v", err)
	}
	w := snapshot.NewWatcher(root, snapshot.WatchOptions{DetachShared: true})
	fp := w.Take()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	done, err := w.Detach(fp.Shared())
	runtime.ReadMemStats(&after)
	if err != nil || len(done) != 1 {
		t.Fatalf("Detach = %v, %v", done, err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
		t.Errorf("Detach allocated %d MiB for a sparse file of 1 GiB", got>>20)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(big, &st); err != nil {
		t.Fatal(err)
	}
	if st.Size != size {
		t.Errorf("the copy is %d bytes, want %d", st.Size, size)
	}
	if used := st.Blocks * 512; used > 16<<20 {
		t.Errorf("the copy takes %d MiB of disk; the file held 8 bytes", used>>20)
	}
	b := make([]byte, 4)
	c, _ := os.Open(big)
	defer c.Close()
	if _, err := c.ReadAt(b, size-4); err != nil || string(b) != "tail" {
		t.Errorf("the copy's end = %q, %v", b, err)
	}
	if len(fp.Changed()) != 0 {
		t.Errorf("detaching changed %q", fp.Changed())
	}
}
