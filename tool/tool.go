package tool

import (
	"context"
	"encoding/json"

	"github.com/godwit/godwit/llm"
)

// Tool is one capability offered to the model.
//
// Run executes a call with the model's raw JSON arguments. A failure the
// model can correct (bad arguments, no match, a missing file) is returned
// as a *ToolError, or as an OS error that the runner maps through its
// errno; the runner turns both into an error result the model reads, and
// the turn goes on. Only a failure the model cannot fix should be wrapped
// with Fatal, which ends the turn. Run must honour ctx cancellation.
//
// Tools must be safe for concurrent use: the runner may run several calls
// of one tool at once (under the locks Access declares).
type Tool interface {
	Name() string
	Spec() llm.ToolSpec
	Run(ctx context.Context, args json.RawMessage) (Result, error)
}

// Accessor is implemented by tools that touch paths, write, or run
// commands. A tool that does not implement it is a pure reader with no
// declared paths: it takes the global lock shared and needs no approval.
type Accessor interface {
	// Access says what a call with these arguments will touch. It is
	// called before Run; an error here is reported to the model like a Run
	// error (typically BAD_ARGS).
	Access(args json.RawMessage) (Access, error)
}

// Access is what one call touches.
type Access struct {
	// Tool, when set, names the tool the call really runs (tool_call runs
	// a deferred tool); approval rules and "always" answers match on it.
	Tool string
	// Via names the tool the model called to run Tool (tool_call): rules
	// naming it hold for the call too.
	Via string
	// Paths are absolute, cleaned paths with their mode.
	Paths []PathAccess
	// Exclusive takes the global lock exclusively: the call overlaps no
	// other call (shell commands can touch anything).
	Exclusive bool
	// Mutates marks a call that changes the workspace or runs a command;
	// the runner asks the Approver before running it.
	Mutates bool
	// Command is the shell command a call runs, if any, for approval
	// rules and display.
	Command string
	// Summary is the one line an approval prompt shows ("write main.go",
	// "run: go test ./...").
	Summary string
	// Preview is optional detail for the approval prompt: a diff, the full
	// command.
	Preview string
}

type accessKey struct{}

// WithAccess returns ctx carrying a, the Access the runner judged for
// the call it runs.
func WithAccess(ctx context.Context, a Access) context.Context {
	return context.WithValue(ctx, accessKey{}, a)
}

// AccessFrom returns the Access the runner judged for this call, if it
// put one in ctx. A tool that resolves paths runs on the ones judged,
// not on its arguments resolved again: a command may have swapped a
// link in since, so the path it names now is not the one the approver
// allowed.
func AccessFrom(ctx context.Context) (Access, bool) {
	a, ok := ctx.Value(accessKey{}).(Access)
	return a, ok
}

// PathAccess is one path a call reads or writes.
type PathAccess struct {
	Path  string
	Write bool
	// Linked marks a file that had another hard link when Access looked:
	// the policy judges it as such, and a tool that finds another link
	// on the file it opens, where Access saw none, refuses it (a command
	// linked a file the rules name to this path since).
	Linked bool
}

// Result is a tool's answer.
type Result struct {
	// Content is what the model reads.
	Content string
	// IsError marks a failed call (set by the runner for errors).
	IsError bool
	// Code is the ToolError code for failed calls.
	Code string
	// ExitCode is a command's exit status, nil when the tool ran none.
	ExitCode *int
	// Diff is a unified diff of what the call changed, for display.
	Diff string
	// Changed lists workspace-relative files the call created, modified
	// or deleted.
	Changed []string
	// Notice is for the user, not the model: what a safety layer did
	// around the call (a git hook it restored). The agent reports it as
	// its own event; the model reads its own note in Content.
	Notice string
}

// Func adapts a function to Tool, for tests and tiny tools.
type Func struct {
	ToolSpec llm.ToolSpec
	Fn       func(ctx context.Context, args json.RawMessage) (Result, error)
	// AccessFn, when set, makes the Func an Accessor.
	AccessFn func(args json.RawMessage) (Access, error)
}

func (f *Func) Name() string       { return f.ToolSpec.Name }
func (f *Func) Spec() llm.ToolSpec { return f.ToolSpec }
func (f *Func) Run(ctx context.Context, args json.RawMessage) (Result, error) {
	return f.Fn(ctx, args)
}

// Access implements Accessor; without AccessFn the call is a plain read.
func (f *Func) Access(args json.RawMessage) (Access, error) {
	if f.AccessFn == nil {
		return Access{}, nil
	}
	return f.AccessFn(args)
}

// Wrap returns t with run in place of its Run, for a guard around a
// tool: the name, the spec and, when t has one, its Access stay t's.
func Wrap(t Tool, run func(ctx context.Context, args json.RawMessage) (Result, error)) Tool {
	w := &wrapped{Tool: t, run: run}
	if a, ok := t.(Accessor); ok {
		return &wrappedAccessor{w, a}
	}
	return w
}

type wrapped struct {
	Tool
	run func(ctx context.Context, args json.RawMessage) (Result, error)
}

func (w *wrapped) Run(ctx context.Context, args json.RawMessage) (Result, error) {
	return w.run(ctx, args)
}

type wrappedAccessor struct {
	*wrapped
	Accessor
}
