package subagent

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
)

//go:embed description.md
var description string

//go:embed system.md
var system string

// Name is the tool's model-facing name.
const Name = "subagent"

// Defaults.
const (
	// DefaultMaxSteps bounds the sub-agent's model calls.
	DefaultMaxSteps = 20
	// MaxReport caps the report handed back to the parent.
	MaxReport = 8 << 10
)

// System returns the sub-agent's default system prompt.
func System() string { return strings.TrimSpace(system) + "\n" }

// DefaultTools names the parent's tools a sub-agent gets.
func DefaultTools() []string { return []string{"file_read", "file_list", "grep", "recall"} }

// refused are tools a sub-agent must never get: they write, change the
// parent's state, or start another agent.
var refused = []string{"file_write", "file_edit", "plan", "tool_call", Name}

// Child is what a child runtime is built from.
type Child struct {
	// Tools is the sub-agent's registry.
	Tools *tool.Registry
	// System is its system prompt.
	System string
	// MaxSteps bounds its model calls per turn.
	MaxSteps int
}

// NewRuntime builds a child's Runtime. Wiring passes one that uses the
// parent's provider, model and store, a window over c.System and
// c.Tools.Specs(), and a runner over c.Tools with a read-only approver.
type NewRuntime func(ctx context.Context, c Child) (*agent.Runtime, error)

// Options configure the tool.
type Options struct {
	// Parent holds the parent's tools; the sub-agent gets those named
	// in Names. Required.
	Parent *tool.Registry
	// Names are the tools to take from Parent; nil means DefaultTools.
	Names []string
	// Extra are tools for the sub-agent alone (a shell_exec of its own
	// under a read-only approver, say).
	Extra []tool.Tool
	// Store records the child sessions. Required.
	Store Sessions
	// New builds the child runtime. Required.
	New NewRuntime
	// Workspace and Model label the child sessions.
	Workspace string
	Model     string
	// MaxSteps bounds the sub-agent; 0 means DefaultMaxSteps.
	MaxSteps int
}

// Sessions is where child sessions are recorded before they run (a
// *store.Store; the child's runtime records the rest).
type Sessions interface {
	CreateSession(ctx context.Context, sess store.Session) error
	StartSegment(ctx context.Context, sessionID string, seq int, reason string) error
}

// Tool is the subagent tool. It is safe for concurrent use: parallel
// calls run as separate child sessions.
type Tool struct {
	opts Options
	reg  *tool.Registry

	mu     sync.Mutex // guards the runtimes, built on first use
	main   *agent.Runtime
	wrapUp *agent.Runtime
}

// New checks opts and returns the tool.
func New(opts Options) (*Tool, error) {
	switch {
	case opts.Parent == nil:
		return nil, errors.New("subagent: Options.Parent is required")
	case opts.Store == nil:
		return nil, errors.New("subagent: Options.Store is required")
	case opts.New == nil:
		return nil, errors.New("subagent: Options.New is required")
	}
	if opts.Names == nil {
		opts.Names = DefaultTools()
	}
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = DefaultMaxSteps
	}
	var tools []tool.Tool
	for _, name := range opts.Names {
		if slices.Contains(refused, name) {
			return nil, fmt.Errorf("subagent: a sub-agent must not get %s: it writes, changes the parent's state or starts an agent", name)
		}
		if t, ok := opts.Parent.Get(name); ok {
			tools = append(tools, t)
		}
	}
	for _, t := range opts.Extra {
		if slices.Contains(refused, t.Name()) {
			return nil, fmt.Errorf("subagent: a sub-agent must not get %s: it writes, changes the parent's state or starts an agent", t.Name())
		}
		tools = append(tools, t)
	}
	if len(tools) == 0 {
		return nil, fmt.Errorf("subagent: none of the tools %v is in the parent's registry; a sub-agent needs at least one", opts.Names)
	}
	guarded := make([]tool.Tool, len(tools))
	for i, t := range tools {
		guarded[i] = guard{t}
	}
	reg, err := tool.NewRegistry(guarded...)
	if err != nil {
		return nil, fmt.Errorf("subagent: %w", err)
	}
	return &Tool{opts: opts, reg: reg}, nil
}

// Registry returns the sub-agent's tools.
func (t *Tool) Registry() *tool.Registry { return t.reg }

