package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/policy"
	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/tool/fs"
	"github.com/godwit/godwit/internal/tool/plan"
	"github.com/godwit/godwit/internal/tool/shell"
	"github.com/godwit/godwit/tool"
)

// Options configure Serve.
type Options struct {
	// Build makes the engine of one session. Required.
	Build func(ctx context.Context, req EngineRequest) (*Engine, error)
	// Version is reported to the client at initialize.
	Version string
	// Mode is the mode new sessions start in; "" means ModeAsk.
	Mode Mode
	// Logger receives diagnostics (never the protocol output); nil
	// discards.
	Logger *slog.Logger
	// OpenMail, when set, opens a stored session's mail, which the
	// session then answers between prompts (acp/mail.go).
	OpenMail func(ctx context.Context, st *store.Store, sessionID string) (Mailbox, error)
	// Explain words a failed turn's error for the editor's user (the
	// CLI's, without Go's package prefixes); nil keeps err.Error().
	Explain func(error) string
}

// EngineRequest is what Build is asked for: an engine over Workspace,
// under godwit's own policy (rules, secrets
// screen, read-only commands, workspace boundary) in the session's Mode,
// which asks the editor through Prompter, behind Gate.
type EngineRequest struct {
	// Workspace is the absolute directory the client named (cwd).
	Workspace string
	// Mode is the session's mode now. The editor can switch it at any
	// time (session/set_mode), so the policy and the sandbox must read
	// it at every approval and whenever a command starts.
	Mode func() policy.Mode
	// Prompter asks the editor's user (session/request_permission): it
	// is the policy's Prompter.
	Prompter policy.Prompter
	// Gate goes in front of the policy: the runner's Approver is
	// Gate(policy). It shows each call to the editor before the policy
	// judges it, and links the policy's questions to that call.
	Gate func(policy tool.Approver) tool.Approver
	// Files, when not nil, reads and writes files through the editor:
	// pass it as fs.Options.Files.
	Files fs.Files
	// Terminal, when not nil, runs foreground commands in the editor:
	// pass it as shell.Options.Terminal.
	Terminal shell.Terminal
}

// Engine is one session's engine.
type Engine struct {
	Runtime *agent.Runtime
	Store   *store.Store
	// Workspace is the root the engine resolved; Model is
	// "provider/model". Both are recorded with a new session.
	Workspace string
	Model     string
	// Plan, when set, is read after each plan call to send the steps.
	Plan *plan.Plan
	// ContextWindow is the model's window in tokens, the size of the
	// usage_update notifications; 0 sends none.
	ContextWindow int
	// Close releases the engine; nil means nothing to release.
	Close func() error
}

// Serve speaks ACP on r and w until the client disconnects or ctx ends,
// then ends running turns and closes every session's engine.
func Serve(ctx context.Context, r io.Reader, w io.Writer, opts Options) error {
	if opts.Build == nil {
		return errors.New("acp: Options.Build is required")
	}
	if opts.Mode == "" {
		opts.Mode = ModeAsk
	}
	if !opts.Mode.valid() {
		return fmt.Errorf("acp: unknown mode %q: use %s, %s or %s", opts.Mode, ModeReadOnly, ModeAsk, ModeAuto)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Explain == nil {
		opts.Explain = func(err error) string { return err.Error() }
	}
	s := &server{opts: opts, log: opts.Logger, ready: make(chan struct{}), sessions: map[string]*session{}}
	// The SDK starts reading in NewAgentSideConnection and reads its
	// logger unguarded when a request fails, so the first byte waits
	// until SetLogger is done (a data race under -race otherwise).
	gate := make(chan struct{})
	conn := sdk.NewAgentSideConnection(s, w, gatedReader{r, gate})
	conn.SetLogger(opts.Logger)
	close(gate)
	s.conn = conn
	close(s.ready)
	select {
	case <-conn.Done():
	case <-ctx.Done():
	}
	return s.closeAll()
}

// server implements sdk.Agent for one connection.
type server struct {
	opts Options
	log  *slog.Logger
	conn *sdk.AgentSideConnection
	// ready is closed once conn is set: the connection reads before
	// NewAgentSideConnection returns.
	ready chan struct{}

	mu       sync.Mutex // guards the fields below
	caps     sdk.ClientCapabilities
	sessions map[string]*session
	closed   bool
}

var (
	_ sdk.Agent       = (*server)(nil)
	_ sdk.AgentLoader = (*server)(nil)
)

func (s *server) client() *sdk.AgentSideConnection {
	<-s.ready
	return s.conn
}

// notify sends one session/update. Updates outlive a cancelled turn (the
// client must see how each call ended), so they use no request context.
func (s *server) notify(id string, u sdk.SessionUpdate) {
	err := s.client().SessionUpdate(context.Background(), sdk.SessionNotification{SessionId: sdk.SessionId(id), Update: u})
	if err != nil {
		s.log.Warn("acp: sending session/update", "session", id, "err", err)
	}
}

// Initialize records what the client can do and says what godwit can.
func (s *server) Initialize(_ context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	s.mu.Lock()
	s.caps = p.ClientCapabilities
	s.mu.Unlock()
	return sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:         true,
			PromptCapabilities:  sdk.PromptCapabilities{EmbeddedContext: true},
			SessionCapabilities: sdk.SessionCapabilities{Close: &sdk.SessionCloseCapabilities{}},
		},
		AgentInfo:   &sdk.Implementation{Name: "godwit", Title: sdk.Ptr("godwit"), Version: s.opts.Version},
		AuthMethods: []sdk.AuthMethod{},
	}, nil
}

