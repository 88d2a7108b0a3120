package workspace_test

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/godwit/godwit/internal/tool/workspace"
)

// swapped builds ws/sub/f.txt and outside/f.txt, resolves ws/sub/f.txt,
// then makes sub a link: to outside, or to ws/other (inside). It
// returns the path resolved before the swap, as a tool holds it.
func swapped(t *testing.T, inside bool) (w *workspace.Workspace, abs, root, outside string) {
	t.Helper()
	w, root, outside = setup(t)
	must(t, os.MkdirAll(filepath.Join(root, "sub"), 0o755))
	must(t, os.MkdirAll(filepath.Join(root, "other"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "sub", "f.txt"), []byte("mine"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "other", "f.txt"), []byte("other"), 0o644))
	must(t, os.WriteFile(filepath.Join(outside, "f.txt"), []byte("theirs"), 0o644))
	abs, err := w.Resolve("sub/f.txt")
	must(t, err)
	must(t, os.Rename(filepath.Join(root, "sub"), filepath.Join(root, "sub.old")))
	target := outside
	if inside {
		target = "other"
	}
	must(t, os.Symlink(target, filepath.Join(root, "sub")))
	return w, abs, root, outside
}

// TestOperationsRefuseASwappedFolder: every operation on a path resolved
// before its folder became a link fails, and nothing outside (or in the
// other folder) is read, written or removed.
func TestOperationsRefuseASwappedFolder(t *testing.T) {
	ops := map[string]func(w *workspace.Workspace, abs string) error{
		"Open":     func(w *workspace.Workspace, abs string) error { f, err := w.Open(abs); closeIf(f); return err },
		"ReadFile": func(w *workspace.Workspace, abs string) error { _, err := w.ReadFile(abs); return err },
		"ReadDir":  func(w *workspace.Workspace, abs string) error { _, err := w.ReadDir(filepath.Dir(abs)); return err },
		"Replace": func(w *workspace.Workspace, abs string) error {
			return w.Replace(abs, 0o644, func(f io.Writer) error { _, err := f.Write([]byte("pwned")); return err })
		},
		"Remove":   func(w *workspace.Workspace, abs string) error { return w.Remove(abs) },
		"Lstat":    func(w *workspace.Workspace, abs string) error { _, err := w.Lstat(abs); return err },
		"MkdirAll": func(w *workspace.Workspace, abs string) error { return w.MkdirAll(filepath.Join(abs+".d", "x"), 0o755) },
	}
	for _, inside := range []bool{false, true} {
		for name, op := range ops {
			t.Run(fmt.Sprint(name, "/inside=", inside), func(t *testing.T) {
				w, abs, root, outside := swapped(t, inside)
				err := op(w, abs)
				if (name == "Lstat" || name == "MkdirAll") && inside {
					// A stat through a link inside reads nothing; a folder
					// made there is empty, and the write into it fails.
					return
				}
				if runtime.GOOS != "linux" && inside {
					t.Skip("only Linux names what a descriptor opened")
				}
				if err == nil {
					t.Fatalf("%s through the swapped folder succeeded", name)
				}
				for _, p := range []string{filepath.Join(outside, "f.txt"), filepath.Join(root, "other", "f.txt")} {
					b, err := os.ReadFile(p)
					if err != nil || (string(b) != "theirs" && string(b) != "other") {
						t.Errorf("%s: %s is now %q, %v", name, p, b, err)
					}
				}
				for dir, n := range map[string]int{outside: 2, filepath.Join(root, "other"): 1} {
					ents, _ := os.ReadDir(dir)
					if len(ents) != n {
						t.Errorf("%s left files in %s: %v", name, dir, ents)
					}
				}
			})
		}
	}
}

func closeIf(f *os.File) {
	if f != nil {
		f.Close()
	}
}

