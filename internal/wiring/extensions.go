package wiring

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/mcp"
	"github.com/godwit/godwit/internal/policy"
	"github.com/godwit/godwit/internal/subagent"
	"github.com/godwit/godwit/internal/tool/deferred"
	"github.com/godwit/godwit/internal/window"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
)

// mcpStartWait is how long Build waits for MCP servers before the first
// tool table is fixed (the table never changes within a segment, so a
// later server joins at the next one); mcpWaitEnv, a duration such as
// 30s, sets it for servers slow to start.
const (
	mcpStartWait = 5 * time.Second
	mcpWaitEnv   = "GODWIT_MCP_WAIT"
)

// extensions are what MCP servers and deferred tools add to a session.
type extensions struct {
	// mcp runs the servers; nil without any configured.
	mcp *mcp.Manager
	// segment is the window's tool table and listing per segment.
	segment func(context.Context, string) ([]llm.ToolSpec, string)
	// notices are for Env.Notices: .mcp.json servers not started.
	notices []string
}

// extensions starts the MCP servers, if any, and sets up
// tools.deferred over every tool registered so far and those MCP
// servers offer later.
func (b *build) extensions(ctx context.Context) (extensions, error) {
	opts, cfg, root, reg := b.opts, b.cfg, b.ws.Root(), b.env.reg
	var ext extensions
	if n := mcp.HeldNotice(cfg.MCP.Held(root)); n != "" {
		ext.notices = append(ext.notices, n)
	}
	var late *lateTools
	if len(cfg.MCP.Servers) > 0 || len(cfg.MCP.Project) > 0 {
		late = &lateTools{reg: reg, log: opts.Logger}
		ext.mcp = startMCP(ctx, cfg.MCP, opts, root, late)
		b.env.closers = append(b.env.closers, ext.mcp.Close)
	}
	segment, table, err := deferTools(cfg.Tools.Deferred, reg, b.counter)
	if err != nil {
		return extensions{}, err
	}
	ext.segment = segment
	if late != nil {
		// MCP tools that arrive later join the next segment's table (or
		// listing).
		late.setTable(table)
	}
	return ext, nil
}

// startMCP starts the configured MCP servers, waits for them (up to
// mcpStartWait), and hands every ready server's tools to late, then and
// whenever one becomes ready or lists its tools anew. A failing server is
// logged, never fatal; once Build has its first table, a change of state
// is also an mcp.status event to opts.EngineEvents.
func startMCP(ctx context.Context, cfg mcp.Config, opts Options, root string, late *lateTools) *mcp.Manager {
	wait := mcpStartWait
	if v := opts.Getenv(mcpWaitEnv); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			wait = d
		} else {
			opts.Logger.Warn("mcp: "+mcpWaitEnv+" is not a duration such as 30s; waiting the default", "value", v, "wait", wait)
		}
	}
	mgr := mcp.Start(mcp.Options{Config: cfg, Workspace: root, Getenv: opts.Getenv, Logger: opts.Logger, Version: opts.Version,
		OnStatus: func(s mcp.Status) {
			if late.ready.Load() && opts.EngineEvents != nil {
				info := mcpInfo(s)
				opts.EngineEvents.Emit(agent.Event{Type: agent.EventMCPStatus, Time: time.Now(), MCP: &info})
			}
			if s.State == mcp.StateSkipped && s.Source == mcp.ProjectFile {
				// Env.Notices says it once, for all of them.
				opts.Logger.Info(s.String())
				return
			}
			if s.State != mcp.StateReady {
				opts.Logger.Warn(s.String())
				return
			}
			late.offer(s.Tools)
		}})
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	if err := mgr.Wait(wctx); err != nil {
		opts.Logger.Warn("mcp: some servers were not ready in time; their tools join at the next segment once they are", "wait", wait)
	}
	late.offer(mgr.Tools())
	late.ready.Store(true)
	return mgr
}

// lateTools takes MCP tools as their servers become ready: the runner
// runs them at once, the model sees them from the next segment on.
type lateTools struct {
	reg *tool.Registry
	log *slog.Logger

	table atomic.Pointer[deferred.Table] // set once tools.deferred has built it
	ready atomic.Bool                    // Build has its first table; later tools are news
}