// Name implements tool.Tool.
func (*Tool) Name() string { return Name }

// Spec implements tool.Tool.
func (*Tool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: Name, Description: strings.TrimSpace(description), Schema: json.RawMessage(
		`{"type":"object","properties":{"task":{"type":"string","description":"What to find out, with the context it needs."}},"required":["task"]}`)}
}

// wrapUpPrompt asks for the report when the step limit cut the
// investigation short.
const wrapUpPrompt = "You have used your steps. Do not call tools: write your report now from what you found, and say what is left open."

// Run implements tool.Tool.
func (t *Tool) Run(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	var a struct {
		Task string `json:"task"`
	}
	if err := json.Unmarshal(raw, &a); err != nil || strings.TrimSpace(a.Task) == "" {
		return tool.Result{}, tool.Errorf(tool.CodeBadArgs, `Send {"task": "what to find out"}.`, "subagent needs a task")
	}
	parent, _ := tool.SessionFrom(ctx)
	id, err := t.childSession(ctx, parent.ID, a.Task)
	if err != nil {
		return tool.Result{}, err
	}
	main, wrapUp, err := t.runtimes(ctx)
	if err != nil {
		return tool.Result{}, &tool.ToolError{Code: tool.CodeFailed, Message: err.Error(),
			Remedy: "Do not retry; investigate with your own tools.", Err: err}
	}
	ctx = withParent(ctx, parent)
	res, err := main.Run(ctx, agent.RunInput{SessionID: id, Prompt: a.Task, NoChecks: true})
	steps, note := res.Steps, ""
	if errors.Is(err, agent.ErrStepLimit) {
		note = fmt.Sprintf(", cut at its limit of %d steps", t.opts.MaxSteps)
		res, err = wrapUp.Run(ctx, agent.RunInput{SessionID: id, Prompt: wrapUpPrompt, NoChecks: true})
		steps += res.Steps
	}
	switch {
	case ctx.Err() != nil:
		return tool.Result{}, ctx.Err()
	case err != nil && res.Text == "":
		return tool.Result{}, &tool.ToolError{Code: tool.CodeFailed,
			Message: fmt.Sprintf("the sub-agent ended without a report: %v (its session is %s)", err, id),
			Remedy:  "Investigate with your own tools, or give the sub-agent a narrower task.", Err: err}
	}
	report := strings.TrimSpace(res.Text)
	if len(report) > MaxReport {
		report = strings.ToValidUTF8(report[:MaxReport], "") + "\n[report cut]"
	}
	return tool.Result{Content: fmt.Sprintf("%s\n[subagent session %s: %d steps%s]", report, id, steps, note)}, nil
}

// childSession records the child session before it runs, so that it
// carries its parent.
func (t *Tool) childSession(ctx context.Context, parent, task string) (string, error) {
	sess := store.Session{ID: store.NewID(), ParentID: parent, Title: title(task), Workspace: t.opts.Workspace, Model: t.opts.Model}
	if err := t.opts.Store.CreateSession(ctx, sess); err != nil {
		return "", fmt.Errorf("subagent: %w", err)
	}
	if err := t.opts.Store.StartSegment(ctx, sess.ID, 1, "start"); err != nil {
		return "", fmt.Errorf("subagent: %w", err)
	}
	return sess.ID, nil
}

func title(task string) string {
	task = strings.Join(strings.Fields(task), " ")
	if len(task) > 80 {
		task = strings.ToValidUTF8(task[:77], "") + "..."
	}
	return task
}

// runtimes builds the child runtimes on first use: one with the step
// limit, and one of two steps that only writes the report.
func (t *Tool) runtimes(ctx context.Context) (main, wrapUp *agent.Runtime, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.main == nil {
		if t.main, err = t.opts.New(ctx, Child{Tools: t.reg, System: System(), MaxSteps: t.opts.MaxSteps}); err != nil {
			return nil, nil, fmt.Errorf("subagent: building the child runtime: %w", err)
		}
	}
	if t.wrapUp == nil {
		if t.wrapUp, err = t.opts.New(ctx, Child{Tools: t.reg, System: System(), MaxSteps: 2}); err != nil {
			return nil, nil, fmt.Errorf("subagent: building the child runtime: %w", err)
		}
	}
	return t.main, t.wrapUp, nil
}
