package cli

import (
	"context"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/wiring"
)

// `godwit send last` means this workspace's last session, as -c and
// undo last do: a session busy in another workspace must not get it.
func TestSendLastIsThisWorkspaces(t *testing.T) {
	ctx := context.Background()
	home, here, there := t.TempDir(), t.TempDir(), t.TempDir()
	st, err := store.Open(ctx, wiring.DBPath(home))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	mine := store.Session{ID: store.NewID(), Workspace: workspaceRoot(here), CreatedAt: now.Add(-time.Hour)}
	theirs := store.Session{ID: store.NewID(), Workspace: workspaceRoot(there), CreatedAt: now}
	for _, s := range []store.Session{mine, theirs} {
		if err := st.CreateSession(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	ios, _, _, _ := fakeStreams()
	if err := runSend(ctx, &SendOptions{IO: ios, Home: home, Workspace: here, Session: "last", Text: "rebase on main"}); err != nil {
		t.Fatal(err)
	}
	st, err = store.Open(ctx, wiring.DBPath(home))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	m, err := st.MailByID(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if m.To != mine.ID {
		t.Errorf("send last went to %s, want this workspace's %s (the other is %s)", m.To, mine.ID, theirs.ID)
	}
}
