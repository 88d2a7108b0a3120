package mcp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"slices"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/godwit/godwit/tool"
)

// DefaultStartTimeout bounds connecting to a server and listing its
// tools. npx may download a package first, hence the generous bound.
const DefaultStartTimeout = 60 * time.Second

// Options configure a Manager.
type Options struct {
	// Config holds the servers of config.yaml and which .mcp.json
	// servers may start.
	Config Config
	// Workspace is where .mcp.json is read and where stdio servers run.
	// Empty reads no .mcp.json.
	Workspace string
	// Getenv expands ${VAR} in server entries; nil means os.Getenv.
	Getenv func(string) string
	// OnStatus hears each server become ready, fail, be skipped or stop.
	// It is called from Start (entries that never start) and from the
	// Manager's goroutines, one call at a time, and must not block long.
	OnStatus func(Status)
	// Version is godwit's version, sent in the handshake.
	Version string
	// StartTimeout bounds one server's start; 0 means
	// DefaultStartTimeout.
	StartTimeout time.Duration
	Logger       *slog.Logger
}

// Manager runs the configured servers. Its methods are safe for
// concurrent use.
type Manager struct {
	opts    Options
	log     *slog.Logger
	ctx     context.Context // cancelled by Close: aborts starts in flight
	cancel  context.CancelFunc
	wg      sync.WaitGroup // every goroutine of the Manager
	started sync.WaitGroup // the starts in flight

	statusMu sync.Mutex // serialises OnStatus calls

	servers []*server // in name order; the slice is fixed by Start

	mu     sync.Mutex // guards closed
	closed bool
}

// Start reads the servers and starts each in its own goroutine. It
// returns at once and never fails: a bad entry or a server that does not
// come up is reported through OnStatus and Statuses.
func Start(opts Options) *Manager {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &Manager{opts: opts, log: log, ctx: ctx, cancel: cancel}
	m.servers = m.entries()
	for _, s := range m.servers {
		if s.state != StateStarting {
			m.report(s)
			continue
		}
		m.wg.Add(1)
		m.started.Add(1)
		go func() {
			defer m.wg.Done()
			m.start(s)
		}()
	}
	return m
}

// entries collects the servers of config.yaml and .mcp.json, in name
// order; config.yaml wins a name both use.
func (m *Manager) entries() []*server {
	byName := map[string]*server{}
	for name, c := range m.opts.Config.Servers {
		byName[name] = m.entry(name, "config.yaml", c)
	}
	if m.opts.Workspace != "" {
		project, err := ReadProjectFile(m.opts.Workspace)
		if err != nil {
			byName[ProjectFile] = &server{name: ProjectFile, source: ProjectFile, state: StateFailed, err: err}
			project = nil
		}
		for name, c := range project {
			if _, ok := byName[name]; ok {
				m.log.Info("mcp: server in .mcp.json shadowed by config.yaml", "server", name)
				continue
			}
			s := m.entry(name, ProjectFile, c)
			if s.state == StateStarting && !m.opts.Config.trusted(name) {
				s.state = StateSkipped
				s.err = fmt.Errorf("not started: %s comes with the repository and can run any command; "+
					"to allow it, add %q (or \"*\") to mcp.project in config.yaml", ProjectFile, name)
			}
			byName[name] = s
		}
	}
	out := slices.Collect(maps.Values(byName))
	slices.SortFunc(out, func(a, b *server) int { return cmp.Compare(a.name, b.name) })
	return out
}

// entry checks one server entry; a bad one fails with what to fix.
func (m *Manager) entry(name, source string, c ServerConfig) *server {
	s := &server{name: name, source: source, state: StateStarting, timeout: DefaultCallTimeout}
	if c.TimeoutS > 0 {
		s.timeout = time.Duration(c.TimeoutS) * time.Second
	}
	if c.Disabled {
		s.state, s.err = StateSkipped, errors.New("disabled")
		return s
	}
	if sanitize(name) != name || name == "" {
		s.state, s.err = StateFailed, fmt.Errorf("bad server name %q in %s: use letters, digits, '_' and '-'", name, source)
		return s
	}
	kind, err := c.kind()
	if err == nil {
		c, err = c.expanded(m.opts.Getenv)
	}
	if err != nil {
		s.state, s.err = StateFailed, fmt.Errorf("server %q in %s: %w", name, source, err)
		return s
	}
	s.kind, s.cfg = kind, c
	return s
}

