package acp

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/policy"
	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/llm"
)

// Mode is the session's approval mode: godwit's policy in one of its
// three modes, as `godwit run` applies it.
type Mode string

const (
	// ModeReadOnly refuses writes and commands that do not only read;
	// reads of secrets or outside the workspace ask. Commands run with no
	// write access and no network.
	ModeReadOnly Mode = "read-only"
	// ModeAsk asks the user (session/request_permission) before each
	// write and each command that does not only read, unless a rule
	// allows it.
	ModeAsk Mode = "ask"
	// ModeAuto allows writes and commands in the workspace; deny and ask
	// rules still hold, and writes outside the workspace still ask.
	ModeAuto Mode = "auto"
)

func (m Mode) valid() bool { return m == ModeReadOnly || m == ModeAsk || m == ModeAuto }

// policy is the policy mode m names; an unknown mode is read-only.
func (m Mode) policy() policy.Mode {
	switch m {
	case ModeAsk:
		return policy.Ask
	case ModeAuto:
		return policy.Auto
	}
	return policy.ReadOnly
}

var modes = []sdk.SessionMode{
	{Id: sdk.SessionModeId(ModeReadOnly), Name: "Read only", Description: sdk.Ptr("Reads, searches and read-only commands; writes and other commands are refused.")},
	{Id: sdk.SessionModeId(ModeAsk), Name: "Ask", Description: sdk.Ptr("Asks before each write and each command that changes anything.")},
	{Id: sdk.SessionModeId(ModeAuto), Name: "Auto", Description: sdk.Ptr("Writes and runs commands in the project without asking; deny and ask rules still hold.")},
}

// session is one ACP session: its engine, mode and the tool calls of the
// running turn. It is its turns' agent.Sink, its engine's policy's
// Prompter, and the gate in front of the policy.
type session struct {
	srv *server
	id  string
	eng *Engine

	// turn is held while a prompt runs: one turn at a time, and close
	// waits for the running one.
	turn sync.Mutex

	mu          sync.Mutex // guards the fields below
	mode        Mode
	asks        int              // questions that came with no call
	calls       map[string]*call // by the model's call id
	shown       map[string]int   // calls shown this session, by the model's call id
	textStep    int              // model call that last sent text (paragraph)
	thoughtStep int
	cancel      context.CancelFunc // ends the running turn
	stored      bool               // the store holds the session
	closed      bool

	// What usage_update reports: the tokens of the context after the
	// last step's model call, and the session's cost so far.
	used     int
	reqUsed  int // the last step's request, as godwit counted it
	cost     float64
	mailStop func() // ends the mail loop (acp/mail.go)
}

func (s *session) modeState() *sdk.SessionModeState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return &sdk.SessionModeState{AvailableModes: modes, CurrentModeId: sdk.SessionModeId(s.mode)}
}

func (s *session) currentMode() Mode {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mode
}

// policyMode is the mode the policy and the sandbox follow, read at
// every call.
func (s *session) policyMode() policy.Mode { return s.currentMode().policy() }

func (s *session) setMode(m Mode) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mode = m
}

// prompt runs one turn and maps how it ended to a stop reason.
func (s *session) prompt(ctx context.Context, text string) (sdk.PromptResponse, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.turn.Lock()
	defer s.turn.Unlock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return sdk.PromptResponse{}, notFound("acp: session %s is closed: load it again with session/load", s.id)
	}
	s.cancel = cancel
	s.mu.Unlock()
	defer s.endTurn()

	if err := s.ensureStored(ctx); err != nil {
		return sdk.PromptResponse{}, internal(err)
	}
	res, err := s.eng.Runtime.Run(ctx, agent.RunInput{SessionID: s.id, Prompt: text, Sink: s})
	switch {
	case errors.Is(err, agent.ErrCancelled) || ctx.Err() != nil:
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled, Usage: usage(res.Usage)}, nil
	case errors.Is(err, agent.ErrStepLimit):
		return sdk.PromptResponse{StopReason: sdk.StopReasonMaxTurnRequests, Usage: usage(res.Usage)}, nil
	case errors.Is(err, agent.ErrRepeated) || errors.Is(err, agent.ErrVerifyFailed):
		// The model answered or gave up; say why the turn stopped.
		s.srv.notify(s.id, sdk.UpdateAgentMessageText("\n\n"+s.srv.opts.Explain(err)))
		return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn, Usage: usage(res.Usage)}, nil
	case err != nil:
		return sdk.PromptResponse{}, internal(explained{err, s.srv.opts.Explain(err)})
	}
	return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn, Usage: usage(res.Usage)}, nil
}

