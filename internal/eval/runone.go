package eval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/policy"
	"github.com/godwit/godwit/internal/wiring"
	"github.com/godwit/godwit/llm"
)

// DefaultTimeout bounds one run when the task sets no limit.
const DefaultTimeout = 10 * time.Minute

// runOne runs one task once in a fresh workspace and home under root.
func runOne(ctx context.Context, root string, t *Task, run int, opts Options, real *wiring.ProviderModel) (rr RunResult) {
	start := time.Now()
	rr = RunResult{Task: t.Key(), TaskVersion: t.Version, Run: run}
	defer func() { rr.DurationMS = time.Since(start).Milliseconds() }()
	broke := func(format string, a ...any) RunResult {
		rr.Broken = true
		rr.Failures = append(rr.Failures, fmt.Sprintf(format, a...))
		return rr
	}

	timeout := time.Duration(t.Limits.Timeout)
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	// The path is in the system prompt: of one length for every run of a
	// task, so that runs count the same tokens.
	tmp := filepath.Join(root, fmt.Sprintf("%s-%d", t.ID, run))
	if err := os.Mkdir(tmp, 0o755); err != nil {
		return broke("creating the workspace: %v", err)
	}
	defer func() {
		if opts.Keep && !rr.Pass {
			rr.Workspace = tmp
			return
		}
		os.RemoveAll(tmp)
	}()
	ws, home := filepath.Join(tmp, "work"), filepath.Join(tmp, "home")
	before, err := setup(ctx, t, ws)
	if err != nil {
		return broke("setup: %v", err)
	}

	var brain *Brain
	rec := &recorder{}
	m := &metrics{r: &rr}
	model, window := "scripted", t.Limits.ContextWindow
	if real != nil {
		rec.Provider, model, m.price = real.Provider, real.ProviderName+"/"+real.Model.ID, real.Model.Price.Cost
		if window == 0 {
			window = real.Model.ContextWindow
		}
	} else {
		if brain, err = NewBrain(t.Key(), t.Model); err != nil {
			return broke("%v", err)
		}
		rec.Provider = brain.Provider()
	}
	env, err := wiring.Build(ctx, wiring.Options{
		Home: home, Workspace: ws, Model: model, Provider: rec,
		// As `run --yes`: the real policy and sandbox, writes and commands
		// approved; deny rules still hold.
		Approval: wiring.Approval{Mode: policy.Auto}, Getenv: opts.Getenv,
		MaxSteps: t.Limits.Steps, ContextWindow: window, Logger: opts.Logger,
	})
	if err != nil {
		return broke("building the engine: %v", err)
	}
	rr.Model = env.Model
	if real != nil {
		rr.Model = model
	}

	// The timeout bounds the turns and the checks, not the setup and the
	// engine's start, so a loaded machine does not fail a task before it
	// begins.
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var answer string
	var sid string
	turnsOK := true
	for i, turn := range t.Turns {
		if brain != nil {
			brain.SetTurn(i + 1)
		}
		res, err := env.Runtime.Run(runCtx, agent.RunInput{SessionID: sid, Prompt: turn.Say, Sink: m, Reset: turn.Reset, Verify: t.Verify})
		if res.SessionID != "" {
			sid = res.SessionID
		}
		rr.Turns = i + 1
		answer = res.Text
		if err != nil && runCtx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("the run passed its timeout of %s (limits.timeout): %w", timeout, err)
		}
		if err != nil {
			rr.Failures = append(rr.Failures, fmt.Sprintf("turn %d: %v", i+1, err))
			turnsOK = false
			break
		}
		if lim := t.Limits.Tokens; lim > 0 && m.total() > lim {
			rr.Failures = append(rr.Failures, fmt.Sprintf("turn %d: %d tokens used; the limit is %d", i+1, m.total(), lim))
			turnsOK = false
			break
		}
	}
	if err := env.Close(); err != nil {
		opts.Logger.Warn("eval: closing the engine", "task", t.Key(), "err", err)
	}
	first, last := rec.requests()
	rr.SystemHash, rr.ToolsHash = hashes(first, env.Workspace, ws, tmp)
	if turnsOK {
		rr.Failures = append(rr.Failures, t.check(runCtx, checkInput{ws: ws, answer: answer, last: last, before: before, run: &rr})...)
	}
	rr.Pass = len(rr.Failures) == 0
	return rr
}

// metrics is the run's event sink: it counts what the results report
// into the run's result. Events come only while a turn runs (see
// agent.Sink), when runOne does not touch the result.
type metrics struct {
	price func(llm.Usage) float64 // nil: take the engine's cost

	mu sync.Mutex
	r  *RunResult
}

func (m *metrics) Emit(e agent.Event) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch e.Type {
	case agent.EventModelRequest:
		m.r.PromptTokens += int64(e.Request.Tokens)
		m.r.MaxRequestTokens = max(m.r.MaxRequestTokens, e.Request.Tokens)
	case agent.EventModelResponse:
		u := e.Response.Usage
		m.r.Calls++
		m.r.InputTokens += u.InputTokens
		m.r.OutputTokens += u.OutputTokens
		m.r.CacheReadTokens += u.CacheReadTokens
		if m.price != nil {
			m.r.Cost += m.price(u)
		} else {
			m.r.Cost += e.Response.Cost
		}
	case agent.EventToolFinished:
		m.r.ToolCalls++
	case agent.EventSegmentReset:
		m.r.Resets++
		m.r.HandoffTokens = append(m.r.HandoffTokens, e.Reset.Tokens)
	case agent.EventCompacted:
		m.r.Compactions++
	}
}

func (m *metrics) total() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.r.TotalTokens()
}
