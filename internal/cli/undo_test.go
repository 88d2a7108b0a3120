package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/store/storetest"
	"github.com/godwit/godwit/internal/wiring"
)

// undoSession records a session in which turn 1 changed a.txt and
// created b.txt, and turn 2 ran a shell command that changed c.txt.
func undoSession(t *testing.T, home, ws string) string {
	t.Helper()
	ctx := context.Background()
	st := storetest.OpenAt(t, wiring.DBPath(home))
	sess := store.Session{ID: store.NewID(), Workspace: ws}
	if err := st.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	t1, err := st.StartTurn(ctx, sess.ID, "edit", 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []store.FileSnapshot{
		{SessionID: sess.ID, TurnID: t1.ID, Path: filepath.Join(ws, "a.txt"), Existed: true, Content: []byte("old\n")},
		{SessionID: sess.ID, TurnID: t1.ID, Path: filepath.Join(ws, "b.txt")},
	} {
		if _, err := st.RecordSnapshot(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	t1.Status = store.TurnDone
	if err := st.FinishTurn(ctx, t1); err != nil {
		t.Fatal(err)
	}
	t2, err := st.StartTurn(ctx, sess.ID, "shell", 1)
	if err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]string{"command": "echo x > c.txt"})
	if _, err := st.RecordToolCall(ctx, store.ToolCall{SessionID: sess.ID, TurnID: t2.ID, Name: "shell_exec", Args: args, Changed: []string{"c.txt"}}); err != nil {
		t.Fatal(err)
	}
	t2.Status = store.TurnDone
	if err := st.FinishTurn(ctx, t2); err != nil {
		t.Fatal(err)
	}
	return sess.ID
}

func TestUndoCommand(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	id := undoSession(t, home, ws)
	for name, body := range map[string]string{"a.txt": "new\n", "b.txt": "created\n", "c.txt": "x\n"} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ios, _, out, errOut := fakeStreams()

	// Without --turn: the last turn that changed files, the shell's.
	if err := runUndo(context.Background(), &UndoOptions{IO: ios, Home: home, Workdir: ws, Session: "last"}); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, "undo turn 2 of session "+id) ||
		!strings.Contains(got, "the file tools changed no files") || !strings.Contains(got, "Not rolled back") || !strings.Contains(got, "  c.txt\n") {
		t.Errorf("output:\n%s", got)
	}

	out.Reset()
	if err := runUndo(context.Background(), &UndoOptions{IO: ios, Home: home, Session: id, Turn: 1}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{"undo turns 1-2", "restored   a.txt", "removed    b.txt (created by the agent)", "c.txt"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "old\n" {
		t.Errorf("a.txt = %q", b)
	}
	if _, err := os.Stat(filepath.Join(ws, "b.txt")); err == nil {
		t.Error("b.txt still exists")
	}

	err := runUndo(context.Background(), &UndoOptions{IO: ios, Home: home, Session: id, Turn: 9})
	if err == nil || !strings.Contains(err.Error(), "between 1 and 2") {
		t.Errorf("turn 9: err = %v", err)
	}
	if errOut.Len() != 0 {
		t.Errorf("stderr: %s", errOut)
	}
}
