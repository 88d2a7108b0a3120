package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/godwit/godwit/tool"
)

// ErrOutside is wrapped by the error Resolve returns for a path that
// leaves the workspace, so callers (the safety layer) can test for it with
// errors.Is and decide to ask instead of refusing.
var ErrOutside = errors.New("workspace: path is outside the workspace")

// maxLinks bounds symlink hops while resolving a path that does not exist
// yet, as the kernel's ELOOP limit does.
const maxLinks = 40

// Workspace is a root folder. The zero value is not usable; call New. A
// Workspace is immutable and safe for concurrent use.
type Workspace struct {
	root string   // absolute, cleaned, symlinks resolved
	r    *os.Root // root, for every file operation (root.go)
	dir  *os.File // root too, for openat2 (open_linux.go)
}

// New returns the workspace rooted at root, which must be an existing
// directory. The root is made absolute and its symlinks resolved, so
// Inside compares real paths, and opened as an os.Root, which Close
// releases.
func New(root string) (*Workspace, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace: root: %w", err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("workspace: root: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("workspace: root %s is not a directory", real)
	}
	r, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("workspace: root: %w", err)
	}
	dir, err := r.Open(".")
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("workspace: root: %w", err)
	}
	return &Workspace{root: real, r: r, dir: dir}, nil
}

// Close releases the root's descriptors; the Workspace is unusable after.
func (w *Workspace) Close() error { return errors.Join(w.dir.Close(), w.r.Close()) }

// Root returns the absolute, symlink-free root.
func (w *Workspace) Root() string { return w.root }

// Resolve turns p (relative to the root; "" is the root) into an
// absolute, cleaned path with every symlink resolved: the name the policy
// judges and the file operations take. For a path that does not exist
// yet the deepest existing parent is resolved and a dangling symlink is
// followed, so a write through it cannot land outside unnoticed. A path
// outside the root is returned with a *tool.ToolError wrapping
// ErrOutside, so a caller may ask the user instead of refusing.
func (w *Workspace) Resolve(p string) (string, error) {
	if strings.ContainsRune(p, 0) {
		return "", tool.Errorf(tool.CodeBadArgs, "Send a plain file path.", "path contains a NUL byte")
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(w.root, abs)
	}
	abs = filepath.Clean(abs)
	real, err := resolve(abs, 0)
	if err != nil {
		return "", tool.Errorf(tool.CodeBadArgs, "Check the path with file_list.", "cannot resolve %s: %v", p, err)
	}
	if !w.Inside(real) {
		msg := fmt.Sprintf("%s resolves to %s, outside the workspace %s", p, real, w.root)
		return real, &tool.ToolError{Code: tool.CodeOutsideWorkspace, Message: msg,
			Remedy: "Use a path inside the workspace; relative paths start at its root.", Err: ErrOutside}
	}
	return real, nil
}

// resolve is filepath.EvalSymlinks that also works for paths that do not
// exist: it resolves the deepest existing parent and follows a dangling
// symlink in the last element. abs must be absolute and clean.
func resolve(abs string, hops int) (string, error) {
	if hops > maxLinks {
		return "", fmt.Errorf("too many levels of symbolic links at %s", abs)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err == nil {
		return real, nil
	}
	// abs (or a parent) is missing, dangling, or unreadable: resolve what
	// exists and append the rest; opening the result reports the real error.
	if fi, lerr := os.Lstat(abs); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
		target, rerr := os.Readlink(abs)
		if rerr != nil {
			return "", rerr
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(abs), target)
		}
		return resolve(filepath.Clean(target), hops+1)
	}
	parent := filepath.Dir(abs)
	if parent == abs {
		return abs, nil
	}
	rp, err := resolve(parent, hops)
	if err != nil {
		return "", err
	}
	return filepath.Join(rp, filepath.Base(abs)), nil
}

// Inside reports whether abs (absolute and clean, as Resolve returns) is
// the root or below it.
func (w *Workspace) Inside(abs string) bool {
	if abs == w.root {
		return true
	}
	prefix := w.root
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	return strings.HasPrefix(abs, prefix)
}

// Rel returns abs relative to the root with forward slashes ("." for the
// root), the form the model reads. A path outside the root is returned
// unchanged.
func (w *Workspace) Rel(abs string) string {
	if !w.Inside(abs) {
		return abs
	}
	rel, err := filepath.Rel(w.root, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(rel)
}
