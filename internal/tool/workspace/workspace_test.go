package workspace_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/godwit/godwit/internal/tool/workspace"
	"github.com/godwit/godwit/tool"
)

// setup builds:
//
//	outside/secret.txt
//	ws/a/b.txt
//	ws/in -> ws/a            (link staying inside)
//	ws/out -> outside         (link leaving)
//	ws/dangle -> outside/new  (dangling link leaving)
//	ws/dangle-in -> a/new     (dangling link staying inside)
//	ws/loop -> loop
func setup(t *testing.T) (ws *workspace.Workspace, root, outside string) {
	t.Helper()
	base := t.TempDir()
	root = filepath.Join(base, "ws")
	outside = filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "a"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	must(t, os.WriteFile(filepath.Join(root, "a", "b.txt"), []byte("b"), 0o644))
	must(t, os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("s"), 0o644))
	must(t, os.Symlink(filepath.Join(root, "a"), filepath.Join(root, "in")))
	must(t, os.Symlink(outside, filepath.Join(root, "out")))
	must(t, os.Symlink(filepath.Join(outside, "new"), filepath.Join(root, "dangle")))
	must(t, os.Symlink("a/new", filepath.Join(root, "dangle-in")))
	must(t, os.Symlink("loop", filepath.Join(root, "loop")))
	w, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	// t.TempDir may itself sit behind a symlink (macOS /var): compare real paths.
	root, _ = filepath.EvalSymlinks(root)
	outside, _ = filepath.EvalSymlinks(outside)
	return w, root, outside
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestResolve(t *testing.T) {
	w, root, outside := setup(t)
	tests := []struct {
		name string
		in   string
		want string // "" with code set: compare the code only
		code string
	}{
		{"empty is root", "", root, ""},
		{"relative file", "a/b.txt", filepath.Join(root, "a/b.txt"), ""},
		{"dot segments", "./a/../a/b.txt", filepath.Join(root, "a/b.txt"), ""},
		{"absolute inside", filepath.Join(root, "a/b.txt"), filepath.Join(root, "a/b.txt"), ""},
		{"missing file", "a/missing.txt", filepath.Join(root, "a/missing.txt"), ""},
		{"missing parents", "x/y/z.txt", filepath.Join(root, "x/y/z.txt"), ""},
		{"link inside", "in/b.txt", filepath.Join(root, "a/b.txt"), ""},
		{"missing under link inside", "in/new/c.txt", filepath.Join(root, "a/new/c.txt"), ""},
		{"dangling link inside", "dangle-in", filepath.Join(root, "a/new"), ""},
		{"file as parent", "a/b.txt/c", filepath.Join(root, "a/b.txt/c"), ""},
		{"dotdot escape", "../outside/secret.txt", filepath.Join(outside, "secret.txt"), tool.CodeOutsideWorkspace},
		{"dotdot to parent", "..", filepath.Dir(root), tool.CodeOutsideWorkspace},
		{"absolute outside", "/etc/passwd", "/etc/passwd", tool.CodeOutsideWorkspace},
		{"link out", "out/secret.txt", filepath.Join(outside, "secret.txt"), tool.CodeOutsideWorkspace},
		{"missing under link out", "out/new/x.txt", filepath.Join(outside, "new/x.txt"), tool.CodeOutsideWorkspace},
		{"dangling link out", "dangle", filepath.Join(outside, "new"), tool.CodeOutsideWorkspace},
		{"sibling with root prefix", root + "-evil/x", root + "-evil/x", tool.CodeOutsideWorkspace},
		{"symlink loop", "loop", "", tool.CodeBadArgs},
		{"nul byte", "a\x00b", "", tool.CodeBadArgs},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := w.Resolve(tt.in)
			if tt.code == "" {
				if err != nil {
					t.Fatalf("Resolve(%q) error: %v", tt.in, err)
				}
			} else {
				var te *tool.ToolError
				if !errors.As(err, &te) || te.Code != tt.code {
					t.Fatalf("Resolve(%q) = %q, %v; want code %s", tt.in, got, err, tt.code)
				}
				if te.Remedy == "" {
					t.Errorf("error %v has no remedy", te)
				}
				if tt.code == tool.CodeOutsideWorkspace && !errors.Is(err, workspace.ErrOutside) {
					t.Errorf("error %v does not wrap ErrOutside", err)
				}
			}
			if tt.want != "" && got != tt.want {
				t.Errorf("Resolve(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestInsideRel(t *testing.T) {
	w, root, _ := setup(t)
	tests := []struct {
		abs    string
		inside bool
		rel    string
	}{
		{root, true, "."},
		{filepath.Join(root, "a", "b.txt"), true, "a/b.txt"},
		{root + "x", false, root + "x"},
		{filepath.Dir(root), false, filepath.Dir(root)},
	}
	for _, tt := range tests {
		if got := w.Inside(tt.abs); got != tt.inside {
			t.Errorf("Inside(%q) = %v, want %v", tt.abs, got, tt.inside)
		}
		if got := w.Rel(tt.abs); got != tt.rel {
			t.Errorf("Rel(%q) = %q, want %q", tt.abs, got, tt.rel)
		}
	}
}

func TestNew(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	must(t, os.WriteFile(file, nil, 0o644))
	link := filepath.Join(dir, "link")
	must(t, os.Symlink(dir, link))
	for _, bad := range []string{file, filepath.Join(dir, "missing")} {
		if _, err := workspace.New(bad); err == nil {
			t.Errorf("New(%q) succeeded, want error", bad)
		}
	}
	w, err := workspace.New(link)
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	if w.Root() != real {
		t.Errorf("Root() = %q, want symlink-free %q", w.Root(), real)
	}
}