// ensureStored records the session under the id session/new returned,
// before its first turn: the agent loads it from there, and a later
// session/load finds it by that id.
func (s *session) ensureStored(ctx context.Context) error {
	s.mu.Lock()
	done := s.stored
	s.mu.Unlock()
	if done {
		return nil
	}
	now := time.Now()
	st := s.eng.Store
	err := st.CreateSession(ctx, store.Session{ID: s.id, Workspace: s.eng.Workspace, Model: s.eng.Model, CreatedAt: now, UpdatedAt: now})
	if err != nil {
		return fmt.Errorf("acp: recording session %s: %w", s.id, err)
	}
	if err := st.StartSegment(ctx, s.id, 1, "start"); err != nil {
		return fmt.Errorf("acp: recording session %s: %w", s.id, err)
	}
	s.mu.Lock()
	s.stored = true
	s.mu.Unlock()
	s.startMail()
	return nil
}

func (s *session) endTurn() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cancel = nil
	s.textStep, s.thoughtStep = 0, 0
	clear(s.calls)
}

func (s *session) cancelTurn() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		s.cancel()
	}
}

// close ends the running turn, waits for it, and releases the engine.
func (s *session) close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	if s.cancel != nil {
		s.cancel()
	}
	s.mu.Unlock()
	s.stopMail()
	s.turn.Lock()
	defer s.turn.Unlock()
	if s.eng.Close == nil {
		return nil
	}
	if err := s.eng.Close(); err != nil {
		return fmt.Errorf("acp: closing session %s: %w", s.id, err)
	}
	return nil
}

// promptText flattens the prompt's content blocks into one user message:
// text as is, a linked file as its path, an embedded file with its text.
// Images and audio are not supported (the capabilities say so).
func promptText(blocks []sdk.ContentBlock) string {
	var parts []string
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			parts = append(parts, b.Text.Text)
		case b.ResourceLink != nil:
			parts = append(parts, "@"+uriPath(b.ResourceLink.Uri))
		case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil:
			r := b.Resource.Resource.TextResourceContents
			parts = append(parts, fmt.Sprintf("<file path=%q>\n%s\n</file>", uriPath(r.Uri), strings.TrimRight(r.Text, "\n")))
		}
	}
	return strings.TrimSpace(strings.Join(parts, "\n"))
}

// uriPath is the path a file URI names, decoded, with its lines
// (#L10:20, as Zed sends a selection); other URIs stay as they are.
func uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return uri
	}
	if u.Fragment != "" {
		return u.Path + "#" + u.Fragment
	}
	return u.Path
}

func usage(u llm.Usage) *sdk.Usage {
	if u == (llm.Usage{}) {
		return nil
	}
	out := &sdk.Usage{
		InputTokens:  int(u.InputTokens),
		OutputTokens: int(u.OutputTokens),
		TotalTokens:  int(u.InputTokens + u.OutputTokens),
	}
	if u.CacheReadTokens > 0 {
		out.CachedReadTokens = sdk.Ptr(int(u.CacheReadTokens))
	}
	if u.CacheWriteTokens > 0 {
		out.CachedWriteTokens = sdk.Ptr(int(u.CacheWriteTokens))
	}
	if u.ReasoningTokens > 0 {
		out.ThoughtTokens = sdk.Ptr(int(u.ReasoningTokens))
	}
	return out
}

// explained is a turn's error in the words Options.Explain gave it.
type explained struct {
	err  error
	text string
}

func (e explained) Error() string { return e.text }
func (e explained) Unwrap() error { return e.err }
