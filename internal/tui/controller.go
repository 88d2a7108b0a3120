package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/policy"
	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/tool/plan"
	"github.com/godwit/godwit/llm"
)

// Runner runs one turn; *agent.Runtime implements it.
type Runner interface {
	Run(ctx context.Context, in agent.RunInput) (agent.Result, error)
}

// Engine is one built engine, as the chat sees it. internal/cli makes it
// from a wiring.Env.
type Engine struct {
	Runtime Runner
	Store   *store.Store
	// Model is "provider/model".
	Model string
	// Workspace is the absolute path the engine works in; a session of
	// another workspace is not resumed here.
	Workspace string
	// ContextWindow is the model's window in tokens (0: unknown).
	ContextWindow int
	// Plan returns the plan tool's steps; nil when there is no plan tool.
	Plan func() []plan.Step
	// SetPlan restores steps into the plan tool (:model carries the plan
	// over to the new engine); nil when there is no plan tool.
	SetPlan func([]plan.Step) error
	// Close releases the engine; nil when there is nothing to release.
	Close func() error
	// Notices are what the user must hear once (wiring.Env.Notices);
	// the chat shows the first engine's under its banner.
	Notices []string
	// Exec runs one call for the user, not the model (!CMD, @path),
	// through the session's runner (the same policy, sandbox and locks),
	// its events to sink; nil when the chat cannot.
	Exec func(ctx context.Context, call llm.ToolCall, sink agent.Sink) (ToolRun, error)
	// Skills lists the skills a /name asks the model to use; nil for none.
	Skills func(ctx context.Context) []Choice
}

// Choice is a name the chat offers (a model, a skill, a command) and
// what it is.
type Choice struct{ Name, Detail string }

// Builder builds the engine for a model ("provider/model"; "" for the
// configured default). It is called at start and by :model. The turns'
// events go to Options.Sink whichever engine runs them; the builder
// decides where an engine's own events (mcp.status) go.
type Builder func(ctx context.Context, model string) (*Engine, error)

// Options configure a Controller.
type Options struct {
	// Build makes engines. Required.
	Build Builder
	// Sink receives every turn's events (agent.RunInput.Sink); nil
	// discards them.
	Sink agent.Sink
	// Model is the first engine's model; "" for the default.
	Model string
	// Session continues a stored session: an id, a unique prefix of one,
	// or "last". Empty starts a new session at the first prompt.
	Session string
	// Mode is the session's approval mode, which /mode and Shift-Tab
	// switch; the builder hands Mode.Get to the engine (wiring's
	// Approval.Live), so a switch holds from the next call on. nil: the mode
	// is fixed (shown as unknown, and /mode says it cannot switch).
	Mode *ModeSwitch
	// Mail, when set, hands the chat its session's mail (tui/mail.go).
	Mail MailSource
	// Models lists the models /model offers: those whose key is set.
	Models func() []Choice
	// KeepModel and KeepMode: the chat was started without naming a
	// model, a mode; a resumed session then continues on the model and
	// mode it last had (auto mode excepted: the chat says it instead).
	KeepModel, KeepMode bool
}

// ModeSwitch is the approval mode of a chat: the user switches it, the
// engine reads it at every approval and whenever a command starts. It is
// safe for concurrent use.
type ModeSwitch struct{ v atomic.Int32 }

// NewModeSwitch returns a switch set to m.
func NewModeSwitch(m policy.Mode) *ModeSwitch {
	s := &ModeSwitch{}
	s.Set(m)
	return s
}

// Get returns the mode in force.
func (s *ModeSwitch) Get() policy.Mode { return policy.Mode(s.v.Load()) }

// Set switches the mode.
func (s *ModeSwitch) Set(m policy.Mode) { s.v.Store(int32(m)) }

