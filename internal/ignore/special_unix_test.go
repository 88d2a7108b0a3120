//go:build unix

package ignore

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestReadSpecial: a repository's .gitignore that is a FIFO or a link to
// /dev/zero (a device that never ends) has no patterns, at once: the
// walks of file_list, grep and the change watcher read every
// .gitignore, and os.ReadFile waited on the one and filled memory with
// the other. A link inside the repository is not followed either, as
// git follows none.
func TestReadSpecial(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(dir, "real")
	if err := os.WriteFile(real, []byte("*.log\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("real", link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, zero, link} {
		done := make(chan Rules, 1)
		go func() { done <- Read(p, nil) }()
		select {
		case r := <-done:
			if len(r) != 0 {
				t.Errorf("%s: %d patterns, want none", filepath.Base(p), len(r))
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("Read of %s does not return", filepath.Base(p))
		}
	}
	if r := Read(real, nil); len(r) != 1 {
		t.Errorf("a regular file: %d patterns, want 1", len(r))
	}
}
