//go:build unix

package fs_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/godwit/godwit/internal/tool/fs"
	"github.com/godwit/godwit/tool"
)

// A FIFO is refused, not opened: opening it would block until a writer
// came.
func TestFIFORefused(t *testing.T) {
	ws, root := newWS(t, map[string]string{"dir/a.txt": "needle\n"})
	if err := syscall.Mkfifo(filepath.Join(root, "dir", "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tl   tool.Tool
		args map[string]any
	}{
		{fs.NewRead(ws), map[string]any{"path": "dir/fifo"}},
		{fs.NewEdit(ws, fs.Options{}), map[string]any{"path": "dir/fifo", "old_text": "a", "new_text": "b"}},
		{fs.NewGrep(ws), map[string]any{"pattern": "x", "path": "dir/fifo"}},
	} {
		_, te := call(t, tc.tl, tc.args)
		if te == nil || te.Code != tool.CodeBadArgs || !strings.Contains(te.Message, "not a regular file") {
			t.Errorf("%s: %v, want BAD_ARGS not a regular file", tc.tl.Name(), te)
		}
	}
	// A folder search skips it.
	res := mustCall(t, fs.NewGrep(ws), map[string]any{"pattern": "needle"})
	if res.Content != "dir/a.txt\n1:needle\n" {
		t.Errorf("grep: %q", res.Content)
	}
}

// TestRunWorksOnTheJudgedPath: between the Access the approver judged
// and Run, a command points the link docs/x.md elsewhere (a secret the
// rules deny, a file that asks in every mode). Run works on the path
// judged, as the runner passes it (tool.WithAccess).
func TestRunWorksOnTheJudgedPath(t *testing.T) {
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"file_read", map[string]any{"path": "docs/x.md"}},
		{"grep", map[string]any{"pattern": "line|SECRET", "path": "docs/x.md"}},
		{"file_write", map[string]any{"path": "docs/x.md", "content": "written\n"}},
		{"file_edit", map[string]any{"path": "docs/x.md", "old_text": "line", "new_text": "edited"}},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			ws, root := newWS(t, map[string]string{"docs/guide.md": "line\n", "secrets/db.txt": "SECRET line\n"})
			x := filepath.Join(root, "docs", "x.md")
			if err := os.Symlink("guide.md", x); err != nil {
				t.Fatal(err)
			}
			tl := byName(t, ws, fs.Options{}, tc.tool)
			raw, _ := jsonArgs(tc.args)
			acc, err := tl.(tool.Accessor).Access(raw)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(x); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("../secrets/db.txt", x); err != nil {
				t.Fatal(err)
			}
			res, err := tl.Run(tool.WithAccess(context.Background(), acc), raw)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(res.Content, "SECRET") {
				t.Errorf("Run showed the file swapped in: %q", res.Content)
			}
			if got := readFile(t, filepath.Join(root, "secrets", "db.txt")); got != "SECRET line\n" {
				t.Errorf("Run wrote the file swapped in: %q", got)
			}
		})
	}
}

// TestGrepPassesOverHardLinks: a file with another hard link is the same
// file under a name the walk did not judge (.env, a path a deny rule
// names): grep passes over it and says so, as over a secrets file.
func TestGrepPassesOverHardLinks(t *testing.T) {
	ws, root := newWS(t, map[string]string{".env": "KEY=hunter2\n", "docs/a.md": "KEY is documented\n"})
	if err := os.Link(filepath.Join(root, ".env"), filepath.Join(root, "docs", "notes.txt")); err != nil {
		t.Fatal(err)
	}
	g := byName(t, ws, fs.Options{}, "grep")
	for _, path := range []string{".", "docs", "docs/notes.txt"} {
		res := mustCall(t, g, map[string]any{"pattern": "KEY", "path": path})
		if strings.Contains(res.Content, "hunter2") || !strings.Contains(res.Content, "notes.txt") {
			t.Errorf("grep %s: %q", path, res.Content)
		}
	}
}

// TestReadHoldsTheFileToItsJudgement: Access says whether the file had
// another hard link, and the policy judges that; a link a command made
// since is refused, one Access saw reads (pnpm's node_modules).
func TestReadHoldsTheFileToItsJudgement(t *testing.T) {
	ws, root := newWS(t, map[string]string{"secrets/db.txt": "SECRET\n", "store/x.js": "LINKED\n"})
	r := fs.NewRead(ws)
	if err := os.Link(filepath.Join(root, "store", "x.js"), filepath.Join(root, "x.js")); err != nil {
		t.Fatal(err)
	}
	raw := json.RawMessage(`{"path":"x.js"}`)
	acc, err := r.Access(raw)
	if err != nil || !acc.Paths[0].Linked {
		t.Fatalf("Access of a hard link: %+v, %v", acc, err)
	}
	if res, err := r.Run(tool.WithAccess(context.Background(), acc), raw); err != nil || !strings.Contains(res.Content, "LINKED") {
		t.Errorf("a hard link Access saw: %q, %v", res.Content, err)
	}
	// Judged missing, then made another name of secrets/db.txt.
	raw = json.RawMessage(`{"path":"docs.txt"}`)
	acc, _ = r.Access(raw)
	if err := os.Link(filepath.Join(root, "secrets", "db.txt"), filepath.Join(root, "docs.txt")); err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(tool.WithAccess(context.Background(), acc), raw)
	if te := tool.AsToolError(err); te == nil || te.Code != tool.CodeDenied || strings.Contains(res.Content, "SECRET") {
		t.Errorf("a hard link made since Access: %q, %v", res.Content, err)
	}
}
