package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFile(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 120) + ".txt" // 244 bytes: the temporary name must cut it
	cases := []struct {
		name    string
		old     string // "" means no file before
		file    string
		perm    fs.FileMode
		opts    func(dir string) []Option
		wantErr bool
	}{
		{name: "new file", file: "a.txt", perm: 0o644},
		{name: "replaces, taking the new mode", old: "old", file: "a.txt", perm: 0o600},
		{name: "mode as given, umask aside", file: "a.txt", perm: 0o666},
		{name: "setuid kept", old: "old", file: "run.sh", perm: fs.ModeSetuid | 0o755},
		{name: "name near the limit", file: long, perm: 0o644},
		{name: "no sync", old: "old", file: "a.txt", perm: 0o644, opts: func(string) []Option { return []Option{NoSync()} }},
		{name: "in a root", old: "old", file: "a.txt", perm: 0o644, opts: func(dir string) []Option {
			r, err := os.OpenRoot(dir)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Close() })
			return []Option{InRoot(r)}
		}},
		{name: "over a folder fails", old: "<dir>", file: "a.txt", perm: 0o644, wantErr: true},
		{name: "missing folder fails", file: "no/such/a.txt", perm: 0o644, wantErr: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, c.file)
			switch c.old {
			case "":
			case "<dir>":
				if err := os.Mkdir(path, 0o755); err != nil {
					t.Fatal(err)
				}
			default:
				if err := os.WriteFile(path, []byte(c.old), 0o640); err != nil {
					t.Fatal(err)
				}
			}
			target := path
			var opts []Option
			if c.opts != nil {
				opts = c.opts(dir)
				if c.name == "in a root" {
					target = c.file
				}
			}
			err := WriteFile(target, []byte("new"), c.perm, opts...)
			if c.wantErr {
				if err == nil {
					t.Fatal("no error")
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(path)
				if err != nil || string(got) != "new" {
					t.Errorf("file holds %q (%v), want %q", got, err, "new")
				}
				fi, err := os.Stat(path)
				if err != nil {
					t.Fatal(err)
				}
				if fi.Mode() != c.perm {
					t.Errorf("mode %v, want %v", fi.Mode(), c.perm)
				}
			}
			assertOnly(t, dir, filepath.Base(c.file))
		})
	}
}

// TestInRootRefusesLinks: a folder of the path swapped for a link out of
// the root fails the write; the file outside stays as it was.
func TestInRootRefusesLinks(t *testing.T) {
	t.Parallel()
	dir, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "key")
	if err := os.WriteFile(secret, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "cache")); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := WriteFile("cache/key", []byte("planted"), 0o644, InRoot(r)); err == nil {
		t.Fatal("wrote through a link out of the root")
	}
	if got, _ := os.ReadFile(secret); string(got) != "secret" {
		t.Errorf("the file outside holds %q", got)
	}
	assertOnly(t, outside, "key")
}

// TestPending: Abort leaves the old file and no temporary one; a check
// between Create and Commit sees the temporary file by Name; a second
// Commit fails.
func TestPending(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}

	p, err := Create(path, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Write([]byte("half")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p.tmp); string(got) != "half" {
		t.Errorf("temporary file %s holds %q", p.tmp, got)
	}
	if !IsTemp(filepath.Base(p.tmp)) {
		t.Errorf("IsTemp(%q) = false", filepath.Base(p.tmp))
	}
	for _, name := range []string{"a.txt", ".a.txt", ".godwit-abc", ".a.godwit-", ".a.godwit-ABC", "a.txt.godwit-abc"} {
		if IsTemp(name) {
			t.Errorf("IsTemp(%q) = true", name)
		}
	}
	p.Abort()
	p.Abort()
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("after Abort the file holds %q, want old", got)
	}
	assertOnly(t, dir, "a.txt")

	p, err = Create(path, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Abort()
	p.Write([]byte("new"))
	if err := p.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := p.Commit(); err == nil {
		t.Error("a second Commit succeeded")
	}
	p.Abort() // after Commit: nothing
	if got, _ := os.ReadFile(path); string(got) != "new" {
		t.Errorf("after Commit the file holds %q, want new", got)
	}
	assertOnly(t, dir, "a.txt")
}

// assertOnly fails unless dir holds just name (or nothing, when the
// write failed): no temporary file is left behind.
func assertOnly(t *testing.T, dir, name string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() != name && e.Name() != "cache" {
			t.Errorf("left in %s: %s", dir, e.Name())
		}
	}
}
