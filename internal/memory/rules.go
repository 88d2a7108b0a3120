package memory

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	wsroot "github.com/godwit/godwit/internal/tool/workspace"
)

// MaxRulesBytes caps the project rules in all, the user-level file
// included, as Codex caps project docs (project_doc_max_bytes).
const MaxRulesBytes = 32 << 10

// ruleNames are the names looked for in each folder, first present and
// non-empty wins: Codex's override, AGENTS.md, then Claude Code's name.
var ruleNames = []string{"AGENTS.override.md", "AGENTS.md", "CLAUDE.md"}

// File is one file read into the prefix.
type File struct {
	// Scope is "user" or "project".
	Scope string
	// Path is absolute.
	Path string
	// Label is how the prompt and :context name it: "$GODWIT_HOME/AGENTS.md",
	// "pkg/api/AGENTS.md" (relative to the repository root).
	Label string
	// Text is what went into the prompt (after any cut).
	Text string
	// Size is the file's size on disk; larger than len(Text) when cut.
	Size int
	Cut  bool
	// Hash is the SHA-256 of the file's content, hex.
	Hash string
}

// Loaded is the project rules: their text and the files it came from.
type Loaded struct {
	Text  string
	Files []File
}

// Rules reads the project rules for a workspace: the user-level
// home/AGENTS.md (AGENTS.override.md when present) first, then from the
// repository root (the nearest ancestor of workspace holding .git; the
// workspace alone when there is none) down to the workspace, one file per
// folder: AGENTS.override.md, else AGENTS.md, else CLAUDE.md, empty files
// skipped. Deeper files come later, so they read last and win. The whole
// is at most MaxRulesBytes; the file that passes it is cut with a note and
// later ones are left out. An unreadable file is reported in the error and
// skipped; the rest still loads. home may be empty.
func Rules(workspace, home string) (Loaded, error) {
	ws := realPath(workspace)
	var files []File
	var errs []error
	if home != "" {
		if f, ok, err := firstFile(nil, home, []string{"AGENTS.override.md", "AGENTS.md"}); err != nil {
			errs = append(errs, err)
		} else if ok {
			f.Scope, f.Label = "user", "$GODWIT_HOME/"+filepath.Base(f.Path)
			files = append(files, f)
		}
	}
	root := RepoRoot(ws)
	repo, err := wsroot.New(root)
	if err != nil {
		return compose(files, MaxRulesBytes), errors.Join(append(errs, fmt.Errorf("memory: rules: %w", err))...)
	}
	defer repo.Close()
	for _, dir := range pathDown(root, ws) {
		f, ok, err := firstFile(repo, dir, ruleNames)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !ok {
			continue
		}
		rel, _ := filepath.Rel(root, f.Path)
		f.Scope, f.Label = "project", filepath.ToSlash(rel)
		files = append(files, f)
	}
	return compose(files, MaxRulesBytes), errors.Join(errs...)
}

// compose joins files under headers, root first, within max bytes.
func compose(files []File, max int) Loaded {
	var b strings.Builder
	var out Loaded
	for i, f := range files {
		head := "[from " + f.Label + "]\n"
		if b.Len() > 0 {
			head = "\n\n" + head
		}
		if b.Len()+len(head)+len(f.Text) <= max {
			b.WriteString(head + f.Text)
			out.Files = append(out.Files, f)
			continue
		}
		rest := len(files) - i - 1
		note := fmt.Sprintf("\n[godwit: rules cut at %d KiB: the rest of %s", max>>10, f.Label)
		if rest > 0 {
			note += fmt.Sprintf(" and %d more file(s) were not loaded", rest)
		} else {
			note += " was not loaded"
		}
		note += "; shorten the rules files]"
		room := max - b.Len() - len(head) - len(note)
		if room > 0 {
			f.Text = cutBytes(f.Text, room)
			f.Cut = true
			b.WriteString(head + f.Text)
			out.Files = append(out.Files, f)
		}
		b.WriteString(note)
		break
	}
	out.Text = b.String()
	return out
}

// firstFile reads the first of names in dir that is a file and not
// blank. A repository's files (repo set: dir is in it) are read through
// it (workspace.Load): one that is a link out of the repository or a
// secrets file is left out, and the error says why, for the user only.
// The user's own (repo nil) are read as they are.
func firstFile(repo *wsroot.Workspace, dir string, names []string) (File, bool, error) {
	for _, n := range names {
		p := filepath.Join(dir, n)
		data, size, err := readFile(repo, p)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.EISDIR) {
			continue
		}
		if errors.Is(err, wsroot.ErrOutside) || errors.Is(err, wsroot.ErrSecret) {
			return File{}, false, fmt.Errorf("memory: %w; left out of the prompt", err)
		}
		if err != nil {
			return File{}, false, fmt.Errorf("memory: read %s: %w (fix its permissions or remove it)", p, err)
		}
		text := strings.TrimSpace(strings.ToValidUTF8(string(data), "\uFFFD"))
		if text == "" {
			continue
		}
		return File{Path: p, Text: text, Size: int(size), Hash: hash(data)}, true, nil
	}
	return File{}, false, nil
}

// maxRead bounds what is read of one file: far more than any cap here, so
// a huge file costs no more than this.
const maxRead = 1 << 20

// realPath is p absolute with its links resolved, as a workspace root
// is, so that paths under it are relative to that root; p as it is when
// that fails.
func realPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return p
}

// readDir lists dir: through repo when set (dir is inside it; a link out
// of it is an error), else as it is.
func readDir(repo *wsroot.Workspace, dir string) ([]fs.DirEntry, error) {
	if repo == nil {
		return os.ReadDir(dir)
	}
	real, err := repo.Resolve(dir)
	if errors.Is(err, wsroot.ErrOutside) {
		return nil, fmt.Errorf("%s is a link out of %s (to %s); its skills are left out: %w", dir, repo.Root(), real, wsroot.ErrOutside)
	}
	if err != nil {
		return nil, err
	}
	return repo.ReadDir(real)
}

// readFile reads at most maxRead bytes of p, and its size: through repo
// when set (p is inside it), else as it is.
func readFile(repo *wsroot.Workspace, p string) ([]byte, int64, error) {
	if repo != nil {
		rel, err := filepath.Rel(repo.Root(), p)
		if err != nil {
			return nil, 0, err
		}
		return repo.Load(rel, maxRead)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	if fi.IsDir() {
		return nil, 0, &fs.PathError{Op: "read", Path: p, Err: syscall.EISDIR}
	}
	data, err := io.ReadAll(io.LimitReader(f, maxRead))
	return data, fi.Size(), err
}

// RepoRoot returns the nearest ancestor of dir (dir included) holding a
// .git file or folder, or dir itself when there is none.
func RepoRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return dir
		}
		d = up
	}
}

// pathDown lists the folders from root down to dir, both included; root
// must be dir or one of its ancestors.
func pathDown(root, dir string) []string {
	out := []string{dir}
	for d := dir; d != root && filepath.Dir(d) != d; {
		d = filepath.Dir(d)
		out = append(out, d)
	}
	slices.Reverse(out)
	return out
}

// hash is the SHA-256 of b, hex: a file's change key and the vector
// cache's key of a text.
func hash(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// cutBytes cuts s to at most n bytes, at a line end when one is near, else
// at a rune boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	if i := strings.LastIndexByte(s[:n], '\n'); i > n/2 {
		n = i
	}
	return s[:n]
}
