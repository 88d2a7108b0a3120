//go:build unix

package sandbox

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestSyncTestExpireSpecial: commands may write godwit's private build
// cache, so its testexpire.txt may be a FIFO or a link to /dev/zero when
// godwit, outside the sandbox, reads it to carry go clean -testcache
// over; the read ends at once and the stamp is written anew.
func TestSyncTestExpireSpecial(t *testing.T) {
	for _, plant := range []string{"fifo", "zero"} {
		user, private := t.TempDir(), filepath.Join(t.TempDir(), "go-build")
		if err := os.MkdirAll(private, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(user, "testexpire.txt"), []byte("42\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(private, "testexpire.txt")
		var err error
		if plant == "fifo" {
			err = syscall.Mkfifo(p, 0o644)
		} else {
			err = os.Symlink("/dev/zero", p)
		}
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { syncTestExpire(user, private); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: syncTestExpire does not return", plant)
		}
		if b, err := os.ReadFile(p); err != nil || string(b) != "42" {
			t.Errorf("%s: the private stamp = %q, %v; want 42", plant, b, err)
		}
	}
}
