//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLoadDotenvSpecial: a repository's .env that is a link to /dev/zero
// or a FIFO is refused at once with a warning; os.ReadFile filled
// godwit's memory with the one and waited in open(2) on the other,
// before any command of godwit ran.
func TestLoadDotenvSpecial(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.env")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero.env")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.env")
	if err := os.WriteFile(big, []byte("OPENAI_API_KEY="+strings.Repeat("k", maxEnvFile)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, zero, big} {
		done := make(chan error, 1)
		project := map[string]string{}
		go func() {
			done <- loadDotenv([]envFile{{path: p, project: true}}, func(string) (string, bool) { return "", false },
				func(string, string) error { return nil }, project)
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not read") || len(project) > 0 {
				t.Errorf("%s: err %v, keys %v; want a warning and no keys", filepath.Base(p), err, project)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: loadDotenv does not return", filepath.Base(p))
		}
	}
}