// Controller is the chat's state outside the screen. It is safe for
// concurrent use: the UI calls it from its goroutine, turns run in
// another, and Observe is called from the agent's.
type Controller struct {
	build  Builder
	sink   agent.Sink
	mode   *ModeSwitch
	mail   MailSource
	models func() []Choice
	turns  sync.WaitGroup // running turns; Close waits for them
	// userCalls numbers the calls the user runs (!CMD, @path), for
	// their events.
	userCalls atomic.Int64

	notices []string // the first engine's, shown once
	resumed string   // Resumed

	mu        sync.Mutex
	eng       *Engine
	sessionID string
	resetNext bool
	running   bool
	stats     stats
	notes     []string // for the next message: the user's !commands
}

// stats are the figures of the status line and :context.
type stats struct {
	segment int
	lastReq *agent.RequestInfo
	usage   llm.Usage // the session's, summed over its model calls
	cost    float64
}

// ErrBusy is returned by commands that cannot run during a turn.
var ErrBusy = errors.New("tui: a turn is running: wait for it to end, or press Ctrl-C to cancel it")

// NewController builds the first engine and, when opts.Session names
// one, loads that session's figures.
func NewController(ctx context.Context, opts Options) (*Controller, error) {
	if opts.Build == nil {
		return nil, errors.New("tui: Options.Build is required")
	}
	c := &Controller{build: opts.Build, sink: opts.Sink, mode: opts.Mode, mail: opts.Mail, models: opts.Models}
	eng, err := opts.Build(ctx, opts.Model)
	if err != nil {
		return nil, err
	}
	c.eng, c.notices = eng, eng.Notices
	if opts.Session != "" {
		sess, err := ResolveSession(ctx, eng.Store, opts.Session, eng.Workspace)
		if err == nil {
			err = sameWorkspace(sess, eng)
		}
		if err != nil {
			_ = c.Close()
			return nil, err
		}
		if err := c.load(ctx, sess.ID); err != nil {
			_ = c.Close()
			return nil, err
		}
		c.resumed = c.resumeSettings(ctx, opts.KeepModel, opts.KeepMode)
	}
	return c, nil
}

// Resumed says, for a chat that resumed a session, with which model and
// mode, and how they differ from the session's last; "" otherwise.
func (c *Controller) Resumed() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.resumed
}

// Close waits for a running turn to end (cancel it first), then releases
// the engine.
func (c *Controller) Close() error {
	c.turns.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.eng != nil && c.eng.Close != nil {
		err := c.eng.Close()
		c.eng = nil
		return err
	}
	return nil
}

// SessionID returns the session the next turn continues ("" before the
// first turn of a new session).
func (c *Controller) SessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessionID
}

// Banner is the line a chat opens with: godwit's version, the model, the
// workspace, the approval mode and the session, as Claude Code and Codex
// open with theirs.
func (c *Controller) Banner(version string) string {
	st := c.Status()
	if version == "" {
		version = "dev"
	}
	parts := []string{"godwit " + version, st.Model}
	if ws := c.Workspace(); ws != "" {
		parts = append(parts, homeRel(ws))
	}
	if st.Mode != "" {
		parts = append(parts, "mode "+st.Mode)
	}
	if st.SessionID != "" {
		parts = append(parts, "session "+st.SessionID)
	} else {
		parts = append(parts, "new session")
	}
	return strings.Join(parts, " · ")
}

// Notices returns what the user must hear once, from the first engine.
func (c *Controller) Notices() []string { return c.notices }

// Workspace returns the folder the engine works in ("" when unknown).
func (c *Controller) Workspace() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.eng == nil {
		return ""
	}
	return c.eng.Workspace
}

// Running reports whether a turn is running.
func (c *Controller) Running() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.running
}

