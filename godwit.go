package godwit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/godwit/godwit/internal/policy"
	"github.com/godwit/godwit/internal/wiring"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
)

// The types of the public packages llm and tool that the SDK takes.
type (
	// Provider answers model requests; set Options.Provider to use your
	// own (or llm/fake's scripted one in tests).
	Provider = llm.Provider
	// Approver decides whether a write or command may run.
	Approver = tool.Approver
	// ApprovalRequest is what an Approver is asked.
	ApprovalRequest = tool.ApprovalRequest
	// Decision is an Approver's answer.
	Decision = tool.Decision
)

// Mode is how much the agent may do without asking.
type Mode int

// Modes.
const (
	// ReadOnly (the default) refuses writes and commands that are not
	// read-only.
	ReadOnly Mode = iota
	// Ask asks the Prompter before each write or command.
	Ask
	// Auto approves writes and commands, as `godwit run --yes` does.
	Auto
)

// String is read-only, ask or auto.
func (m Mode) String() string { return m.policy().String() }

func (m Mode) policy() policy.Mode {
	switch m {
	case Ask:
		return policy.Ask
	case Auto:
		return policy.Auto
	}
	return policy.ReadOnly
}

// Prompter asks a person about a write or command (Ask mode, a read of
// a secret). Ask may block until the person answers and must honour ctx;
// it is asked one question at a time.
type Prompter interface {
	Ask(ctx context.Context, q Question) (Answer, error)
}

// Question is what a Prompter is asked.
type Question struct {
	Tool string
	// Summary is the call in one line ("write main.go", "run: go test").
	Summary string
	// Preview is the detail to show: the diff of an edit, the start of a
	// written file, the full command.
	Preview string
	// Reasons say why approval is needed, one line each.
	Reasons []string
	// Always describes what AllowAlways allows for the rest of the
	// session; empty when it is not offered.
	Always []string
}

// Answer is a person's reply.
type Answer struct {
	Choice Choice
	Note   string
}

// Choice is what a person chose.
type Choice int

// Choices.
const (
	Deny        Choice = iota // deny this call
	Allow                     // allow this call
	AllowAlways               // allow this call and Question.Always for the session
)

// asker puts a Prompter where the policy asks.
type asker struct{ p Prompter }

func (a asker) Ask(ctx context.Context, q policy.Question) (policy.Answer, error) {
	// The SDK offers no refused call to allow once (policy.Options.Offer),
	// so q.ReadOnly is never set.
	ans, err := a.p.Ask(ctx, Question{Tool: q.Tool, Summary: q.Summary, Preview: q.Preview, Reasons: q.Reasons, Always: q.Always})
	c := policy.No
	switch ans.Choice {
	case Allow:
		c = policy.Yes
	case AllowAlways:
		c = policy.Always
	}
	return policy.Answer{Choice: c, Note: ans.Note}, err
}

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
		h, err := wiring.Home(opts.Getenv)
		if err != nil {
			return nil, fmt.Errorf("godwit: set Options.Home: %w", err)
		}
		opts.Home = h
	}
	approval := wiring.Approval{Mode: opts.Mode.policy(), Approver: opts.Approver}
	if opts.Prompter != nil {
		approval.Prompter = asker{opts.Prompter}
	}
	env, err := wiring.Build(ctx, wiring.Options{
		Home: opts.Home, Workspace: opts.Workspace, Model: opts.Model, Provider: opts.Provider, Approval: approval,
		Getenv: opts.Getenv, MaxSteps: opts.MaxSteps, Logger: opts.Logger, Mail: opts.Mail,
	})
	if err != nil {
		return nil, fmt.Errorf("godwit: %w", err)
	}
	return &Agent{env: env}, nil
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