// Authenticate has nothing to do: providers take their keys from the
// environment and config.
func (s *server) Authenticate(context.Context, sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, nil
}

// NewSession builds an engine for the client's cwd. The session is
// stored with its first prompt, under the id returned here.
func (s *server) NewSession(ctx context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	s.ignoredMCP(p.McpServers)
	sess, err := s.open(ctx, store.NewID(), p.Cwd)
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	s.add(sess)
	return sdk.NewSessionResponse{SessionId: sdk.SessionId(sess.id), Modes: sess.modeState()}, nil
}

// LoadSession reopens a stored session and replays its history before
// answering.
func (s *server) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	s.ignoredMCP(p.McpServers)
	id := string(p.SessionId)
	sess, err := s.open(ctx, id, p.Cwd)
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	// Only a session of the cwd's workspace, by its whole id: another
	// workspace's history is not replayed here.
	_, err = sess.eng.Store.In(sess.eng.Workspace).Session(ctx, id)
	if err != nil {
		sess.close()
		if errors.Is(err, store.ErrNotFound) {
			return sdk.LoadSessionResponse{}, notFound("acp: no stored session %q in %s: start one with session/new, or load it with its own folder as cwd", id, sess.eng.Workspace)
		}
		return sdk.LoadSessionResponse{}, internal(fmt.Errorf("acp: loading session %s: %w", id, err))
	}
	sess.stored = true
	if err := sess.replay(ctx); err != nil {
		sess.close()
		return sdk.LoadSessionResponse{}, internal(err)
	}
	sess.loadUsage(ctx)
	s.add(sess)
	sess.startMail()
	return sdk.LoadSessionResponse{Modes: sess.modeState()}, nil
}

// ignoredMCP says that MCP servers the client passes are not started:
// godwit takes its MCP servers from its own config.
func (s *server) ignoredMCP(servers []sdk.McpServer) {
	if len(servers) > 0 {
		s.log.Warn("acp: the editor's MCP servers are not used; configure them for godwit instead", "count", len(servers))
	}
}

// open builds a session's engine, with the editor's files and terminal
// when the client offered them.
func (s *server) open(ctx context.Context, id, cwd string) (*session, error) {
	if !filepath.IsAbs(cwd) {
		return nil, invalidParams("acp: cwd %q is not an absolute path: send the project folder's absolute path", cwd)
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return nil, invalidParams("acp: there is no folder %s: open a project folder that exists", cwd)
	}
	s.mu.Lock()
	caps, closed := s.caps, s.closed
	s.mu.Unlock()
	if closed {
		return nil, internal(errors.New("acp: the server is shutting down"))
	}
	sess := &session{srv: s, id: id, mode: s.opts.Mode, calls: map[string]*call{}, shown: map[string]int{}}
	req := EngineRequest{Workspace: cwd, Mode: sess.policyMode, Prompter: sess, Gate: sess.gate}
	if caps.Fs.ReadTextFile || caps.Fs.WriteTextFile {
		req.Files = editorFiles{s: sess, read: caps.Fs.ReadTextFile, write: caps.Fs.WriteTextFile}
	}
	if caps.Terminal {
		req.Terminal = editorTerminal{sess}
	}
	eng, err := s.opts.Build(ctx, req)
	if err != nil {
		return nil, internal(err)
	}
	if eng == nil || eng.Runtime == nil || eng.Store == nil {
		if eng != nil && eng.Close != nil {
			_ = eng.Close()
		}
		return nil, internal(errors.New("acp: Build returned no Runtime or Store"))
	}
	if eng.Workspace == "" {
		eng.Workspace = cwd
	}
	sess.eng = eng
	return sess, nil
}

