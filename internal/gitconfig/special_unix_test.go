//go:build unix

package gitconfig

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestSpecialFiles: a .git, a commondir or a config file that is a FIFO
// or a link to /dev/zero (a workspace that was no repository, where a
// command may make .git) ends at once, as no repository or an error:
// os.ReadFile waited on the one and filled memory with the other, in
// godwit's own process, before and after every command.
func TestSpecialFiles(t *testing.T) {
	for _, plant := range []struct {
		name string
		make func(dir string) error
	}{
		{"dotgit-fifo", func(d string) error { return syscall.Mkfifo(filepath.Join(d, ".git"), 0o644) }},
		{"dotgit-zero", func(d string) error { return os.Symlink("/dev/zero", filepath.Join(d, ".git")) }},
		{"commondir-fifo", func(d string) error {
			if err := os.WriteFile(filepath.Join(d, ".git"), []byte("gitdir: g\n"), 0o644); err != nil {
				return err
			}
			if err := os.Mkdir(filepath.Join(d, "g"), 0o755); err != nil {
				return err
			}
			return syscall.Mkfifo(filepath.Join(d, "g", "commondir"), 0o644)
		}},
		{"commondir-zero", func(d string) error {
			if err := os.WriteFile(filepath.Join(d, ".git"), []byte("gitdir: g\n"), 0o644); err != nil {
				return err
			}
			if err := os.Mkdir(filepath.Join(d, "g"), 0o755); err != nil {
				return err
			}
			return os.Symlink("/dev/zero", filepath.Join(d, "g", "commondir"))
		}},
	} {
		dir := t.TempDir()
		if err := plant.make(dir); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			if r, ok := FindRepo(dir); ok {
				_, _ = ReadFile(filepath.Join(r.Common, "config"))
			}
			_, _, _ = Discover(dir, func(string) (string, bool) { return "", false })
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: finding the repository does not return", plant.name)
		}
	}
	if s, err := ReadFile(os.DevNull); err != nil || len(s) != 0 {
		t.Errorf("ReadFile(%s) = %v, %v; want no settings (GIT_CONFIG_GLOBAL=/dev/null)", os.DevNull, s, err)
	}
	fifo := filepath.Join(t.TempDir(), "config")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := ReadFile(fifo); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("ReadFile of a FIFO: no error, want one (never \"no settings\")")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ReadFile of a FIFO does not return")
	}
}
