package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"syscall"

	"github.com/godwit/godwit/tool"
)

// ErrSecret is wrapped by Load's error for a secrets file (tool.IsSecret),
// named so or reached through a link, and for a file in a .git folder.
var ErrSecret = errors.New("workspace: a secrets file")

// Load reads, for a request to the model, the file rel under dir (a
// repository's AGENTS.md, a skill, .mcp.json), at most limit bytes, and
// its size, as the file tools read: after Resolve, through an os.Root of
// dir. A link out of dir or a file with another hard link fails wrapping
// ErrOutside; a secrets file (by its name or its link's target's) or a
// file in .git wrapping ErrSecret. A missing file's error wraps
// fs.ErrNotExist, a folder's syscall.EISDIR.
func Load(dir, rel string, limit int64) ([]byte, int64, error) {
	w, err := New(dir)
	if err != nil {
		return nil, 0, err
	}
	defer w.Close()
	return w.Load(rel, limit)
}

// inGitDir reports whether rel (slash-separated) lies in a .git folder:
// git's own data, never the repository's content, and its config may
// hold the user's tokens (a remote's URL, a CI checkout's extraheader).
func inGitDir(rel string) bool {
	return slices.Contains(strings.Split(rel, "/"), ".git")
}

// Load is the package's Load for a workspace already open.
func (w *Workspace) Load(rel string, limit int64) ([]byte, int64, error) {
	abs, err := w.Resolve(rel)
	if errors.Is(err, ErrOutside) {
		return nil, 0, fmt.Errorf("%s is a link out of %s (to %s): %w", rel, w.root, abs, ErrOutside)
	}
	if err != nil {
		return nil, 0, err
	}
	if tool.IsSecret(rel) || tool.IsSecret(abs) {
		return nil, 0, fmt.Errorf("%s is a secrets file (%s): %w", rel, w.Rel(abs), ErrSecret)
	}
	if inGitDir(w.Rel(abs)) {
		return nil, 0, fmt.Errorf("%s leads into git's own folder (%s), whose config may hold the user's credentials: %w", rel, w.Rel(abs), ErrSecret)
	}
	f, err := w.Open(abs)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return nil, 0, err
	case fi.IsDir():
		return nil, 0, &fs.PathError{Op: "read", Path: rel, Err: syscall.EISDIR}
	case !fi.Mode().IsRegular():
		return nil, 0, fmt.Errorf("%s is not a regular file (%s)", rel, fi.Mode().Type())
	case Links(fi) > 1:
		// A hard link is the same file under another name, which may be
		// outside (~/.netrc): no path says where.
		return nil, 0, fmt.Errorf("%s has %d hard links, and the others may be outside the workspace: %w", rel, Links(fi), ErrOutside)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit))
	return data, fi.Size(), err
}