func (l *lateTools) offer(ts []tool.Tool) {
	added := l.reg.Offer(ts...)
	if table := l.table.Load(); table != nil {
		table.Offer(ts...)
	}
	if l.ready.Load() && len(added) > 0 {
		l.log.Info("mcp: new tools join at the next segment", "tools", added)
	}
}

// mcpInfo is a server's status as events show it.
func mcpInfo(s mcp.Status) agent.MCPServerInfo {
	info := agent.MCPServerInfo{Name: s.Server, Source: s.Source, State: string(s.State), Tools: len(s.Tools)}
	if s.Err != nil {
		info.Error = s.Err.Error()
	}
	return info
}

// setTable hands later tools to the deferred table too, and the tools
// that arrived while it was being built.
func (l *lateTools) setTable(t *deferred.Table) {
	l.table.Store(t)
	t.Offer(l.reg.Tools()...)
}

// deferTools sets up tools.deferred: it registers the tool_call proxy
// and returns the window's per-segment table, in which tools used through
// the proxy join the table at the next segment. With off (the default)
// only send_message is deferred.
func deferTools(mode string, reg *tool.Registry, counter *window.Counter) (func(context.Context, string) ([]llm.ToolSpec, string), *deferred.Table, error) {
	m, err := deferred.ParseMode(mode)
	if err != nil {
		return nil, nil, fmt.Errorf("wiring: %w", err)
	}
	opts := deferred.Options{Mode: m, Count: counter.Count}
	if m == deferred.Off {
		// Off still defers send_message (deferred.AlwaysDeferred).
		opts.Mode = deferred.On
		opts.Deferrable = func(name string) bool { return name == deferred.AlwaysDeferred }
	}
	table, err := deferred.New(opts, reg.Tools()...)
	if err != nil {
		return nil, nil, fmt.Errorf("wiring: %w", err)
	}
	_, mails := reg.Get(deferred.AlwaysDeferred)
	if m != deferred.Off || mails {
		// With off and no send_message nothing is deferred: no proxy, so
		// the table and session.started name the same tools.
		if err := reg.Add(table.Proxy()); err != nil {
			return nil, nil, fmt.Errorf("wiring: %w", err)
		}
	}
	return func(_ context.Context, sessionID string) ([]llm.ToolSpec, string) {
		seg := table.Segment(sessionID)
		return seg.Tools, seg.Listing
	}, table, nil
}

// subagent builds the subagent tool: a read-only child session with
// the parent's read-only tools, a shell of its own for read-only
// commands (foreground only, in a read-only sandbox), its own context,
// and a read-only policy that asks nobody.
func (b *build) subagent(reg *tool.Registry) (*subagent.Tool, error) {
	m, st, root, log := b.model, b.env.Store, b.ws.Root(), b.opts.Logger
	childPol, err := policy.New(policy.Options{Mode: policy.ReadOnly, Workspace: root, Rules: b.guard.rules, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("wiring: subagent policy: %w", err)
	}
	sub, err := subagent.New(subagent.Options{Parent: reg, Store: st, Workspace: root, Model: m.ref(),
		Names: append(subagent.DefaultTools(), "search_memory"), Extra: []tool.Tool{b.shells.sub},
		New: func(_ context.Context, c subagent.Child) (*agent.Runtime, error) {
			return agent.New(agent.Config{Provider: m.Provider, ProviderName: m.ProviderName, Model: m.Model.ID, Store: st,
				Workspace: root, MaxSteps: c.MaxSteps, Cost: m.Model.Price.Cost, Logger: log,
				Assembler: window.New(window.Options{System: c.System, Tools: c.Tools.Specs(), Budget: b.budget, Counter: b.counter, Pages: storePages{st}, Logger: log}),
				Runner:    tool.NewRunner(c.Tools, tool.RunnerOptions{Approver: childPol, Logger: log})})
		}})
	if err != nil {
		return nil, fmt.Errorf("wiring: %w", err)
	}
	return sub, nil
}