// TestReplace writes through a temp file and a rename in the folder:
// a link at the path is replaced, not written through.
func TestReplace(t *testing.T) {
	w, root, outside := setup(t)
	target := filepath.Join(outside, "secret.txt")
	must(t, os.Symlink(target, filepath.Join(root, "a", "link")))
	abs := filepath.Join(root, "a", "link")
	must(t, w.Replace(abs, 0o600, func(f io.Writer) error { _, err := io.WriteString(f, "new"); return err }))
	if b, _ := os.ReadFile(target); string(b) != "s" {
		t.Errorf("the link's target changed: %q", b)
	}
	fi, err := os.Lstat(abs)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
		t.Errorf("after Replace: %v, %v", fi, err)
	}
	failed := errors.New("no")
	if err := w.Replace(abs, 0o644, func(io.Writer) error { return failed }); !errors.Is(err, failed) {
		t.Errorf("a failed write: %v", err)
	}
	if b, _ := os.ReadFile(abs); string(b) != "new" {
		t.Errorf("a failed write changed the file: %q", b)
	}
	ents, _ := os.ReadDir(filepath.Join(root, "a"))
	if len(ents) != 2 {
		t.Errorf("temp files left: %v", ents)
	}
}

// TestLoad: what a repository puts into a request.
func TestLoad(t *testing.T) {
	w, root, outside := setup(t)
	must(t, os.WriteFile(filepath.Join(root, "AGENTS.md"), []byte("rules"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, ".env"), []byte("KEY=1"), 0o644))
	must(t, os.Symlink("AGENTS.md", filepath.Join(root, "CLAUDE.md")))
	must(t, os.Symlink(".env", filepath.Join(root, "env-link.md")))
	must(t, os.Symlink("../outside/secret.txt", filepath.Join(root, "relative.md")))
	must(t, os.Symlink("/proc/self/environ", filepath.Join(root, "environ.md")))
	must(t, os.Link(filepath.Join(outside, "secret.txt"), filepath.Join(root, "hard.md")))
	must(t, os.MkdirAll(filepath.Join(root, ".git"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, ".git", "config"), []byte("[remote]"), 0o644))
	must(t, os.Symlink(".git/config", filepath.Join(root, "git-config.md")))
	tests := []struct {
		rel, want string
		err       error
	}{
		{"AGENTS.md", "rules", nil},
		{"CLAUDE.md", "rules", nil}, // a link inside still works
		{"missing.md", "", fs.ErrNotExist},
		{"a", "", syscall.EISDIR},
		{".env", "", workspace.ErrSecret},
		{"env-link.md", "", workspace.ErrSecret},
		{"relative.md", "", workspace.ErrOutside},
		{"environ.md", "", workspace.ErrOutside},
		{"out/secret.txt", "", workspace.ErrOutside},
		{"hard.md", "", workspace.ErrOutside},
		{"git-config.md", "", workspace.ErrSecret}, // git's config may hold the user's tokens
		{".git/config", "", workspace.ErrSecret},
	}
	for _, tt := range tests {
		got, _, err := w.Load(tt.rel, 1<<20)
		if tt.err == nil && (err != nil || string(got) != tt.want) {
			t.Errorf("Load(%s) = %q, %v; want %q", tt.rel, got, err, tt.want)
		}
		if tt.err != nil && !errors.Is(err, tt.err) {
			t.Errorf("Load(%s) = %q, %v; want an error wrapping %v", tt.rel, got, err, tt.err)
		}
		if err != nil && strings.Contains(err.Error(), "OUTSIDE_WORKSPACE") {
			t.Errorf("Load(%s): the error is the model's tool error: %v", tt.rel, err)
		}
	}
	if _, _, err := workspace.Load(root, "AGENTS.md", 3); err != nil {
		t.Errorf("Load with a limit: %v", err)
	}
}

// TestSub: a folder of the workspace as a root of its own; its files may
// not lead out of it, even to the rest of the workspace.
func TestSub(t *testing.T) {
	w, root, _ := setup(t)
	sub, err := w.Sub(filepath.Join(root, "a"))
	must(t, err)
	defer sub.Close()
	if b, _, err := sub.Load("b.txt", 10); err != nil || string(b) != "b" {
		t.Errorf("Load(b.txt) = %q, %v", b, err)
	}
	must(t, os.WriteFile(filepath.Join(root, "top.txt"), []byte("top"), 0o644))
	must(t, os.Symlink("../top.txt", filepath.Join(root, "a", "top-link")))
	if _, _, err := sub.Load("top-link", 10); !errors.Is(err, workspace.ErrOutside) {
		t.Errorf("Load(top-link) = %v, want ErrOutside", err)
	}
}
