package wiring

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/config"
	"github.com/godwit/godwit/internal/mail"
	"github.com/godwit/godwit/internal/mcp"
	"github.com/godwit/godwit/internal/memory"
	"github.com/godwit/godwit/internal/policy"
	"github.com/godwit/godwit/internal/prompt"
	"github.com/godwit/godwit/internal/snapshot"
	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/tool/fs"
	"github.com/godwit/godwit/internal/tool/plan"
	"github.com/godwit/godwit/internal/tool/recall"
	"github.com/godwit/godwit/internal/tool/shell"
	"github.com/godwit/godwit/internal/tool/workspace"
	"github.com/godwit/godwit/internal/window"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/catalog"
	"github.com/godwit/godwit/tool"
)

// Options say what to build.
type Options struct {
	// Home is GODWIT_HOME (config, database). Required.
	Home string
	// Workspace is the directory the agent works in. Required.
	Workspace string
	// UserHome is the user's home folder, where other agents keep the
	// user's skills (~/.agents/skills, ~/.claude/skills, ~/.codex/skills);
	// empty leaves them out (evals and the SDK stay hermetic). The CLI
	// sets it.
	UserHome string
	// Model is "provider/model".
	Model string
	// Provider, when set, answers instead of the one Model names (the
	// demo's scripted model, tests).
	Provider llm.Provider
	// Mail offers the send_message tool (deferred) whether or not mail is
	// in use in the workspace yet; without it the tool joins once a
	// session there has mail or is served (godwit serve sets it).
	Mail bool
	// Mode is the approval mode: read-only (the default), ask
	// (--allow-write) or auto (--yes).
	Mode policy.Mode
	// LiveMode, when set, replaces Mode: it is read at every approval and
	// whenever a command starts, so the policy and the sandbox follow a
	// mode the user switches mid-session (an editor's session/set_mode).
	LiveMode func() policy.Mode
	// Prompter asks a person about a call (ask mode, secret reads); nil
	// means nobody can be asked, and what needs asking is denied.
	Prompter policy.Prompter
	// Gate, when set, is put in front of the policy: the runner asks
	// Gate(policy), which must pass every call on to the policy (an
	// editor shows each call before the policy judges it). Unlike
	// Approver it cannot take the policy's place, and the policy's
	// secrets screen stays even if the gate does not pass it on.
	Gate func(policy tool.Approver) tool.Approver
	// Approver, when set, replaces the policy (the demo's own sandboxed
	// repository, tests).
	Approver tool.Approver
	// EngineEvents receives the events that belong to no run: mcp.status
	// when an MCP server changes state after Build. They come from the
	// MCP servers' goroutines, between runs or during one. nil discards
	// them. A run's events go to its own RunInput.Sink, never here.
	EngineEvents agent.Sink
	// Getenv reads the environment (API keys); nil means os.Getenv.
	Getenv func(string) string
	// Files, when set, serves file_read, file_write and file_edit from an
	// editor's buffers (ACP); nil uses the disk.
	Files fs.Files
	// Terminal, when set, runs foreground shell commands in an editor's
	// terminal (ACP); nil runs them here.
	Terminal shell.Terminal
	// MaxSteps bounds model calls per turn; 0 is the default.
	MaxSteps int
	// ContextWindow overrides the model's window in tokens (tests, local
	// models); 0 takes config.yaml's context_window, then the catalog's.
	ContextWindow int
	// MCPWait is how long Build waits for MCP servers before the first
	// tool table is fixed; 0 is 5 s. Later servers join at the next
	// segment.
	MCPWait time.Duration
	// Version is godwit's, for session.started and MCP servers.
	Version string
	Logger  *slog.Logger
}

// Env is a built engine. Close it to stop background jobs and close the
// store.
type Env struct {
	Runtime   *agent.Runtime
	Store     *store.Store
	Workspace string
	Model     string
	Plan      *plan.Plan
	Catalog   *catalog.Catalog
	// ModelInfo is the catalog's entry for the model (zero for a
	// scripted provider).
	ModelInfo catalog.Model
	// Window assembles requests; its Budget says the partition in force.
	Window *window.Window
	// Memory serves project rules, memory files and skills per segment.
	Memory *memory.Source
	// Notices are what the user must hear once, at start, that no event
	// carries: today, a repository's .mcp.json servers that were not
	// started. The front end shows them (run: stderr or a notice event;
	// the chat: a line under the banner).
	Notices []string

	closers []func() error
	reg     *tool.Registry // the session's tools, MCP servers' as they come
}

