package snapshot_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/snapshot"
	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/store/storetest"
	tfs "github.com/godwit/godwit/internal/tool/fs"
	"github.com/godwit/godwit/internal/tool/shell"
	"github.com/godwit/godwit/internal/tool/workspace"
	"github.com/godwit/godwit/internal/window"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/fake"
	"github.com/godwit/godwit/tool"
)

// world is a workspace with a real store, the real file and shell tools
// wired to a Recorder and a Watcher, and a scripted model.
type world struct {
	t    *testing.T
	root string
	st   *store.Store
	rt   *agent.Runtime
	sink agent.Sink
	fake *fake.Provider
	rec  *snapshot.Recorder
}

func newWorld(t *testing.T, files map[string]string) *world {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		write(t, filepath.Join(root, name), body)
	}
	st := storetest.Open(t)
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	w := &world{t: t, root: root, st: st, fake: fake.New(), rec: snapshot.NewRecorder(st, snapshot.Options{Workspace: ws})}
	sh := shell.New(shell.Options{Workdir: root})
	t.Cleanup(func() { sh.Close() })
	tools := append(tfs.Tools(ws, tfs.Options{BeforeWrite: w.rec.BeforeWrite}),
		snapshot.WatchTool(sh, snapshot.NewWatcher(root, snapshot.WatchOptions{})))
	reg, err := tool.NewRegistry(tools...)
	if err != nil {
		t.Fatal(err)
	}
	// The wiring: the turn.started event tells the Recorder which turn
	// is running.
	w.sink = agent.SinkFunc(func(e agent.Event) {
		if e.Type == agent.EventTurnStarted {
			w.rec.SetTurn(e.SessionID, e.Turn)
		}
	})
	w.rt, err = agent.New(agent.Config{
		Provider:  w.fake,
		Model:     "scripted",
		Assembler: window.New(window.Options{System: "sys", Tools: reg.Specs()}),
		Runner:    tool.NewRunner(reg, tool.RunnerOptions{Approver: tool.AllowAll{}}),
		Store:     st,
		Workspace: root,
	})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// turn runs one turn whose model makes the calls (each batch in one
// response, run in parallel), then answers "done".
func (w *world) turn(session string, batches ...[]llm.ToolCall) string {
	w.t.Helper()
	for _, b := range batches {
		w.fake.Add(fake.Step{ToolCalls: b})
	}
	w.fake.Add(fake.Step{Text: "done"})
	res, err := w.rt.Run(context.Background(), agent.RunInput{SessionID: session, Prompt: "work", NoChecks: true, Sink: w.sink})
	if err != nil {
		w.t.Fatal(err)
	}
	calls2, _ := w.st.ToolCalls(context.Background(), res.SessionID)
	for _, c := range calls2 {
		if c.IsError {
			w.t.Fatalf("call %s %s failed: %s", c.Name, c.Args, c.Output)
		}
	}
	return res.SessionID
}

