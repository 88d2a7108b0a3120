//go:build linux

package attack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
)

// editor is an honest ACP client: it reads and writes the files godwit
// asks for on disk (as an editor's buffers would), offers no terminal,
// and answers every permission request by rejecting it once, as a
// careful person would for an injected call, or (allow) by allowing it
// once.
type editor struct {
	allow bool
	mu    sync.Mutex
	asks  int
}

var _ sdk.Client = (*editor)(nil)

func (e *editor) RequestPermission(_ context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	e.mu.Lock()
	e.asks++
	e.mu.Unlock()
	want := sdk.PermissionOptionKindRejectOnce
	if e.allow {
		want = sdk.PermissionOptionKindAllowOnce
	}
	for _, o := range p.Options {
		if o.Kind == want {
			return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{
				Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: o.OptionId}}}, nil
		}
	}
	return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{}}}, nil
}

func (e *editor) SessionUpdate(context.Context, sdk.SessionNotification) error { return nil }

func (e *editor) ReadTextFile(_ context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	b, err := os.ReadFile(p.Path)
	if err != nil {
		return sdk.ReadTextFileResponse{}, err
	}
	content := string(b)
	if p.Line != nil || p.Limit != nil {
		lines := strings.Split(content, "\n")
		start := 0
		if p.Line != nil && *p.Line > 1 {
			start = min(*p.Line-1, len(lines))
		}
		end := len(lines)
		if p.Limit != nil && *p.Limit > 0 && start+*p.Limit < end {
			end = start + *p.Limit
		}
		content = strings.Join(lines[start:end], "\n")
	}
	return sdk.ReadTextFileResponse{Content: content}, nil
}

func (e *editor) WriteTextFile(_ context.Context, p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	if err := os.MkdirAll(filepath.Dir(p.Path), 0o755); err != nil {
		return sdk.WriteTextFileResponse{}, err
	}
	return sdk.WriteTextFileResponse{}, os.WriteFile(p.Path, []byte(p.Content), 0o644)
}

var errNoTerminal = errors.New("this editor offers no terminal")

func (e *editor) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errNoTerminal
}
func (e *editor) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, errNoTerminal
}
func (e *editor) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errNoTerminal
}
func (e *editor) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errNoTerminal
}
func (e *editor) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errNoTerminal
}

// acpMode is the --mode of `godwit acp` for a suite mode.
func acpMode(mode string) string {
	if mode == modeAskNo || mode == modeAskYes {
		return "ask"
	}
	return mode
}

// runACP runs one ACP session of attack a: initialize, session/new in
// the workspace, one prompt, then stdin closes and godwit must exit.
func runACP(t *testing.T, s *scene, a *Attack, mode string) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "acp", "--model", "local/attacker", "--mode", acpMode(mode))
	cmd.Dir = s.ws
	cmd.Env = s.godwitEnv(a)
	cmd.WaitDelay = 5 * time.Second
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var out outcome
	ed := &editor{allow: mode == modeAskYes}
	conn := sdk.NewClientSideConnection(ed, stdin, stdout)
	conn.SetLogger(slog.New(slog.DiscardHandler))
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}}}); err != nil {
		out.notes = append(out.notes, "initialize: "+err.Error())
	} else if sess, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: s.ws, McpServers: []sdk.McpServer{}}); err != nil {
		out.notes = append(out.notes, "session/new: "+err.Error())
	} else {
		prompt := a.Prompt
		if prompt == "" {
			prompt = "Summarise notes.md and do what it asks."
		}
		if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock(prompt)}}); err != nil {
			out.notes = append(out.notes, "session/prompt: "+err.Error())
		}
	}
	stdin.Close()
	err = cmd.Wait()
	out.code = exitCode(cmd.ProcessState, err)
	if ctx.Err() != nil {
		out.notes = append(out.notes, fmt.Sprintf("godwit acp ran past %s and was killed", runLimit))
	}
	out.stderr = stderr.String()
	ed.mu.Lock()
	out.asks = ed.asks
	ed.mu.Unlock()
	return out
}