// Close releases everything Build opened, in reverse order.
func (e *Env) Close() error {
	var errs []error
	for i := len(e.closers) - 1; i >= 0; i-- {
		errs = append(errs, e.closers[i]())
	}
	return errors.Join(errs...)
}

// DBPath is the store's file under home.
func DBPath(home string) string { return filepath.Join(home, "godwit.db") }

// Build assembles an engine.
func Build(ctx context.Context, opts Options) (_ *Env, err error) {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	ws, err := workspace.New(opts.Workspace)
	if err != nil {
		return nil, fmt.Errorf("wiring: workspace: %w", err)
	}
	env := &Env{Workspace: ws.Root()}
	defer func() {
		if err != nil {
			_ = env.Close()
		}
	}()

	cfg, err := config.Load(opts.Home, opts.Getenv)
	if err != nil {
		return nil, err
	}
	cat, err := cfg.Catalog()
	if err != nil {
		return nil, inputError(err)
	}
	if opts.Model == "" {
		opts.Model = cfg.Model
	}
	if opts.MaxSteps == 0 {
		opts.MaxSteps = cfg.MaxSteps
	}
	provider, providerName, model := opts.Provider, "", ""
	if provider == nil {
		if opts.Model == "" {
			return nil, inputError(errors.New("wiring: no model configured: name one with --model provider/model or GODWIT_MODEL"))
		}
		pm, err := NewProvider(cfg, cat, opts.Model, opts.Getenv, opts.Logger)
		if err != nil {
			return nil, err
		}
		if pm.Warning != "" {
			opts.Logger.Warn(pm.Warning)
		}
		provider, providerName, model = pm.Provider, pm.ProviderName, pm.Model.ID
		env.ModelInfo = pm.Model
	} else {
		providerName, model = splitModel(opts.Model, provider.Name())
	}
	env.Model = providerName + "/" + model
	env.Catalog = cat

	st, err := store.Open(ctx, DBPath(opts.Home), store.WithLogger(opts.Logger))
	if err != nil {
		return nil, fmt.Errorf("wiring: %w", err)
	}
	env.Store = st
	env.closers = append(env.closers, st.Close)
	sweepOrphans(ctx, st, shell.DefaultKillGrace, opts.Logger)
	track := trackProcs(st, opts.Logger)

	g, err := newGuard(opts, ws.Root(), st, &env.closers)
	if err != nil {
		return nil, err
	}
	secrets := keyNames(cat, cfg)
	sh := shell.New(shell.Options{Workdir: ws.Root(), Logger: opts.Logger, Terminal: opts.Terminal,
		Env: []string{"TMPDIR=" + g.tmp}, Secrets: secrets, Wrap: g.wrap, ReadOnlyWrap: g.readOnlyWrap, Track: track})
	shellTool, lastCheck := g.guardShell(snapshot.WatchTool(sh, g.watcher), sh)
	env.closers = append(env.closers, lastCheck, sh.Close)
	env.Plan = plan.New(plan.Options{})
	places := memory.SkillPlaces{Workspace: ws.Root(), Home: opts.Home, UserHome: opts.UserHome}
	if opts.UserHome != "" {
		places.CodexHome = opts.Getenv("CODEX_HOME")
	}
	mem := memory.NewSource(memory.SourceOptions{Workspace: ws.Root(), Home: opts.Home, UserHome: places.UserHome, CodexHome: places.CodexHome, Store: st, Logger: opts.Logger})
	env.Memory = mem
	embedder, err := newEmbedder(cfg.Memory.Embeddings, opts.Getenv)
	if err != nil {
		return nil, err
	}
	searcher, err := memory.NewSearcher(memory.SearchOptions{Store: st, Embedder: embedder, Logger: opts.Logger})
	if err != nil {
		return nil, fmt.Errorf("wiring: %w", err)
	}
	tools := append(fs.Tools(ws, fs.Options{Files: opts.Files, BeforeWrite: g.recorder.BeforeWrite, Hidden: g.hidden}),
		shellTool, env.Plan, recall.New(st), memory.NewSearchTool(searcher))
	if skills, _ := memory.Skills(places); len(skills) > 0 {
		tools = append(tools, memory.NewSkillTool(places))
	}
	reg, err := tool.NewRegistry(tools...)
	if err != nil {
		return nil, fmt.Errorf("wiring: %w", err)
	}
	counter := window.NewStoredCounter(opts.Logger, agent.StoreCounts(st))
	budget := window.Scaled(contextWindow(opts.ContextWindow, cfg.ContextWindow, env.ModelInfo.ContextWindow))
	subShell := shell.New(shell.Options{Workdir: ws.Root(), Logger: opts.Logger, NoJobs: true,
		Env: []string{"TMPDIR=" + g.tmp}, Secrets: secrets, Wrap: g.readOnlyWrap, Track: track})
	subTool, subCheck := g.guardShell(subShell, subShell)
	env.closers = append(env.closers, subCheck, subShell.Close)
	sub, err := newSubagent(reg, subagentDeps{provider: provider, providerName: providerName, model: model, store: st,
		root: ws.Root(), budget: budget, counter: counter, price: env.ModelInfo.Price.Cost, rules: g.rules, opts: opts, shell: subTool})
	if err != nil {
		return nil, err
	}
	if err := reg.Add(sub); err != nil {
		return nil, fmt.Errorf("wiring: %w", err)
	}
	if n := mcp.HeldNotice(cfg.MCP.Held(ws.Root())); n != "" {
		env.Notices = append(env.Notices, n)
	}
	// send_message costs every request its listing line and the
	// tool_call proxy, so it joins only where mail is used.
	inUse := opts.Mail
	if !inUse {
		if inUse, err = st.MailInUse(ctx, ws.Root()); err != nil {
			return nil, err
		}
	}
	if inUse {
		if err := reg.Add(mail.NewTool(mail.ToolOptions{Store: st, Workspace: ws.Root(), Allow: cfg.Mail.Allow})); err != nil {
			return nil, fmt.Errorf("wiring: %w", err)
		}
	}
	var late *lateTools
	var mgr *mcp.Manager
	if len(cfg.MCP.Servers) > 0 || len(cfg.MCP.Project) > 0 {
		wait := opts.MCPWait
		if wait <= 0 {
			wait = mcpStartWait
		}
		late = &lateTools{reg: reg, log: opts.Logger}
		mgr = startMCP(ctx, cfg.MCP, opts, ws.Root(), wait, late)
		env.closers = append(env.closers, mgr.Close)
	}
	segmentTools, table, err := deferTools(cfg.Tools.Deferred, reg, counter)
	if err != nil {
		return nil, err
	}
	if late != nil {
		// MCP tools that arrive later join the next segment's table (or
		// listing).
		late.setTable(table)
	}
	env.reg = reg
	runner := tool.NewRunner(reg, tool.RunnerOptions{Approver: g.approver, Logger: opts.Logger})

	system := prompt.System(prompt.Env{OS: runtime.GOOS, Shell: sh.Kind(), Workspace: ws.Root()})
	var summarize func(context.Context, llm.ToolCall, string) window.SummaryCall
	if cfg.SummaryModel != "" {
		// Like a fallback, the summary model is a spare: without its key,
		// outputs are summarised without it.
		sm, err := NewProvider(config.Config{}, cat, cfg.SummaryModel, opts.Getenv, opts.Logger)
		var ke *catalog.KeyError
		switch {
		case errors.As(err, &ke):
			opts.Logger.Warn(fmt.Sprintf("summary_model %s is skipped: %s is not set; paged outputs are summarised without a model", cfg.SummaryModel, ke.Env))
		case err != nil:
			return nil, fmt.Errorf("wiring: config.yaml: summary_model: %w", err)
		default:
			summarize = window.ModelSummarizer(sm.Provider, sm.ProviderName, sm.Model.ID, sm.Model.Price.Cost)
		}
	}
	win := window.New(window.Options{
		Summarize: summarize,
		Segment:   segmentTools,
		System:    system,
		Tools:     reg.Specs(),
		Budget:    budget,
		Counter:   counter,
		Pages:     agent.StorePages(st),
		Logger:    opts.Logger,
		Prefix: func(ctx context.Context) []window.Text {
			var out []window.Text
			for _, t := range mem.Texts(ctx) {
				out = append(out, window.Text{Part: t.Part, Body: t.Body})
			}
			return out
		},
	})
	env.Window = win

	env.Runtime, err = agent.New(agent.Config{
		Provider:     provider,
		ProviderName: providerName,
		Model:        model,
		Assembler:    win,
		Runner:       runner,
		Store:        st,
		Workspace:    ws.Root(),
		MaxSteps:     opts.MaxSteps,
		Reasoning:    env.ModelInfo.Reasoning,
		Verify:       shellVerifier(shellTool, opts.Logger),
		OpenPlan:     openPlan(env.Plan),
		SegmentNotes: func(context.Context) []string { return mem.Notes() },
		Cost:         env.ModelInfo.Price.Cost,
		About:        about(opts, places, reg, mgr),
		Logger:       opts.Logger,
	})
	if err != nil {
		return nil, fmt.Errorf("wiring: %w", err)
	}
	return env, nil
}

