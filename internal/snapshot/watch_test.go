package snapshot_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/snapshot"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
)

func TestWatcher(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for name, body := range map[string]string{
		"a.txt": "a", "del.txt": "d", "src/b.go": "b", ".gitignore": "build/\n*.log\n", "sub/.gitignore": "gen/\n",
		".git/HEAD": "h", "node_modules/x/i.js": "i", "vendor/v.go": "v", "build/out": "o", "sub/gen/g": "g",
	} {
		write(t, filepath.Join(root, name), body)
	}
	w := snapshot.NewWatcher(root, snapshot.WatchOptions{})
	fp := w.Take()
	// Change everything, watched or not.
	later := time.Now().Add(2 * time.Second)
	write(t, filepath.Join(root, "a.txt"), "a2")
	os.Chtimes(filepath.Join(root, "a.txt"), later, later)
	os.Remove(filepath.Join(root, "del.txt"))
	write(t, filepath.Join(root, "src", "new.go"), "n")
	os.Chmod(filepath.Join(root, "src", "b.go"), 0o755)
	write(t, filepath.Join(root, "app.log"), "ignored files are still watched")
	for _, p := range []string{".git/HEAD", "node_modules/x/i.js", "vendor/v.go", "build/out", "sub/gen/g", "build/new"} {
		write(t, filepath.Join(root, p), "changed")
	}
	got := strings.Join(fp.Changed(), ",")
	if want := "a.txt,app.log,del.txt,src/b.go,src/new.go"; got != want {
		t.Errorf("Changed = %s, want %s", got, want)
	}
	if got := w.Take().Changed(); len(got) != 0 {
		t.Errorf("nothing changed, got %q", got)
	}
}

func TestWatcherBounded(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for i := range 10 {
		write(t, filepath.Join(root, fmt.Sprintf("f%02d", i)), "x")
	}
	w := snapshot.NewWatcher(root, snapshot.WatchOptions{MaxFiles: 5})
	fp := w.Take()
	later := time.Now().Add(2 * time.Second)
	os.Chtimes(filepath.Join(root, "f01"), later, later) // within the first five
	os.Chtimes(filepath.Join(root, "f08"), later, later) // beyond them
	write(t, filepath.Join(root, "a-new"), "x")          // shifts the window: not reported
	if got := strings.Join(fp.Changed(), ","); got != "f01" {
		t.Errorf("Changed = %q, want f01", got)
	}
}

func TestWatchTool(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	fakeShell := &tool.Func{
		ToolSpec: llm.ToolSpec{Name: "shell_exec"},
		Fn: func(_ context.Context, raw json.RawMessage) (tool.Result, error) {
			var a struct{ Command string }
			_ = json.Unmarshal(raw, &a)
			write(t, filepath.Join(root, a.Command), "x")
			return tool.Result{Content: "ok", Changed: []string{"declared"}}, nil
		},
		AccessFn: func(json.RawMessage) (tool.Access, error) { return tool.Access{Mutates: true, Exclusive: true}, nil },
	}
	wt := snapshot.WatchTool(fakeShell, snapshot.NewWatcher(root, snapshot.WatchOptions{}))
	if acc, err := wt.(tool.Accessor).Access(nil); err != nil || !acc.Exclusive {
		t.Errorf("Access not forwarded: %+v %v", acc, err)
	}
	tests := []struct {
		args string
		want string
	}{
		{`{"command":"one.txt"}`, "declared,one.txt"},
		{`{"action":"run","command":"two.txt"}`, "declared,two.txt"},
		{`{"command":"bg.txt","background":true}`, "declared"},
	}
	for _, tt := range tests {
		res, err := wt.Run(context.Background(), json.RawMessage(tt.args))
		if err != nil || strings.Join(res.Changed, ",") != tt.want {
			t.Errorf("%s: Changed = %q, %v; want %s", tt.args, res.Changed, err, tt.want)
		}
	}
}

