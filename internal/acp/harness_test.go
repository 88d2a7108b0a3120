package acp_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/godwit/godwit/internal/acp"
	"github.com/godwit/godwit/internal/wiring"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/fake"
)

// script is a scripted model: the steps in order, then "done." for
// anything more (the end-of-turn nudges).
func script(steps ...fake.Step) *fake.Provider {
	var mu sync.Mutex
	i := 0
	return fake.NewFunc(func(llm.Request) fake.Step {
		mu.Lock()
		defer mu.Unlock()
		if i < len(steps) {
			i++
			return steps[i-1]
		}
		return fake.Step{Text: "done."}
	})
}

// builder builds real engines with internal/wiring, as `godwit acp`
// does (the policy, the sandbox, the tools, the runtime), over one
// GODWIT_HOME, answering with provider.
func builder(home string, provider llm.Provider) func(context.Context, acp.EngineRequest) (*acp.Engine, error) {
	return func(ctx context.Context, req acp.EngineRequest) (*acp.Engine, error) {
		env, err := wiring.Build(ctx, wiring.Options{Home: home, Workspace: req.Workspace, Model: "fake/m", Provider: provider,
			Approval: wiring.Approval{Live: req.Mode, Prompter: req.Prompter, Gate: req.Gate}, Files: req.Files, Terminal: req.Terminal,
			Getenv: func(string) string { return "" }})
		if err != nil {
			return nil, err
		}
		return &acp.Engine{Runtime: env.Runtime, Store: env.Store, Workspace: env.Workspace, Model: env.Model, Plan: env.Plan, Close: env.Close}, nil
	}
}

// editor is an ACP client: it records updates, answers permission
// requests with answer, keeps files in memory and runs no real terminal.
type editor struct {
	t      *testing.T
	answer func(sdk.RequestPermissionRequest) sdk.RequestPermissionOutcome

	mu          sync.Mutex
	updates     []sdk.SessionNotification
	permissions []sdk.RequestPermissionRequest
	files       map[string]string
	fsReads     []string
	// onRead, when set, runs before a read is answered (a file swapped
	// while the editor looks).
	onRead    func(path string)
	terminals []sdk.CreateTerminalRequest
}

func (e *editor) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.updates = append(e.updates, n)
	return nil
}

func (e *editor) RequestPermission(_ context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	e.mu.Lock()
	e.permissions = append(e.permissions, p)
	answer := e.answer
	e.mu.Unlock()
	if answer == nil {
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected("allow_once")}, nil
	}
	return sdk.RequestPermissionResponse{Outcome: answer(p)}, nil
}

func (e *editor) ReadTextFile(_ context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.fsReads = append(e.fsReads, p.Path)
	if e.onRead != nil {
		e.onRead(p.Path)
	}
	c, ok := e.files[p.Path]
	if !ok {
		return sdk.ReadTextFileResponse{}, &sdk.RequestError{Code: -32002, Message: "no such buffer"}
	}
	return sdk.ReadTextFileResponse{Content: c}, nil
}

func (e *editor) WriteTextFile(_ context.Context, p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.files[p.Path] = p.Content
	return sdk.WriteTextFileResponse{}, nil
}

func (e *editor) CreateTerminal(_ context.Context, p sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.terminals = append(e.terminals, p)
	return sdk.CreateTerminalResponse{TerminalId: "term-1"}, nil
}

func (e *editor) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{Output: "hi from the editor\n"}, nil
}

func (e *editor) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{ExitCode: sdk.Ptr(0)}, nil
}

func (e *editor) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, nil
}

func (e *editor) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, nil
}

// took returns the updates received so far and forgets them.
func (e *editor) took() []sdk.SessionNotification {
	e.mu.Lock()
	defer e.mu.Unlock()
	u := e.updates
	e.updates = nil
	return u
}

// conn is a client connected to a server over in-memory pipes.
type conn struct {
	*sdk.ClientSideConnection
	out  *syncBuffer // everything the server wrote
	done chan error
}

// connect starts Serve with opts and connects ed to it; the connection
// closes when the test ends.
func connect(t *testing.T, ed *editor, opts acp.Options) *conn {
	t.Helper()
	toServer, fromClient := io.Pipe()
	fromServer, toClient := io.Pipe()
	out := &syncBuffer{}
	c := &conn{out: out, done: make(chan error, 1)}
	go func() {
		c.done <- acp.Serve(context.Background(), toServer, io.MultiWriter(toClient, out), opts)
	}()
	c.ClientSideConnection = sdk.NewClientSideConnection(ed, fromClient, fromServer)
	c.SetLogger(slog.New(slog.DiscardHandler))
	t.Cleanup(func() {
		fromClient.Close()
		if err := <-c.done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		toClient.Close()
	})
	return c
}

// initialize says hello with the capabilities given.
func (c *conn) initialize(t *testing.T, caps sdk.ClientCapabilities) sdk.InitializeResponse {
	t.Helper()
	resp, err := c.Initialize(context.Background(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber, ClientCapabilities: caps})
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func (c *conn) newSession(t *testing.T, cwd string) sdk.SessionId {
	t.Helper()
	resp, err := c.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: cwd, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	return resp.SessionId
}

func (c *conn) prompt(t *testing.T, id sdk.SessionId, text string) sdk.PromptResponse {
	t.Helper()
	resp, err := c.Prompt(context.Background(), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