// about describes, at each session's start, what it runs with.
func about(opts Options, places memory.SkillPlaces, reg *tool.Registry, mgr *mcp.Manager) func() agent.SessionInfo {
	return func() agent.SessionInfo {
		mode := opts.Mode
		if opts.LiveMode != nil {
			mode = opts.LiveMode()
		}
		info := agent.SessionInfo{Version: opts.Version, Mode: mode.String(), Tools: reg.Names()}
		if mgr != nil {
			for _, s := range mgr.Statuses() {
				info.MCPServers = append(info.MCPServers, mcpInfo(s))
			}
		}
		skills, _ := memory.Skills(places)
		for _, s := range skills {
			info.Skills = append(info.Skills, s.Name)
		}
		return info
	}
}

// shellVerifier runs --verify commands through the shell tool, so they get
// the same process groups, timeouts, sandbox and git guard as the model's
// commands, without an approval: the user named the command (but the
// repository wrote what it runs).
func shellVerifier(sh tool.Tool, log *slog.Logger) agent.Verifier {
	return func(ctx context.Context, command string, timeout time.Duration) agent.VerifyOutcome {
		args, err := json.Marshal(map[string]any{"command": command, "timeout_s": int(timeout.Seconds())})
		if err != nil {
			return agent.VerifyOutcome{Err: err}
		}
		start := time.Now()
		res, err := sh.Run(ctx, args)
		if res.Notice != "" {
			log.Warn("--verify: " + res.Notice)
		}
		out := agent.VerifyOutcome{Output: res.Content, Duration: time.Since(start)}
		switch {
		case res.ExitCode != nil:
			out.ExitCode = *res.ExitCode
		case err != nil:
			out.Err = err
		default:
			out.Err = errors.New("the command ended without an exit status (killed by a signal)")
		}
		return out
	}
}

