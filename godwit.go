package godwit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/policy"
	"github.com/godwit/godwit/internal/wiring"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
)

// Re-exported types.
type (
	// Event is one step of a turn.
	Event = agent.Event
	// Result is a finished turn.
	Result = agent.Result
	// Approver decides whether a write or command may run.
	Approver = tool.Approver
	// ApprovalRequest is what an Approver is asked.
	ApprovalRequest = tool.ApprovalRequest
	// Decision is an Approver's answer.
	Decision = tool.Decision
	// Provider answers model requests; set Options.Provider to use your
	// own (or llm/fake's scripted one in tests).
	Provider = llm.Provider
	// Mode is how much the agent may do without asking.
	Mode = policy.Mode
	// Prompter asks a person about a write or command (Ask mode).
	Prompter = policy.Prompter
	// Question is what a Prompter is asked; Answer its reply.
	Question = policy.Question
	Answer   = policy.Answer
)

// Modes.
const (
	// ReadOnly (the default) refuses writes and commands that are not
	// read-only.
	ReadOnly = policy.ReadOnly
	// Ask asks the Prompter before each write or command.
	Ask = policy.Ask
	// Auto approves writes and commands, as `godwit run --yes` does.
	Auto = policy.Auto
)

// Common event types; agent lists them all.
const (
	EventSessionStarted = agent.EventSessionStarted
	EventTurnStarted    = agent.EventTurnStarted
	EventTextDelta      = agent.EventTextDelta
	EventToolStarted    = agent.EventToolStarted
	EventToolFinished   = agent.EventToolFinished
	EventApproval       = agent.EventApproval
	EventError          = agent.EventError
	EventTurnFinished   = agent.EventTurnFinished
)

// Options configure an Agent.
type Options struct {
	// Workspace is the directory the agent works in. Required.
	Workspace string
	// Home holds the config and the database; "" means $GODWIT_HOME,
	// else ~/.godwit.
	Home string
	// Model is "provider/model"; "" takes the config's or GODWIT_MODEL.
	Model string
	// Provider, when set, answers instead of the one Model names.
	Provider Provider
	// Mode is the approval mode, as with the godwit command's flags;
	// rules files apply as they do there.
	Mode Mode
	// Prompter answers what Mode and the rules say to ask; nil refuses
	// it.
	Prompter Prompter
	// Approver, when set, decides every write and command instead of
	// Mode, Prompter and the rules.
	Approver Approver
	// MaxSteps bounds model calls per turn; 0 is the default.
	MaxSteps int
	// Mail offers the model the send_message tool, to message other
	// sessions of the workspace; without it the tool is offered once mail
	// is in use there (a session has mail, or is served).
	Mail bool
	// Getenv reads the environment (API keys); nil means os.Getenv.
	Getenv func(string) string
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
}

// Agent is an open engine. Its methods are safe for concurrent use;
// several sessions may run turns at once.
type Agent struct {
	env *wiring.Env
}

// Open builds an Agent. Close it when done.
func Open(ctx context.Context, opts Options) (*Agent, error) {
	if opts.Workspace == "" {
		return nil, errors.New("godwit: Options.Workspace is required: the directory the agent works in")
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Home == "" {
		h, err := defaultHome(opts.Getenv)
		if err != nil {
			return nil, err
		}
		opts.Home = h
	}
	env, err := wiring.Build(ctx, wiring.Options{
		Home: opts.Home, Workspace: opts.Workspace, Model: opts.Model, Provider: opts.Provider,
		Approval: wiring.Approval{Mode: opts.Mode, Prompter: opts.Prompter, Approver: opts.Approver}, Getenv: opts.Getenv, MaxSteps: opts.MaxSteps, Logger: opts.Logger,
		Mail: opts.Mail,
	})
	if err != nil {
		return nil, fmt.Errorf("godwit: %w", err)
	}
	return &Agent{env: env}, nil
}

func defaultHome(getenv func(string) string) (string, error) {
	if h := getenv("GODWIT_HOME"); h != "" {
		return filepath.Abs(h)
	}
	dir, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("godwit: no home directory; set Options.Home: %w", err)
	}
	return filepath.Join(dir, ".godwit"), nil
}

// Close stops background work and closes the database.
func (a *Agent) Close() error { return a.env.Close() }

// Model returns the "provider/model" in use.
func (a *Agent) Model() string { return a.env.Model }

// Workspace returns the workspace's absolute path.
func (a *Agent) Workspace() string { return a.env.Workspace }

// NewSession returns a session that is stored with its first message.
func (a *Agent) NewSession() *Session { return &Session{a: a} }

// Resume returns the stored session whose id is id or starts with it.
func (a *Agent) Resume(ctx context.Context, id string) (*Session, error) {
	sess, err := a.env.Store.Session(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("godwit: %w", err)
	}
	return &Session{a: a, id: sess.ID}, nil
}
