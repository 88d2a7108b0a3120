package acp_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/godwit/godwit/internal/acp"
	"github.com/godwit/godwit/internal/mail"
	"github.com/godwit/godwit/internal/store"
)

// An editor's session answers mail between prompts: the message shows as
// a marked user message, the answer streams, and the sender gets it.
func TestSessionAnswersMail(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	ed := &editor{t: t, files: map[string]string{}}
	c := connect(t, ed, acp.Options{Build: builder(home, script()), Mode: acp.ModeAsk,
		OpenMail: func(ctx context.Context, st *store.Store, id string) (acp.Mailbox, error) {
			return mail.Open(ctx, st, id, mail.Options{Command: "acp", Poll: 5 * time.Millisecond})
		}})
	c.initialize(t, sdk.ClientCapabilities{})
	id := c.newSession(t, ws)
	c.prompt(t, id, "hello")
	ed.took()

	st, err := store.Open(context.Background(), filepath.Join(home, "godwit.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	p, err := mail.Post(ctx, st, mail.Program("ci"), string(id), "the build is red")
	if err != nil {
		t.Fatal(err)
	}
	m, err := mail.Await(ctx, st, p.Mail.ID, mail.AwaitOptions{FollowOptions: mail.FollowOptions{Poll: 5 * time.Millisecond}, Timeout: time.Minute}) // a hang guard
	if err != nil || m.Answer != "done." {
		t.Fatalf("await: %+v %v", m, err)
	}
	var user, agentText strings.Builder
	for _, u := range ed.took() {
		if u.Update.UserMessageChunk != nil && u.Update.UserMessageChunk.Content.Text != nil {
			user.WriteString(u.Update.UserMessageChunk.Content.Text.Text)
		}
		if u.Update.AgentMessageChunk != nil && u.Update.AgentMessageChunk.Content.Text != nil {
			agentText.WriteString(u.Update.AgentMessageChunk.Content.Text.Text)
		}
	}
	if !strings.Contains(user.String(), "✉ m1 from program ci (not your words):\nthe build is red") || !strings.Contains(agentText.String(), "done.") {
		t.Errorf("updates: user %q, agent %q", user.String(), agentText.String())
	}
}