// start connects one server, lists its tools and watches it.
func (m *Manager) start(s *server) {
	ctx, cancel := context.WithTimeout(m.ctx, m.opts.StartTimeout)
	cs, tools, err := m.connect(ctx, s)
	cancel()
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		m.started.Done()
		if cs != nil {
			_ = cs.Close()
		}
		return
	}
	s.mu.Lock()
	if err != nil {
		s.state, s.err = StateFailed, err
	} else {
		s.state, s.cs, s.tools = StateReady, cs, tools
	}
	s.mu.Unlock()
	m.mu.Unlock()
	m.report(s)
	m.started.Done()
	if err != nil {
		return
	}
	_ = cs.Wait()
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	s.mu.Lock()
	s.state, s.cs = StateStopped, nil
	s.err = fmt.Errorf("the server stopped%s", s.stderrTail())
	s.mu.Unlock()
	m.mu.Unlock()
	m.report(s)
}

func (m *Manager) connect(ctx context.Context, s *server) (*sdk.ClientSession, []*Tool, error) {
	transport, err := m.transport(s)
	if err != nil {
		return nil, nil, fmt.Errorf("server %q: %w", s.name, err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "godwit", Version: m.opts.Version}, &sdk.ClientOptions{
		Logger:       m.log,
		Capabilities: &sdk.ClientCapabilities{},
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			s.progress.deliver(req.Params)
		},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			m.mu.Lock()
			defer m.mu.Unlock()
			if m.closed {
				return
			}
			m.wg.Add(1) // under mu, before Close's Wait
			go func() {
				defer m.wg.Done()
				m.relist(s)
			}()
		},
	})
	cs, err := client.Connect(ctx, transport, nil)
	if err != nil {
		return nil, nil, s.startError(ctx, err)
	}
	tools, err := listTools(ctx, s, cs)
	if err != nil {
		_ = cs.Close()
		return nil, nil, s.startError(ctx, fmt.Errorf("listing tools: %w", err))
	}
	return cs, tools, nil
}

func listTools(ctx context.Context, s *server, cs *sdk.ClientSession) ([]*Tool, error) {
	var out []*Tool
	seen := map[string]bool{}
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		gt, err := newTool(s, t)
		if err != nil || seen[gt.name] {
			continue // one bad tool must not cost the server's others
		}
		seen[gt.name] = true
		out = append(out, gt)
	}
	return out, nil
}

// relist takes a server's new tool list after it said the list changed;
// the new tools reach the model at the next segment.
func (m *Manager) relist(s *server) {
	cs, err := s.session()
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(m.ctx, m.opts.StartTimeout)
	defer cancel()
	tools, err := listTools(ctx, s, cs)
	if err != nil {
		m.log.Warn("mcp: relisting tools", "server", s.name, "err", err)
		return
	}
	s.mu.Lock()
	s.tools = tools
	s.mu.Unlock()
	m.report(s)
}

func (m *Manager) report(s *server) {
	st := s.status()
	m.log.Debug("mcp: server status", "server", st.Server, "state", st.State, "tools", len(st.Tools), "err", st.Err)
	if m.opts.OnStatus == nil {
		return
	}
	m.statusMu.Lock()
	defer m.statusMu.Unlock()
	m.opts.OnStatus(st)
}

// Statuses returns every server's status, in name order.
func (m *Manager) Statuses() []Status {
	out := make([]Status, len(m.servers))
	for i, s := range m.servers {
		out[i] = s.status()
	}
	return out
}

// Tools returns the tools of the servers that are ready, in server name
// order, each server's tools in the order it listed them.
func (m *Manager) Tools() []tool.Tool {
	var out []tool.Tool
	for _, s := range m.servers {
		out = append(out, s.status().Tools...)
	}
	return out
}

// Wait blocks until every server has started or failed, or ctx ends.
func (m *Manager) Wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		m.started.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("mcp: waiting for servers: %w", ctx.Err())
	}
}

// Close stops every server and waits for the Manager's goroutines.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	var sessions []*sdk.ClientSession
	for _, s := range m.servers {
		s.mu.Lock()
		if s.cs != nil {
			sessions = append(sessions, s.cs)
		}
		if s.state == StateReady || s.state == StateStarting {
			s.state, s.err = StateStopped, errors.New("closed")
		}
		s.cs = nil
		s.mu.Unlock()
	}
	m.mu.Unlock()
	m.cancel()
	var wg sync.WaitGroup
	for _, cs := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := cs.Close(); err != nil {
				m.log.Debug("mcp: closing a server", "err", err)
			}
		}()
	}
	wg.Wait()
	m.wg.Wait()
	return nil
}
