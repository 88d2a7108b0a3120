package workspace

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/godwit/godwit/tool"
)

// ErrSecret is wrapped by Load's error for a secrets file (tool.IsSecret),
// named so or reached through a link.
var ErrSecret = errors.New("workspace: a secrets file")

// Load reads, for a request to the model, the file rel under dir (a
// repository's AGENTS.md, a skill, .mcp.json), at most limit bytes. The
// repository chose what is there, so the file is read as the file tools
// read: through an os.Root of dir, after Resolve. A link out of dir
// fails with an error wrapping ErrOutside, a secrets file (by its name
// or by the name of what a link inside points to) with one wrapping
// ErrSecret, and a folder or device with an error; the caller leaves
// the file out and tells the user why. A missing file's error wraps
// fs.ErrNotExist.
func Load(dir, rel string, limit int64) ([]byte, error) {
	w, err := New(dir)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	return w.Load(rel, limit)
}

// Load is the package's Load for a workspace already open.
func (w *Workspace) Load(rel string, limit int64) ([]byte, error) {
	abs, err := w.Resolve(rel)
	if err != nil {
		return nil, err
	}
	if tool.IsSecret(rel) || tool.IsSecret(abs) {
		return nil, fmt.Errorf("%s is a secrets file (%s): %w", rel, filepath.Base(abs), ErrSecret)
	}
	f, err := w.Open(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s)", rel, fi.Mode().Type())
	}
	return io.ReadAll(io.LimitReader(f, limit))
}