// add registers sess; a session loaded again replaces the older one,
// whose engine is closed.
func (s *server) add(sess *session) {
	s.mu.Lock()
	old := s.sessions[sess.id]
	s.sessions[sess.id] = sess
	s.mu.Unlock()
	if old != nil {
		if err := old.close(); err != nil {
			s.log.Warn("acp: closing the replaced session", "session", sess.id, "err", err)
		}
	}
}

func (s *server) session(id sdk.SessionId) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess := s.sessions[string(id)]
	if sess == nil {
		return nil, notFound("acp: no open session %q: create one with session/new or load it with session/load", id)
	}
	return sess, nil
}

// Prompt runs one turn.
func (s *server) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	sess, err := s.session(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	text := promptText(p.Prompt)
	if text == "" {
		return sdk.PromptResponse{}, invalidParams("acp: the prompt has no text: send at least one text block")
	}
	return sess.prompt(ctx, text)
}

// Cancel ends the session's running turn. The SDK has already cancelled
// the prompt's context; this also covers a turn it did not track.
func (s *server) Cancel(_ context.Context, p sdk.CancelNotification) error {
	if sess, err := s.session(p.SessionId); err == nil {
		sess.cancelTurn()
	}
	return nil
}

// SetSessionMode switches between read-only, ask and auto.
func (s *server) SetSessionMode(_ context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	sess, err := s.session(p.SessionId)
	if err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	m := Mode(p.ModeId)
	if !m.valid() {
		return sdk.SetSessionModeResponse{}, invalidParams("acp: unknown mode %q: use %s, %s or %s", p.ModeId, ModeReadOnly, ModeAsk, ModeAuto)
	}
	sess.setMode(m)
	return sdk.SetSessionModeResponse{}, nil
}

// CloseSession ends the session's turn and releases its engine.
func (s *server) CloseSession(_ context.Context, p sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	s.mu.Lock()
	sess := s.sessions[string(p.SessionId)]
	delete(s.sessions, string(p.SessionId))
	s.mu.Unlock()
	if sess != nil {
		sess.close()
	}
	return sdk.CloseSessionResponse{}, nil
}

// ListSessions is not offered: sessions are listed with `godwit sessions`.
func (s *server) ListSessions(context.Context, sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	return sdk.ListSessionsResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionList)
}

// ResumeSession is not offered; session/load does it with the history.
func (s *server) ResumeSession(context.Context, sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	return sdk.ResumeSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionResume)
}

// SetSessionConfigOption is not offered: modes are the only setting.
func (s *server) SetSessionConfigOption(context.Context, sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	return sdk.SetSessionConfigOptionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionSetConfigOption)
}

// closeAll refuses new sessions and closes the open ones, each after its
// running turn has ended.
func (s *server) closeAll() error {
	s.mu.Lock()
	s.closed = true
	sessions := s.sessions
	s.sessions = map[string]*session{}
	s.mu.Unlock()
	var errs []error
	for _, sess := range sessions {
		errs = append(errs, sess.close())
	}
	return errors.Join(errs...)
}

// JSON-RPC errors whose message says what to do.
func notFound(format string, a ...any) error {
	return &sdk.RequestError{Code: -32002, Message: fmt.Sprintf(format, a...)}
}

func invalidParams(format string, a ...any) error {
	return &sdk.RequestError{Code: -32602, Message: fmt.Sprintf(format, a...)}
}

func internal(err error) error {
	var re *sdk.RequestError
	if errors.As(err, &re) {
		return re
	}
	return &sdk.RequestError{Code: -32603, Message: err.Error()}
}

// gatedReader reads nothing until open is closed.
type gatedReader struct {
	r    io.Reader
	open <-chan struct{}
}

func (g gatedReader) Read(p []byte) (int, error) {
	<-g.open
	return g.r.Read(p)
}
