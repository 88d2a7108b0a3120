//go:build unix

package eval

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestFileCheckSpecial: the model under test made a checked file a FIFO
// or a link to /dev/zero; the check fails at once instead of holding the
// run in open(2) or filling its memory, and a link to a file that passes
// does not pass for it.
func TestFileCheckSpecial(t *testing.T) {
	ws := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(ws, "fifo.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(ws, "zero.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "real.txt"), []byte("ok\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.txt", filepath.Join(ws, "link.txt")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"fifo.txt", "zero.txt", "link.txt"} {
		done := make(chan []string, 1)
		go func() {
			done <- fileFailures(FileCheck{Path: name, TextCheck: TextCheck{Contains: []string{"ok"}}}, ws, nil)
		}()
		select {
		case fails := <-done:
			if len(fails) == 0 {
				t.Errorf("%s passed its check", name)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("the check of %s does not return", name)
		}
	}
	if fails := fileFailures(FileCheck{Path: "real.txt", TextCheck: TextCheck{Contains: []string{"ok"}}}, ws, nil); len(fails) != 0 {
		t.Errorf("real.txt: %v", fails)
	}
}
