package memory

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	wsroot "github.com/godwit/godwit/internal/tool/workspace"
)

// MaxMemoryBytes caps each memory file in the prompt.
const MaxMemoryBytes = 16 << 10

// Memory file locations.
const (
	ProjectMemory = ".godwit/memory.md" // under the workspace
	UserMemory    = "memory.md"         // under GODWIT_HOME
)

// MemoryFiles reads the user's home/memory.md, then the project's
// workspace/.godwit/memory.md. Missing or blank files are absent; a file
// over MaxMemoryBytes is cut with a note. home may be empty.
func MemoryFiles(workspace, home string) ([]File, error) {
	var out []File
	var errs []error
	add := func(f File, ok bool, err error, scope, label string) {
		switch {
		case err != nil:
			errs = append(errs, err)
		case ok:
			f.Scope, f.Label = scope, label
			if len(f.Text) > MaxMemoryBytes {
				note := fmt.Sprintf("\n[godwit: %s cut at %d KiB; keep it shorter]", label, MaxMemoryBytes>>10)
				f.Text = cutBytes(f.Text, MaxMemoryBytes-len(note)) + note
				f.Cut = true
			}
			out = append(out, f)
		}
	}
	if home != "" {
		f, ok, err := firstFile(nil, home, []string{UserMemory})
		add(f, ok, err, "user", "$GODWIT_HOME/"+UserMemory)
	}
	repo, err := wsroot.New(workspace)
	if err != nil {
		return out, errors.Join(append(errs, fmt.Errorf("memory: %w", err))...)
	}
	defer repo.Close()
	f, ok, err := firstFile(repo, filepath.Join(workspace, ".godwit"), []string{"memory.md"})
	add(f, ok, err, "project", ProjectMemory)
	return out, errors.Join(errs...)
}

// Change is a prefix file that differs from what a segment was given.
type Change struct {
	File File
	// What is "edited", "new" or "removed".
	What string
}

// Diff compares the files a segment was given (prev) with the files now
// (cur), by path and content hash.
func Diff(prev, cur []File) []Change {
	was := map[string]File{}
	for _, f := range prev {
		was[f.Path] = f
	}
	var out []Change
	for _, f := range cur {
		p, ok := was[f.Path]
		switch {
		case !ok:
			out = append(out, Change{f, "new"})
		case p.Hash != f.Hash:
			out = append(out, Change{f, "edited"})
		}
		delete(was, f.Path)
	}
	for _, f := range prev {
		if _, gone := was[f.Path]; gone {
			out = append(out, Change{f, "removed"})
		}
	}
	return out
}

// Notice is the one-line message that tells the model, at the start of a
// segment, which files changed in the last one; "" when none did.
func Notice(changes []Change) string {
	if len(changes) == 0 {
		return ""
	}
	var parts []string
	for _, c := range changes {
		parts = append(parts, c.File.Label+" ("+c.What+")")
	}
	return "[godwit: changed during the last segment: " + strings.Join(parts, ", ") + "; the system prompt now holds the new text.]"
}

// chunks splits a memory file into entries for search: paragraphs, a
// heading starting a new entry, merged up to about chunkBytes each.
func chunks(text string) []string {
	const chunkBytes = 1500
	var out []string
	var cur strings.Builder
	flush := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
			out = append(out, s)
		}
		cur.Reset()
	}
	for _, para := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		para = strings.TrimSpace(para)
		if para == "" {
			continue
		}
		if strings.HasPrefix(para, "#") || cur.Len()+len(para) > chunkBytes {
			flush()
		}
		if cur.Len() > 0 {
			cur.WriteString("\n\n")
		}
		cur.WriteString(para)
	}
	flush()
	return out
}
