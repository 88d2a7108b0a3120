package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/godwit/godwit/llm"
)

// DefaultConcurrency is how many calls of one response run at once.
const DefaultConcurrency = 5

// Runner executes the tool calls of one model response.
//
// Calls run in parallel, at most Concurrency at a time, each under the
// global lock (exclusive for Access.Exclusive calls) and then one RWMutex
// per declared path (write wins), taken in sorted order so two calls never
// deadlock. Outcomes come back in the model's order; a failing call never
// cancels its siblings.
//
// Approvals are asked one call at a time, in the model's order, before
// any call of the batch runs, so a denied write never races a read that
// depends on it. The Decision's Confine travels in the allowed call's
// context (ConfinementFrom).
//
// A Runner is safe for concurrent use; the path locks persist across
// batches.
type Runner struct {
	reg      *Registry
	approver Approver
	sem      chan struct{}
	log      *slog.Logger

	global sync.RWMutex

	mu    sync.Mutex // guards paths
	paths map[string]*sync.RWMutex
}

// RunnerOptions configure a Runner.
type RunnerOptions struct {
	// Approver gates mutating calls. Nil denies them all.
	Approver Approver
	// Concurrency bounds parallel calls; 0 means DefaultConcurrency.
	Concurrency int
	// Logger receives panics recovered from tools; nil discards.
	Logger *slog.Logger
}

// NewRunner returns a runner over reg.
func NewRunner(reg *Registry, opts RunnerOptions) *Runner {
	n := opts.Concurrency
	if n <= 0 {
		n = DefaultConcurrency
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Runner{
		reg:      reg,
		approver: opts.Approver,
		sem:      make(chan struct{}, n),
		log:      log,
		paths:    make(map[string]*sync.RWMutex),
	}
}

// Registry returns the runner's tools.
func (r *Runner) Registry() *Registry { return r.reg }

// Observer hears about each call as it moves. Its methods are called from
// the runner's goroutines, possibly concurrently, and must not block long.
type Observer interface {
	// Approval is called after the Approver answered for a mutating call.
	Approval(call llm.ToolCall, access Access, d Decision)
	// Started is called once the call holds its locks and begins to run.
	Started(call llm.ToolCall, access Access)
	// Finished is called when the call has a result.
	Finished(o Outcome)
}

// Outcome is one call's result with what the runner learned about it.
type Outcome struct {
	Call     llm.ToolCall
	Access   Access
	Result   Result
	Decision *Decision // nil when no approval was needed
	Duration time.Duration
	// Err is set when the call failed in a way that ends the turn (Fatal,
	// or the approver itself failed).
	Err error
}

// Part returns the tool-result part the model reads.
func (o Outcome) Part() llm.Part {
	return llm.Part{Kind: llm.PartToolResult, ToolResult: &llm.ToolResult{
		CallID:  o.Call.ID,
		Name:    o.Call.Name,
		Content: o.Result.Content,
		IsError: o.Result.IsError,
	}}
}

// Run executes calls and returns their outcomes in the same order. It
// returns a non-nil error only when a call failed fatally; the outcomes
// are complete even then (calls not run carry a CANCELLED result).
func (r *Runner) Run(ctx context.Context, calls []llm.ToolCall, obs Observer) ([]Outcome, error) {
	if obs == nil {
		obs = nopObserver{}
	}
	out := make([]Outcome, len(calls))
	work := make([]Tool, len(calls)) // nil: the outcome is already known
	var fatal error

	// Phase 1, in order: resolve, validate, approve.
	for i, call := range calls {
		out[i].Call = call
		work[i] = r.prepare(ctx, &out[i], obs)
		if fatal == nil {
			fatal = out[i].Err
		}
	}

	// Phase 2, in parallel: run what was approved.
	var wg sync.WaitGroup
	for i := range calls {
		if work[i] == nil {
			obs.Finished(out[i])
			continue
		}
		if fatal != nil {
			out[i].Result = errorResult(&ToolError{Code: CodeCancelled, Message: "not run: the turn ended on an earlier error"})
			obs.Finished(out[i])
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case r.sem <- struct{}{}:
			case <-ctx.Done():
				out[i].Result = errorResult(AsToolError(ctx.Err()))
				obs.Finished(out[i])
				return
			}
			defer func() { <-r.sem }()
			r.execute(ctx, &out[i], work[i], obs)
			obs.Finished(out[i])
		}()
	}
	wg.Wait()
	for i := range out {
		if out[i].Err != nil && fatal == nil {
			fatal = out[i].Err
		}
	}
	return out, fatal
}

