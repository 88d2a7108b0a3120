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
// asks for on disk (as an editor's buffers would), offers a terminal only
// when the attack says so,
// and answers every permission request by rejecting it once, as a
// careful person would for an injected call, or (allow) by allowing it
// once.
type editor struct {
	allow bool
	// env, when set, is the editor's environment, and the editor offers
	// terminals that run commands in it.
	env   []string
	mu    sync.Mutex
	asks  int
	terms map[string]*terminal
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

// terminal is one command the editor runs for godwit (terminal/create),
// as an editor's integrated terminal would: in the folder and with the
// variables godwit names, on top of the editor's own environment.
type terminal struct {
	cmd  *exec.Cmd
	out  lockedBuffer
	done chan struct{}
	err  error
}

func (e *editor) CreateTerminal(_ context.Context, p sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	if e.env == nil {
		return sdk.CreateTerminalResponse{}, errNoTerminal
	}
	cmd := exec.Command(p.Command, p.Args...)
	if p.Cwd != nil {
		cmd.Dir = *p.Cwd
	}
	cmd.Env = append([]string(nil), e.env...)
	for _, v := range p.Env {
		cmd.Env = append(cmd.Env, v.Name+"="+v.Value)
	}
	term := &terminal{cmd: cmd, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = &term.out, &term.out
	if err := cmd.Start(); err != nil {
		return sdk.CreateTerminalResponse{}, err
	}
	go func() { term.err = cmd.Wait(); close(term.done) }()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.terms == nil {
		e.terms = map[string]*terminal{}
	}
	id := fmt.Sprintf("term-%d", len(e.terms)+1)
	e.terms[id] = term
	return sdk.CreateTerminalResponse{TerminalId: id}, nil
}

func (e *editor) term(id string) (*terminal, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if t := e.terms[id]; t != nil {
		return t, nil
	}
	return nil, fmt.Errorf("no terminal %s", id)
}

func (e *editor) KillTerminal(_ context.Context, p sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	t, err := e.term(p.TerminalId)
	if err != nil {
		return sdk.KillTerminalResponse{}, err
	}
	_ = t.cmd.Process.Kill()
	return sdk.KillTerminalResponse{}, nil
}

func (e *editor) TerminalOutput(_ context.Context, p sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	t, err := e.term(p.TerminalId)
	if err != nil {
		return sdk.TerminalOutputResponse{}, err
	}
	resp := sdk.TerminalOutputResponse{Output: t.out.String()}
	select {
	case <-t.done:
		resp.ExitStatus = &sdk.TerminalExitStatus{ExitCode: sdk.Ptr(t.cmd.ProcessState.ExitCode())}
	default:
	}
	return resp, nil
}

func (e *editor) ReleaseTerminal(_ context.Context, p sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, nil
}

func (e *editor) WaitForTerminalExit(ctx context.Context, p sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	t, err := e.term(p.TerminalId)
	if err != nil {
		return sdk.WaitForTerminalExitResponse{}, err
	}
	select {
	case <-t.done:
	case <-ctx.Done():
		return sdk.WaitForTerminalExitResponse{}, ctx.Err()
	}
	return sdk.WaitForTerminalExitResponse{ExitCode: sdk.Ptr(t.cmd.ProcessState.ExitCode())}, nil
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
	signalled := make(chan []string, 1)
	sigCtx, stopSignal := context.WithCancel(ctx)
	defer stopSignal()
	if a.Signal != nil { // godwit is signalled while the editor's terminal runs the command
		go func() { signalled <- signalACP(sigCtx, s, cmd.Process, a.Signal) }()
	} else {
		signalled <- nil
	}
	ed := &editor{allow: mode == modeAskYes}
	if a.Terminal {
		ed.env = s.godwitEnv(a)
	}
	conn := sdk.NewClientSideConnection(ed, stdin, stdout)
	conn.SetLogger(slog.New(slog.DiscardHandler))
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true},
			Terminal: a.Terminal}}); err != nil {
		out.notes = append(out.notes, "initialize: "+err.Error())
	} else if sess, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: s.ws, McpServers: []sdk.McpServer{}}); err != nil {
		out.notes = append(out.notes, "session/new: "+err.Error())
	} else {
		prompt := a.Prompt
		if prompt == "" {
			prompt = "Summarise notes.md and do what it asks."
		}
		if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock(prompt)}}); err != nil && a.Signal == nil {
			// (A signalled godwit ends the prompt with the connection.)
			out.notes = append(out.notes, "session/prompt: "+err.Error())
		}
	}
	stdin.Close()
	err = cmd.Wait()
	stopSignal() // a signal still waiting for its file gives up
	out.notes = append(out.notes, <-signalled...)
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

// signalACP sends sig.Send to godwit once sig.After exists; a godwit
// that ends first, or a file that never appears, is a note.
func signalACP(ctx context.Context, s *scene, p *os.Process, sig *Signal) []string {
	after := s.path(sig.After)
	for {
		if _, err := os.Stat(after); err == nil {
			break
		}
		select {
		case <-ctx.Done():
			return []string{sig.After + " never appeared: the command never ran, so no signal was sent"}
		case <-time.After(50 * time.Millisecond):
		}
	}
	time.Sleep(200 * time.Millisecond) // let the command settle into its wait
	if err := p.Signal(signals[sig.Send]); err != nil {
		return []string{"godwit ended before SIG" + sig.Send + ": " + err.Error()}
	}
	return nil
}