// Run takes one prompt through a turn of the current session (starting
// one at the first prompt), with the files it attaches (Attach), the
// output of the user's !commands since the last turn, and the session's
// waiting mail; with no prompt and no mail it runs none. Cancel ctx to
// cancel the turn.
func (c *Controller) Run(ctx context.Context, prompt string, atts ...Attachment) (agent.Result, error) {
	c.mu.Lock()
	if c.running {
		c.mu.Unlock()
		return agent.Result{}, ErrBusy
	}
	if c.eng == nil {
		c.mu.Unlock()
		return agent.Result{}, errors.New("tui: the chat is closed")
	}
	in := agent.RunInput{SessionID: c.sessionID, Prompt: prompt, Reset: c.resetNext, Sink: c.sink}
	if prompt != "" {
		in.Notes = c.notes
		for _, a := range atts {
			in.Attach = append(in.Attach, a.Part)
		}
	}
	eng := c.eng
	c.resetNext = false
	c.running = true
	c.turns.Add(1)
	c.mu.Unlock()
	defer c.turns.Done()

	var (
		res agent.Result
		err error
	)
	if c.mail != nil && in.SessionID != "" {
		in.Mail, err = c.mail.Claim(ctx, in.SessionID)
	}
	if err == nil && (in.Prompt != "" || len(in.Mail) > 0) {
		res, err = eng.Runtime.Run(ctx, in)
		if res.Turn == 0 && len(in.Mail) > 0 {
			c.mail.Release(ctx, in.SessionID, in.Mail, err)
		}
	}
	if c.mail != nil && in.SessionID == "" && res.SessionID != "" {
		// A new session: hold it now, not at its second turn's Claim,
		// which reports a process that took it first.
		_ = c.mail.Hold(context.WithoutCancel(ctx), res.SessionID)
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	c.running = false
	if res.SessionID != "" {
		c.sessionID = res.SessionID
	}
	if res.Turn == 0 && in.Reset {
		c.resetNext = true // the turn never started: keep the request
	}
	if res.Turn > 0 && len(in.Notes) > 0 {
		c.notes = c.notes[len(in.Notes):] // sent; a !command since stays
	}
	return res, err
}

// Observe updates the figures from an event of the current engine.
func (c *Controller) Observe(e agent.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch e.Type {
	case agent.EventSessionStarted:
		if e.SessionID != "" && e.SessionID != c.sessionID {
			c.sessionID = e.SessionID
		}
		if e.Session != nil {
			c.stats.segment = e.Session.Segment
		}
	case agent.EventModelRequest:
		if e.Request != nil {
			r := *e.Request
			c.stats.lastReq = &r
			c.stats.segment = r.Segment
		}
	case agent.EventModelResponse:
		if e.Response != nil {
			c.stats.usage.Add(e.Response.Usage)
			c.stats.cost += e.Response.Cost
		}
	case agent.EventSegmentReset:
		if e.Reset != nil {
			c.stats.segment = e.Reset.To
		}
	}
}

// Status is what the status line shows.
type Status struct {
	Model     string
	SessionID string
	Segment   int
	// ContextTokens is the size of the last request; ContextWindow the
	// model's window (0: unknown).
	ContextTokens int
	ContextWindow int
	Estimated     bool
	// Usage and Cost are the session's totals.
	Usage        llm.Usage
	Cost         float64
	ResetPending bool
	// Mode is the approval mode ("read-only", "ask", "auto"); "" when the
	// chat cannot switch it.
	Mode string
}

// Status returns the current figures.
func (c *Controller) Status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := Status{SessionID: c.sessionID, Segment: c.stats.segment, Usage: c.stats.usage, Cost: c.stats.cost, ResetPending: c.resetNext}
	if c.eng != nil {
		s.Model, s.ContextWindow = c.eng.Model, c.eng.ContextWindow
	}
	if r := c.stats.lastReq; r != nil {
		s.ContextTokens, s.Estimated = r.Tokens, r.Estimated
	}
	if c.mode != nil {
		s.Mode = c.mode.Get().String()
	}
	return s
}

// Mode returns the approval mode in force, and false when the chat
// cannot switch it.
func (c *Controller) Mode() (policy.Mode, bool) {
	if c.mode == nil {
		return policy.ReadOnly, false
	}
	return c.mode.Get(), true
}

// SetMode switches the approval mode from the next call on, and keeps
// it with the session for a resumed chat.
func (c *Controller) SetMode(m policy.Mode) error {
	if c.mode == nil {
		return errors.New("tui: this chat's mode is fixed: start it with --allow-write (ask) or --yes (auto)")
	}
	c.mode.Set(m)
	c.record(context.Background())
	return nil
}