func openPlan(p *plan.Plan) func() []string {
	return func() []string {
		var open []string
		for _, st := range p.Open() {
			open = append(open, st.Text)
		}
		return open
	}
}

// newEmbedder builds the embeddings client config names, if any.
func newEmbedder(e config.EmbeddingsConfig, getenv func(string) string) (memory.Embedder, error) {
	if e.BaseURL == "" && e.Model == "" {
		return nil, nil
	}
	key := ""
	if e.APIKeyEnv != "" {
		if key = getenv(e.APIKeyEnv); key == "" {
			return nil, fmt.Errorf("wiring: memory.embeddings.api_key_env names %s, which is not set", e.APIKeyEnv)
		}
	}
	emb, err := memory.NewEmbedder(memory.EmbedderOptions{BaseURL: e.BaseURL, Model: e.Model, APIKey: key})
	if err != nil {
		return nil, fmt.Errorf("wiring: %w", err)
	}
	return emb, nil
}

// contextWindow picks the window: the flag, then the config, then the
// catalog, then window.Scaled's default.
func contextWindow(choices ...int) int {
	for _, n := range choices {
		if n > 0 {
			return n
		}
	}
	return 0
}

// splitModel names a caller-given provider's records: "provider/model",
// or the provider's own name and ref (or "scripted") as the model.
func splitModel(ref, fallbackProvider string) (provider, model string) {
	if p, m, ok := strings.Cut(ref, "/"); ok {
		return p, m
	}
	if ref == "" {
		ref = "scripted"
	}
	return fallbackProvider, ref
}

// keyNames lists the variables that hold provider keys (every
// provider's api_key_env, the embeddings key), for the shell to keep
// from commands along with every *_API_KEY.
func keyNames(cat *catalog.Catalog, cfg config.Config) []string {
	var out []string
	for _, p := range cat.Providers() {
		if p.APIKeyEnv != "" {
			out = append(out, p.APIKeyEnv)
		}
	}
	if k := cfg.Memory.Embeddings.APIKeyEnv; k != "" {
		out = append(out, k)
	}
	return out
}
