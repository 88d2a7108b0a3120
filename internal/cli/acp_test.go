package cli

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/godwit/godwit/internal/wiring"
	"github.com/godwit/godwit/llm/fake"
)

func TestACPFlags(t *testing.T) {
	tests := []struct {
		args      []string
		model     string
		mode      string
		wantUsage bool
	}{
		{nil, "", "ask", false},
		{[]string{"--model", "local/m", "--mode", "auto"}, "local/m", "auto", false},
		{[]string{"extra"}, "", "", true},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			ios, _, _, _ := fakeStreams()
			f := &Factory{IO: ios, Getenv: func(k string) string { return map[string]string{"GODWIT_HOME": "/h"}[k] }}
			var got *ACPOptions
			cmd := NewCmdACP(f, func(_ context.Context, o *ACPOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			err := cmd.Execute()
			if tt.wantUsage {
				if err == nil {
					t.Fatal("no error for bad usage")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Model != tt.model || got.Mode != tt.mode || got.Home != "/h" {
				t.Errorf("options = %+v", got)
			}
		})
	}
}

func TestACPBadMode(t *testing.T) {
	ios, _, _, _ := fakeStreams()
	f := &Factory{IO: ios, Getenv: func(string) string { return "" }, Logger: slog.New(slog.DiscardHandler)}
	err := runACP(context.Background(), &ACPOptions{engineOptions: engineOptions{IO: ios, Options: wiring.Options{Getenv: f.Getenv, Logger: f.Logger, Provider: fake.New()}}, Mode: "yolo"})
	var ue *UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "read-only, ask or auto") {
		t.Errorf("err = %v, want a usage error naming the modes", err)
	}
}

// TestACPServes runs the command's server over pipes with a scripted
// model: the real wiring behind a real ACP client.
func TestACPServes(t *testing.T) {
	toServer, fromClient := io.Pipe()
	fromServer, toClient := io.Pipe()
	ios := &IOStreams{In: toServer, Out: toClient, ErrOut: io.Discard}
	home, ws := t.TempDir(), t.TempDir()
	f := &Factory{IO: ios, Getenv: func(string) string { return "" }, Logger: slog.New(slog.DiscardHandler), Version: "t"}
	opts := &ACPOptions{engineOptions: engineOptions{IO: ios, Options: wiring.Options{Getenv: f.Getenv, Logger: f.Logger, Home: home, Provider: fake.New(fake.Step{Text: "hello from godwit"})}}, Mode: "ask"}
	done := make(chan error, 1)
	go func() { done <- runACP(context.Background(), opts) }()

	ed := &chunks{}
	c := sdk.NewClientSideConnection(ed, fromClient, fromServer)
	c.SetLogger(slog.New(slog.DiscardHandler))
	ctx := context.Background()
	if _, err := c.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	sess, err := c.NewSession(ctx, sdk.NewSessionRequest{Cwd: ws, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != sdk.StopReasonEndTurn || ed.text() != "hello from godwit" {
		t.Errorf("stop %s, streamed %q", resp.StopReason, ed.text())
	}
	fromClient.Close()
	if err := <-done; err != nil {
		t.Errorf("runACP: %v", err)
	}
	toClient.Close()
}

// chunks is a client that keeps the agent's message text.
type chunks struct {
	mu sync.Mutex
	b  strings.Builder
}

func (c *chunks) text() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.b.String()
}

func (c *chunks) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if m := n.Update.AgentMessageChunk; m != nil && m.Content.Text != nil {
		c.b.WriteString(m.Content.Text.Text)
	}
	return nil
}

func (c *chunks) RequestPermission(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
}

func (c *chunks) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, errors.New("not offered")
}

func (c *chunks) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, errors.New("not offered")
}

func (c *chunks) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errors.New("not offered")
}

func (c *chunks) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, errors.New("not offered")
}

func (c *chunks) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errors.New("not offered")
}

func (c *chunks) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errors.New("not offered")
}

func (c *chunks) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errors.New("not offered")
}