// engine returns the current engine under the lock.
func (c *Controller) engine() (*Engine, string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.eng == nil {
		return nil, "", errors.New("tui: the chat is closed")
	}
	return c.eng, c.sessionID, nil
}

// load makes id the current session and reads its figures from the store.
func (c *Controller) load(ctx context.Context, id string) error {
	eng, _, err := c.engine()
	if err != nil {
		return err
	}
	calls, err := eng.Store.ModelCalls(ctx, id)
	if err != nil {
		return err
	}
	segs, err := eng.Store.Segments(ctx, id)
	if err != nil {
		return err
	}
	var st stats
	for _, mc := range calls {
		st.usage.Add(mc.Usage)
		st.cost += mc.Cost
	}
	if n := len(calls); n > 0 {
		last := calls[n-1]
		r := &agent.RequestInfo{Provider: last.Provider, Model: last.Model, Segment: last.Segment, Bytes: last.RequestBytes, Parts: last.Parts}
		for _, p := range last.Parts {
			r.Tokens += p.Tokens
		}
		st.lastReq = r
		st.segment = last.Segment
	}
	if n := len(segs); n > 0 {
		st.segment = segs[n-1].Seq
	}
	c.mu.Lock()
	c.sessionID, c.stats, c.resetNext = id, st, false
	c.mu.Unlock()
	return nil
}

// History returns the recorded events of the current session, oldest
// first, to redraw its transcript (deltas are not recorded: the
// model.response events carry the text).
func (c *Controller) History(ctx context.Context) ([]agent.Event, error) {
	eng, id, err := c.engine()
	if err != nil || id == "" {
		return nil, err
	}
	recs, err := eng.Store.Events(ctx, id)
	if err != nil {
		return nil, err
	}
	evs := make([]agent.Event, 0, len(recs))
	for _, r := range recs {
		var e agent.Event
		if err := json.Unmarshal(r.Data, &e); err != nil {
			continue // a record from another version; the rest still shows
		}
		evs = append(evs, e)
	}
	return evs, nil
}

// sameWorkspace refuses a session recorded in another workspace: its
// files are not the ones this engine's tools see.
func sameWorkspace(sess store.Session, eng *Engine) error {
	if eng.Workspace == "" || sess.Workspace == "" || sess.Workspace == eng.Workspace {
		return nil
	}
	return fmt.Errorf("tui: session %s works in %s, not here (%s): continue it there, with godwit -C %s chat --session %s", sess.ID, sess.Workspace, eng.Workspace, sess.Workspace, sess.ID)
}

// ResolveSession finds a session by id, unique id prefix, or "last": the
// last session of workspace ("" for any).
func ResolveSession(ctx context.Context, st *store.Store, ref, workspace string) (store.Session, error) {
	if ref == "last" {
		s, err := st.LastSessionIn(ctx, workspace)
		if errors.Is(err, store.ErrNotFound) {
			return s, errors.New("tui: no session recorded in this workspace yet: start one by sending a prompt (`godwit sessions --all` lists other workspaces')")
		}
		return s, err
	}
	// Session resolves a unique id prefix itself, and says which sessions
	// an ambiguous one matches.
	s, err := st.Session(ctx, ref)
	if errors.Is(err, store.ErrNotFound) {
		return s, fmt.Errorf("tui: no session %q: :sessions (or `godwit sessions`) lists them", ref)
	}
	return s, err
}

// ToolOutput returns the whole recorded output of a tool call of the
// current session (events carry only its start).
func (c *Controller) ToolOutput(ctx context.Context, callID string) (string, error) {
	eng, id, err := c.engine()
	if err != nil {
		return "", err
	}
	calls, err := eng.Store.ToolCalls(ctx, id)
	if err != nil {
		return "", err
	}
	for i := len(calls) - 1; i >= 0; i-- {
		if calls[i].CallID == callID {
			return calls[i].Output, nil
		}
	}
	return "", fmt.Errorf("tui: no recorded output for call %s", callID)
}