// prepare resolves, validates and approves o.Call, filling in o's
// Access and Decision. It returns the tool to run, or nil when o's
// Result (and Err, when the approver failed) is already the outcome.
func (r *Runner) prepare(ctx context.Context, o *Outcome, obs Observer) Tool {
	call := o.Call
	t, ok := r.reg.Get(call.Name)
	if !ok {
		o.Result = errorResult(Errorf(CodeUnknownTool,
			"Use one of: "+strings.Join(r.reg.Names(), ", ")+".",
			"no tool named %q", call.Name))
		return nil
	}
	args := llm.ArgsOrEmpty(call.Args)
	if !json.Valid(args) {
		o.Result = errorResult(Errorf(CodeBadArgs,
			"Send the arguments as one JSON object matching the tool's schema.",
			"arguments are not valid JSON: %.200s", string(call.Args)))
		return nil
	}
	if a, ok := t.(Accessor); ok {
		acc, err := a.Access(args)
		if err != nil {
			o.Result = errorResult(AsToolError(err))
			return nil
		}
		o.Access = acc
	}
	name := call.Name
	if o.Access.Tool != "" {
		name = o.Access.Tool
	}
	if !o.Access.Mutates {
		rs, ok := r.approver.(ReadScreener)
		if !ok || !rs.NeedsApproval(name, o.Access) {
			return t
		}
	}
	d := Decision{Reason: "no approver is configured"}
	if r.approver != nil {
		var err error
		d, err = r.approver.Approve(ctx, ApprovalRequest{CallID: call.ID, Tool: name, Args: args, Access: o.Access})
		if err != nil {
			if ctx.Err() != nil {
				o.Result = errorResult(AsToolError(ctx.Err()))
				return nil
			}
			o.Result = errorResult(&ToolError{Code: CodeDenied, Message: "approval failed: " + err.Error()})
			o.Err = fmt.Errorf("tool: approving %s: %w", call.Name, err)
			return nil
		}
	}
	o.Decision = &d
	obs.Approval(call, o.Access, d)
	if !d.Allow {
		remedy := "Do not retry the same call; ask the user or take another approach."
		o.Result = errorResult(&ToolError{Code: CodeDenied, Message: denial(d), Remedy: remedy})
		return nil
	}
	return t
}

func denial(d Decision) string {
	if d.Reason == "" {
		return "the user denied this call"
	}
	return "denied: " + d.Reason
}

func (r *Runner) execute(ctx context.Context, o *Outcome, t Tool, obs Observer) {
	unlock := r.lock(o.Access)
	defer unlock()
	start := time.Now()
	obs.Started(o.Call, o.Access)
	if o.Decision != nil {
		// The decision travels with the call: a tool that starts
		// processes sandboxes them as the approver said.
		ctx = WithConfinement(ctx, o.Decision.Confine)
	}
	// So does what was judged: a file tool opens the paths judged.
	ctx = WithAccess(ctx, o.Access)
	if po, ok := obs.(ProgressObserver); ok {
		call := o.Call
		ctx = WithProgress(ctx, func(pr Progress) { po.Progress(call, pr) })
	}
	res, err := r.safeRun(WithCallID(ctx, o.Call.ID), t, llm.ArgsOrEmpty(o.Call.Args))
	o.Duration = time.Since(start)
	switch {
	case err != nil && IsFatal(err):
		o.Err = err
		o.Result = errorResult(AsToolError(err))
	case err != nil:
		keep := res
		o.Result = errorResult(AsToolError(err))
		o.Result.ExitCode, o.Result.Changed, o.Result.Notice = keep.ExitCode, keep.Changed, keep.Notice
	default:
		o.Result = res
	}
	if o.Decision != nil && o.Decision.Manual {
		o.Result.Content = strings.TrimRight(o.Result.Content, "\n") + "\n" + ManualApprovalNote
	}
}

func (r *Runner) safeRun(ctx context.Context, t Tool, args json.RawMessage) (res Result, err error) {
	defer func() {
		if v := recover(); v != nil {
			r.log.Error("tool panicked", "tool", t.Name(), "panic", v, "stack", string(debug.Stack()))
			err = &ToolError{Code: CodeFailed, Message: fmt.Sprintf("the %s tool crashed: %v", t.Name(), v),
				Remedy: "This is a bug in godwit, not in your call; try another approach."}
		}
	}()
	return t.Run(ctx, args)
}

// lock takes the call's locks and returns the function that releases them.
func (r *Runner) lock(a Access) (unlock func()) {
	if a.Exclusive {
		r.global.Lock()
		return r.global.Unlock
	}
	r.global.RLock()
	merged := make(map[string]bool, len(a.Paths))
	for _, p := range a.Paths {
		merged[p.Path] = merged[p.Path] || p.Write
	}
	keys := make([]string, 0, len(merged))
	for k := range merged {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	held := make([]func(), 0, len(keys))
	for _, k := range keys {
		m := r.pathLock(k)
		if merged[k] {
			m.Lock()
			held = append(held, m.Unlock)
		} else {
			m.RLock()
			held = append(held, m.RUnlock)
		}
	}
	return func() {
		for i := len(held) - 1; i >= 0; i-- {
			held[i]()
		}
		r.global.RUnlock()
	}
}

func (r *Runner) pathLock(p string) *sync.RWMutex {
	r.mu.Lock()
	defer r.mu.Unlock()
	m, ok := r.paths[p]
	if !ok {
		m = new(sync.RWMutex)
		r.paths[p] = m
	}
	return m
}

// errorResult renders a tool error as the model reads it: "ERROR "
// before what Error says.
func errorResult(te *ToolError) Result {
	return Result{Content: "ERROR " + te.Error(), IsError: true, Code: te.Code}
}

type nopObserver struct{}

func (nopObserver) Approval(llm.ToolCall, Access, Decision) {}
func (nopObserver) Started(llm.ToolCall, Access)            {}
func (nopObserver) Finished(Outcome)                        {}
