package gitguard

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// race runs step in a goroutine until the returned stop is called.
func race(t *testing.T, step func() error) (stop func()) {
	var done atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		for !done.Load() {
			if err := step(); err != nil {
				t.Errorf("racer: %v", err)
				return
			}
		}
	})
	return func() { done.Store(true); wg.Wait() }
}

// TestRestoreStaysInTheFolder: a background job swaps .git/hooks and a
// link to the user's home as fast as it can, keeping a hook named
// .bashrc in the real folder, while the guard checks and restores.
// Nothing in the home may change: the guard deletes the added hook and
// restores the samples inside the folder it guards, or refuses.
func TestRestoreStaysInTheFolder(t *testing.T) {
	s := newSandbox(t)
	s.sh(s.repo, "git init -q .")
	home := filepath.Join(filepath.Dir(s.repo), "victim")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{".bashrc", "pre-commit.sample", "update.sample"} {
		if err := os.WriteFile(filepath.Join(home, name), []byte("the user's\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hooks, link := filepath.Join(s.repo, ".git", "hooks"), filepath.Join(s.repo, "hk")
	if err := os.Symlink(home, link); err != nil {
		t.Fatal(err)
	}
	g := s.guard(s.repo)
	stop := race(t, func() error {
		if fi, err := os.Lstat(hooks); err == nil && fi.IsDir() {
			_ = os.WriteFile(filepath.Join(hooks, ".bashrc"), []byte("hook\n"), 0o755)
		}
		// ENOENT: the guard has just taken away the link it found in
		// place of the folder; the job goes on swapping.
		if err := unix.Renameat2(unix.AT_FDCWD, hooks, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE); err != nil && !errors.Is(err, unix.ENOENT) {
			return err
		}
		return nil
	})
	for range 300 {
		g.Check()
	}
	stop()
	if fi, _ := os.Lstat(hooks); fi.Mode()&os.ModeSymlink != 0 { // the folder as the user had it
		if err := unix.Renameat2(unix.AT_FDCWD, hooks, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE); err != nil {
			t.Fatal(err)
		}
	}
	ents, err := os.ReadDir(home)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 3 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("the home holds %v", names)
	}
	for _, e := range ents {
		if b, _ := os.ReadFile(filepath.Join(home, e.Name())); string(b) != "the user's\n" {
			t.Errorf("%s changed: %q", e.Name(), b)
		}
	}
	g.Check()
	if _, err := os.Lstat(filepath.Join(hooks, ".bashrc")); err == nil {
		t.Error("the added hook is still there once the job stopped")
	}
}

// TestHookWrittenAgainIsNotTheUsers: a job writes a hook again as soon
// as the guard deletes it. One written between the guard's restore and
// its last look must not become the user's state: once the job stops,
// the next check deletes it.
func TestHookWrittenAgainIsNotTheUsers(t *testing.T) {
	s := newSandbox(t)
	s.sh(s.repo, "git init -q .")
	hook := filepath.Join(s.repo, ".git", "hooks", "pre-commit")
	g := s.guard(s.repo)
	stop := race(t, func() error {
		f, err := os.OpenFile(hook, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
		if err == nil {
			_, err = f.WriteString("#!/bin/sh\necho pwned\n")
			f.Close()
		}
		if os.IsExist(err) {
			return nil
		}
		return err
	})
	for range 300 {
		g.Check()
	}
	stop()
	g.Check()
	if _, err := os.Lstat(hook); err == nil {
		t.Error("the hook a job kept writing stayed")
	}
}

// TestReadSameRefusesWhatWasSwappedIn: the file stat saw is replaced by
// a link or a FIFO before it is read; readSame reads neither (a FIFO
// would wait for a writer forever).
func TestReadSameRefusesWhatWasSwappedIn(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(dir, "secret")
	if err := os.WriteFile(outside, []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, swap := range map[string]func(p string) error{
		"link": func(p string) error { return os.Symlink(outside, p) },
		"fifo": func(p string) error { return syscall.Mkfifo(p, 0o644) },
		"file": func(p string) error { return os.WriteFile(p, []byte("another\n"), 0o644) },
	} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "pre-commit")
			if err := os.WriteFile(p, []byte("hook\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Lstat(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(p, p+".old"); err != nil { // kept, so its inode is not reused
				t.Fatal(err)
			}
			if err := swap(p); err != nil {
				t.Fatal(err)
			}
			if b := readSame(p, fi); b != nil {
				t.Errorf("read %q", b)
			}
		})
	}
}