// BenchmarkFingerprint measures one Take plus one Changed (what a shell
// command pays) on trees of 10k and 100k files in 100 files per folder.
//
//	go test ./internal/snapshot -run XXX -bench Fingerprint -benchtime 5x
func BenchmarkFingerprint(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			root := b.TempDir()
			for i := range n {
				dir := filepath.Join(root, fmt.Sprintf("d%04d", i/100))
				if i%100 == 0 {
					if err := os.MkdirAll(dir, 0o755); err != nil {
						b.Fatal(err)
					}
				}
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d", i%100)), nil, 0o644); err != nil {
					b.Fatal(err)
				}
			}
			w := snapshot.NewWatcher(root, snapshot.WatchOptions{MaxFiles: n + 1})
			b.ResetTimer()
			for b.Loop() {
				if got := w.Take().Changed(); len(got) != 0 {
					b.Fatal(got)
				}
			}
		})
	}
}

func TestSharedFilesGetACopyOfTheirOwn(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	root, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	write(t, filepath.Join(outside, "bashrc"), "safe\n")
	write(t, filepath.Join(root, "inner-a"), "a")
	if err := os.MkdirAll(filepath.Join(root, "dot"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]string{
		{filepath.Join(outside, "bashrc"), filepath.Join(root, "dot", "bashrc")}, // linked outside
		{filepath.Join(root, "inner-a"), filepath.Join(root, "inner-b")},         // both links inside
	} {
		if err := os.Link(l[0], l[1]); err != nil {
			t.Skipf("hard links: %v", err)
		}
	}
	os.Chmod(filepath.Join(root, "dot", "bashrc"), 0o600)
	w := snapshot.NewWatcher(root, snapshot.WatchOptions{DetachShared: true})
	fp := w.Take()
	if got := strings.Join(fp.Shared(), ","); got != "dot/bashrc" {
		t.Fatalf("Shared = %q, want dot/bashrc", got)
	}
	done, err := w.Detach(fp.Shared())
	if err != nil || len(done) != 1 {
		t.Fatalf("Detach = %v, %v", done, err)
	}
	// The workspace copy keeps content, mode and time, so nothing counts
	// as changed; a write to it no longer reaches the outside file.
	if got := fp.Changed(); len(got) != 0 {
		t.Errorf("detaching changed %q", got)
	}
	fi, _ := os.Stat(filepath.Join(root, "dot", "bashrc"))
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	f, _ := os.OpenFile(filepath.Join(root, "dot", "bashrc"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("pwned\n")
	f.Close()
	if b, _ := os.ReadFile(filepath.Join(outside, "bashrc")); string(b) != "safe\n" {
		t.Errorf("the outside file = %q", b)
	}
	if len(w.Take().Shared()) != 0 {
		t.Error("still shared")
	}
}

func TestWatchToolDetachesBeforeTheCommand(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	root := filepath.Join(base, "ws")
	write(t, filepath.Join(base, "outside"), "safe\n")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(base, "outside"), filepath.Join(root, "link")); err != nil {
		t.Skipf("hard links: %v", err)
	}
	appendTool := &tool.Func{ToolSpec: llm.ToolSpec{Name: "shell_exec"}, Fn: func(context.Context, json.RawMessage) (tool.Result, error) {
		f, err := os.OpenFile(filepath.Join(root, "link"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return tool.Result{}, err
		}
		defer f.Close()
		_, err = f.WriteString("pwned\n")
		return tool.Result{Content: "[exit 0]"}, err
	}}
	wt := snapshot.WatchTool(appendTool, snapshot.NewWatcher(root, snapshot.WatchOptions{DetachShared: true}))
	res, err := wt.Run(context.Background(), json.RawMessage(`{"command":"echo pwned >> link","background":true}`))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(base, "outside")); string(b) != "safe\n" {
		t.Errorf("the outside file = %q", b)
	}
	if !strings.Contains(res.Content, "link had a hard link outside the workspace") || res.Notice == "" {
		t.Errorf("result %+v", res)
	}
}