// tree hashes every file of the workspace but skip.
func (w *world) tree(skip ...string) map[string]string {
	w.t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(w.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == w.root {
			return err
		}
		rel, _ := filepath.Rel(w.root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() { // folders count too: undo leaves none it made
			if !slices.ContainsFunc(skip, func(s string) bool { return rel == s || strings.HasPrefix(rel, s+"/") }) {
				out[rel+"/"] = "folder"
			}
			return nil
		}
		for _, s := range skip {
			if rel == s || strings.HasPrefix(rel, s+"/") {
				return nil
			}
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		out[rel] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		w.t.Fatal(err)
	}
	return out
}

func sameTree(t *testing.T, label string, got, want map[string]string) {
	t.Helper()
	for p, h := range want {
		if got[p] != h {
			t.Errorf("%s: %s differs (hash %s, want %s)", label, p, got[p], h)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s: %s should not exist", label, p)
		}
	}
}

func call(id, name string, args map[string]any) llm.ToolCall { return fake.Call(id, name, args) }

func TestUndoRoundTrip(t *testing.T) {
	t.Parallel()
	w := newWorld(t, map[string]string{
		"a.txt":      "alpha\r\nno final newline",
		"b.go":       "package b\n\nfunc B() int { return 1 }\n",
		"docs/c.md":  "# C\n\ntext\n",
		"keep.txt":   "untouched\n",
		"bin.dat":    "\x00\x01\x02binary\xff",
		".gitignore": "",
	})
	ctx := context.Background()
	before1 := w.tree()

	// Turn 1: overwrite a file, create one, and a binary file.
	sess := w.turn("", []llm.ToolCall{
		call("1", "file_write", map[string]any{"path": "a.txt", "content": "alpha v2\n"}),
		call("2", "file_write", map[string]any{"path": "new1.txt", "content": "created in turn 1\n"}),
		call("3", "file_write", map[string]any{"path": "bin.dat", "content": "now text\n"}),
	})
	before2 := w.tree()

	// Turn 2: edit, create in new folders, and change a file through the
	// shell (watched, not snapshotted).
	w.turn(sess, []llm.ToolCall{
		call("4", "file_edit", map[string]any{"path": "b.go", "old_text": "return 1", "new_text": "return 2"}),
		call("5", "file_write", map[string]any{"path": "new2/deep/x.txt", "content": "x\n"}),
		call("6", "shell_exec", map[string]any{"command": "echo from-shell > shell.txt && echo more >> keep.txt"}),
	})
	before3 := w.tree()

	// Turn 3: edit a file written in turn 1, then write it again in a
	// later step of the same turn; rewrite docs; create.
	w.turn(sess, []llm.ToolCall{
		call("7", "file_edit", map[string]any{"path": "a.txt", "old_text": "v2", "new_text": "v3"}),
		call("9", "file_write", map[string]any{"path": "docs/c.md", "content": "# C v2\n"}),
		call("10", "file_write", map[string]any{"path": "new3.txt", "content": "3\n"}),
	}, []llm.ToolCall{
		call("8", "file_write", map[string]any{"path": "a.txt", "content": "alpha v4\n"}),
	})

	latest, err := snapshot.LatestChange(ctx, w.st, sess)
	if err != nil || latest != 3 {
		t.Fatalf("LatestChange = %d, %v", latest, err)
	}

	rep, err := snapshot.Undo(ctx, w.st, sess, 3)
	if err != nil {
		t.Fatal(err)
	}
	sameTree(t, "undo turn 3", w.tree(), before3)
	if len(rep.Restored) != 2 || len(rep.Removed) != 1 || len(rep.Failed) != 0 || len(rep.ShellChanged) != 0 {
		t.Errorf("report %+v", rep)
	}

	// Undo from turn 2: the shell's changes are listed, not rolled back.
	rep, err = snapshot.Undo(ctx, w.st, sess, 2)
	if err != nil {
		t.Fatal(err)
	}
	got := w.tree()
	if got["shell.txt"] == "" {
		t.Error("undo must not roll back what the shell did")
	}
	want := map[string]string{}
	for p, h := range before2 {
		want[p] = h
	}
	want["shell.txt"], want["keep.txt"] = got["shell.txt"], got["keep.txt"]
	sameTree(t, "undo turn 2", got, want)
	wantShell := []string{filepath.Join(w.root, "keep.txt"), filepath.Join(w.root, "shell.txt")}
	if strings.Join(rep.ShellChanged, ",") != strings.Join(wantShell, ",") {
		t.Errorf("ShellChanged = %q, want %q", rep.ShellChanged, wantShell)
	}

	// Undo from turn 1: every byte as before the session, but the shell's.
	if _, err := snapshot.Undo(ctx, w.st, sess, 1); err != nil {
		t.Fatal(err)
	}
	got = w.tree()
	want = map[string]string{}
	for p, h := range before1 {
		want[p] = h
	}
	want["shell.txt"], want["keep.txt"] = got["shell.txt"], got["keep.txt"]
	sameTree(t, "undo turn 1", got, want)

	// Undo is idempotent.
	rep, err = snapshot.Undo(ctx, w.st, sess, 1)
	if err != nil || len(rep.Restored)+len(rep.Removed) != 0 {
		t.Errorf("second undo: %+v %v", rep, err)
	}
}

func TestRecorder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	st := storetest.Open(t)
	sess := store.Session{ID: store.NewID(), Workspace: root}
	if err := st.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	if _, err := st.StartTurn(ctx, sess.ID, "p", 1); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	rec := snapshot.NewRecorder(st, snapshot.Options{Workspace: ws, MaxBytes: 10})
	f := filepath.Join(root, "f.txt")
	if err := rec.BeforeWrite(ctx, f); err != snapshot.ErrNoTurn {
		t.Errorf("no turn: err = %v", err)
	}
	rec.SetTurn(sess.ID, 1)
	write(t, f, "one")
	if err := rec.BeforeWrite(ctx, f); err != nil {
		t.Fatal(err)
	}
	write(t, f, "two")
	if err := rec.BeforeWrite(ctx, f); err != nil { // same turn: kept once
		t.Fatal(err)
	}
	write(t, filepath.Join(root, "big"), "more than ten bytes")
	var te *tool.ToolError
	if err := rec.BeforeWrite(ctx, filepath.Join(root, "big")); !asToolError(err, &te) || te.Code != tool.CodeTooLarge {
		t.Errorf("big file: err = %v", err)
	}
	if err := rec.BeforeWrite(ctx, filepath.Join(root, "absent")); err != nil {
		t.Fatal(err)
	}
	rec.SetTurn(sess.ID, 2)
	if err := rec.BeforeWrite(ctx, f); err == nil || !strings.Contains(err.Error(), "no turn 2") {
		t.Errorf("unknown turn: err = %v", err)
	}
	snaps, err := st.Snapshots(ctx, sess.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(snaps) != 2 || string(snaps[0].Content) != "one" || !snaps[0].Existed || snaps[1].Existed {
		t.Errorf("snapshots %+v", snaps)
	}
}

func asToolError(err error, te **tool.ToolError) bool {
	e, ok := err.(*tool.ToolError)
	*te = e
	return ok
}

// The model still believes its changes are there after an undo: the
// session's next turn tells it, once, before the user's words, and the
// note stays out of the Decisions ledger (which holds only what the user
// wrote).
func TestUndoTellsTheModel(t *testing.T) {
	t.Parallel()
	w := newWorld(t, map[string]string{"a.txt": "one\n"})
	ctx := context.Background()
	sess := w.turn("", []llm.ToolCall{
		call("1", "file_write", map[string]any{"path": "a.txt", "content": "two\n"}),
		call("2", "file_write", map[string]any{"path": "sub/new.txt", "content": "new\n"}),
	})
	rep, err := snapshot.Undo(ctx, w.st, sess, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := "The user undid the file changes of turn 1 and later: your edits to those files are gone. Restored to before: a.txt. Deleted (you had created them): sub/new.txt. Read a file again before you edit it."
	if got := rep.ForModel(w.root); got != want {
		t.Errorf("ForModel =\n%s\nwant\n%s", got, want)
	}

	userTexts := func() []string {
		reqs := w.fake.Requests()
		msgs := reqs[len(reqs)-1].Messages
		for i := len(msgs) - 1; i >= 0; i-- {
			if msgs[i].Role == llm.RoleUser {
				var out []string
				for _, p := range msgs[i].Parts {
					out = append(out, p.Text)
				}
				return out
			}
		}
		t.Fatal("no user message")
		return nil
	}
	// The request of the next turn's only step ends with its user message.
	w.turn(sess)
	got := userTexts()
	if len(got) != 2 || got[0] != "[godwit note] "+want || got[1] != "work" {
		t.Errorf("next turn's user message = %q, want the note then the prompt", got)
	}
	w.turn(sess)
	if got := userTexts(); len(got) != 1 || got[0] != "work" {
		t.Errorf("the turn after = %q, want the prompt alone (the note is told once)", got)
	}
	ds, err := w.st.Decisions(ctx, sess)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if strings.Contains(d.Text, "undid") {
			t.Errorf("ledger entry D%d holds the note: %q", d.Seq, d.Text)
		}
	}

	// An undo that changes nothing tells nothing.
	if _, err := snapshot.Undo(ctx, w.st, sess, 1); err != nil {
		t.Fatal(err)
	}
	w.turn(sess)
	if got := userTexts(); len(got) != 1 {
		t.Errorf("after an empty undo = %q, want the prompt alone", got)
	}
}
