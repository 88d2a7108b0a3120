package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/godwit/godwit/tool"
)

// State is where a server is in its life.
type State string

// States.
const (
	StateStarting State = "starting"
	StateReady    State = "ready"
	// StateFailed: the entry is bad or the server did not come up.
	StateFailed State = "failed"
	// StateSkipped: disabled, or a .mcp.json server the user has not
	// allowed.
	StateSkipped State = "skipped"
	// StateStopped: the server went away after it was ready, or Close
	// stopped it.
	StateStopped State = "stopped"
)

// Status is what the Manager knows of one server.
type Status struct {
	Server string
	// Source is "config.yaml" or ".mcp.json".
	Source string
	State  State
	// Tools are the server's tools while it is ready.
	Tools []tool.Tool
	// Err says why the server failed, was skipped or stopped.
	Err error
}

// String renders the status as one line for the user.
func (s Status) String() string {
	msg := fmt.Sprintf("mcp server %q (%s): %s", s.Server, s.Source, s.State)
	if s.State == StateReady {
		msg += fmt.Sprintf(", %d tools", len(s.Tools))
	}
	if s.Err != nil {
		msg += ": " + s.Err.Error()
	}
	return msg
}

// server is one configured server. Lock order: Manager.mu, then
// server.mu.
type server struct {
	name, source string
	kind         string
	cfg          ServerConfig // expanded
	timeout      time.Duration
	stderr       tail

	// progress routes the server's progress notifications to the call
	// that asked for them, by progress token.
	progress progressRoutes

	mu    sync.Mutex // guards the fields below
	state State
	err   error
	cs    *sdk.ClientSession
	tools []*Tool
}

func (s *server) status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{Server: s.name, Source: s.source, State: s.state, Err: s.err}
	if s.state == StateReady {
		for _, t := range s.tools {
			st.Tools = append(st.Tools, t)
		}
	}
	return st
}

// session returns the live connection, or why there is none.
func (s *server) session() (*sdk.ClientSession, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cs == nil {
		return nil, fmt.Errorf("MCP server %q is not connected", s.name)
	}
	return s.cs, nil
}

// transport builds the connection the entry asks for.
func (m *Manager) transport(s *server) (sdk.Transport, error) {
	switch s.kind {
	case TypeStdio:
		cmd := exec.Command(s.cfg.Command, s.cfg.Args...)
		cmd.Dir = m.opts.Workspace
		cmd.Env = os.Environ()
		for k, v := range s.cfg.Env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		cmd.Stderr = &s.stderr // never ours: stdout and stderr belong to the UI
		detach(cmd)
		return &sdk.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil
	case TypeHTTP, TypeSSE:
		client := &http.Client{}
		if len(s.cfg.Headers) > 0 {
			client.Transport = headerTransport{base: http.DefaultTransport, headers: s.cfg.Headers}
		}
		if s.kind == TypeSSE {
			return &sdk.SSEClientTransport{Endpoint: s.cfg.URL, HTTPClient: client}, nil
		}
		return &sdk.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: client, MaxRetries: 2}, nil
	}
	return nil, fmt.Errorf("unknown transport %q", s.kind)
}

// startError says why a server did not come up and what to check.
func (s *server) startError(ctx context.Context, err error) error {
	var what string
	switch {
	case errors.Is(err, exec.ErrNotFound):
		what = fmt.Sprintf("command %q not found: install it or fix the command in %s", s.cfg.Command, s.source)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		what = "no answer in time: check that it is an MCP server and that it starts outside godwit"
	case s.kind == TypeStdio:
		what = "check the command and args in " + s.source
	default:
		what = "check the url and headers in " + s.source
	}
	return fmt.Errorf("did not start: %w; %s%s", err, what, s.stderrTail())
}

func (s *server) stderrTail() string {
	t := strings.TrimSpace(s.stderr.String())
	if t == "" {
		return ""
	}
	return "; its stderr ends with: " + t
}

// headerTransport adds configured headers to each request.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.headers {
		r.Header.Set(k, v)
	}
	return h.base.RoundTrip(r)
}

// tail keeps the last bytes a server wrote to stderr, for error reports.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailSize = 1024

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailSize {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailSize:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.ToValidUTF8(string(t.buf), "")
}

// progressRoutes maps the progress tokens of calls in flight to where
// their progress goes. It is safe for concurrent use.
type progressRoutes struct {
	next   atomic.Int64
	routes sync.Map // token -> func(tool.Progress)
}

// add registers report under a new token; drop forgets it.
func (r *progressRoutes) add(report func(tool.Progress)) (token string, drop func()) {
	token = "godwit-" + strconv.FormatInt(r.next.Add(1), 10)
	r.routes.Store(token, report)
	return token, func() { r.routes.Delete(token) }
}

// deliver hands a notification to its call; one for a call that has
// ended (or a token never given) is dropped.
func (r *progressRoutes) deliver(p *sdk.ProgressNotificationParams) {
	if p == nil {
		return
	}
	if report, ok := r.routes.Load(fmt.Sprint(p.ProgressToken)); ok {
		report.(func(tool.Progress))(tool.Progress{Progress: p.Progress, Total: p.Total, Message: oneLine(p.Message, 200)})
	}
}
