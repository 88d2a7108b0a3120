package wiring

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/config"
	"github.com/godwit/godwit/internal/mcp"
	"github.com/godwit/godwit/internal/memory"
	"github.com/godwit/godwit/internal/policy"
	"github.com/godwit/godwit/internal/prompt"
	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/tool/fs"
	"github.com/godwit/godwit/internal/tool/plan"
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
	// user's skills; empty leaves them out (evals and the SDK).
	UserHome string
	// Model is "provider/model".
	Model string
	// Provider, when set, answers instead of the one Model names (the
	// demo's scripted model, tests).
	Provider llm.Provider
	// Mail offers send_message even before the workspace uses mail.
	Mail bool
	// Approval says who approves writes and commands; the zero value is
	// read-only, asking nobody.
	Approval Approval
	// EngineEvents receives the events of no run (mcp.status after
	// Build), from the MCP servers' goroutines; nil discards them.
	EngineEvents agent.Sink
	// Getenv reads the environment (API keys); nil means os.Getenv.
	Getenv func(string) string
	// ProjectKey reads a provider key of the workspace's .env: used,
	// with a warning, only for the provider Model names when Getenv has
	// no key for it, so a repository never picks the provider.
	ProjectKey func(name string) (string, bool)
	// Files and Terminal, when set, serve the file tools from an
	// editor's buffers and run foreground commands in its terminal (ACP).
	Files    fs.Files
	Terminal shell.Terminal
	// MaxSteps bounds model calls per turn; 0 is the default.
	MaxSteps int
	// ContextWindow and WorkingSet override config.yaml's (0 and nil
	// do not).
	ContextWindow int
	WorkingSet    *int
	// Version is godwit's, for session.started and MCP servers.
	Version string
	Logger  *slog.Logger
}

// Approval says who approves the model's writes and commands.
type Approval struct {
	// Mode is read-only (the default), ask or auto.
	Mode policy.Mode
	// Live, when set, replaces Mode: read at every approval and command
	// start, so policy and sandbox follow a mode switched mid-session.
	Live func() policy.Mode
	// Prompter asks a person about a call (ask mode, secret reads); nil
	// means nobody can be asked, and what needs asking is denied.
	Prompter policy.Prompter
	// Offer puts a call read-only mode refuses to the Prompter, to allow
	// once (policy.Options.Offer).
	Offer bool
	// Gate, when set, goes in front of the policy and must pass every
	// call on to it (an editor shows each call first); the policy's
	// secrets screen stays even if it does not.
	Gate func(policy tool.Approver) tool.Approver
	// Approver, when set, replaces the policy (the demo's own sandboxed
	// repository, tests).
	Approver tool.Approver
}

// mode is the mode in force.
func (a Approval) mode() policy.Mode {
	if a.Live != nil {
		return a.Live()
	}
	return a.Mode
}

// Env is a built engine. Close it to stop background jobs and close the
// store.
type Env struct {
	Runtime   *agent.Runtime
	Store     *store.Store
	Workspace string
	Model     string
	Plan      *plan.Plan
	// Window assembles requests; its Budget says the partition in force.
	Window *window.Window
	// Memory serves project rules, memory files and skills per segment.
	Memory *memory.Source
	// Runner runs the session's tool calls under its guard, the model's
	// and the user's (RunUserCall).
	Runner *tool.Runner
	// Notices are for the user once, at start: .mcp.json servers not
	// started.
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

// Home is GODWIT_HOME made absolute, or ~/.godwit.
func Home(getenv func(string) string) (string, error) {
	if h := getenv("GODWIT_HOME"); h != "" {
		return filepath.Abs(h)
	}
	dir, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("wiring: finding GODWIT_HOME: %w", err)
	}
	return filepath.Join(dir, ".godwit"), nil
}

// Build assembles an engine, one idea a step: the configuration, the
// model, the store, the guard, the tools, the extensions, the window and
// the runtime. What a step opens joins env's closers, so when a step
// fails the deferred Close undoes the steps before it.
func Build(ctx context.Context, opts Options) (_ *Env, err error) {
	b := &build{opts: opts.withDefaults()}
	if b.ws, err = workspace.New(b.opts.Workspace); err != nil {
		return nil, fmt.Errorf("wiring: workspace: %w", err)
	}
	root := b.ws.Root()
	env := &Env{Workspace: root, closers: []func() error{b.ws.Close}}
	b.env = env
	defer func() {
		if err != nil {
			_ = env.Close()
		}
	}()
	if b.cfg, b.cat, err = loadConfig(b.opts.Home, b.opts.Getenv); err != nil {
		return nil, err
	}
	b.opts = b.opts.withConfig(b.cfg)
	if b.model, err = chooseModel(b.opts, b.cfg, b.cat); err != nil {
		return nil, err
	}
	env.Model = b.model.ref()
	if err = b.openStore(ctx); err != nil {
		return nil, err
	}
	if b.guard, err = b.newGuard(); err != nil {
		return nil, err
	}
	b.shells = b.newShells()
	if b.mem, err = b.newMemory(); err != nil {
		return nil, err
	}
	env.Memory, env.Plan = b.mem.source, plan.New()
	b.budget = window.Scaled(contextWindow(b.opts.ContextWindow, b.cfg.ContextWindow, b.model.Model.ContextWindow))
	b.counter = window.NewCounter()
	if b.opts.WorkingSet != nil {
		b.budget.WorkingSet = *b.opts.WorkingSet
	}
	if env.reg, err = b.tools(ctx); err != nil {
		return nil, err
	}
	ext, err := b.extensions(ctx)
	if err != nil {
		return nil, err
	}
	env.Notices = ext.notices
	system := prompt.System(prompt.Env{OS: runtime.GOOS, Shell: b.shells.main.Kind(), Workspace: root})
	if env.Window, err = b.window(ext.segment, system); err != nil {
		return nil, err
	}
	env.Runner = tool.NewRunner(env.reg, tool.RunnerOptions{Approver: b.guard.approver, Logger: b.opts.Logger})
	if env.Runtime, err = b.runtime(ext.mcp); err != nil {
		return nil, err
	}
	return env, nil
}

// build is what Build's steps share: each reads what the steps before
// it set, and env is the engine being built.
type build struct {
	opts   Options
	cfg    config.Config
	cat    *catalog.Catalog
	ws     *workspace.Workspace
	env    *Env
	model  ProviderModel
	guard  *guard
	shells shells
	mem    memoryParts
	// budget is the context window's partition and counter the token
	// counter; the session's window and a sub-agent's share both.
	budget  window.Budget
	counter *window.Counter
}

// runtime builds the agent over what the steps before built: the window,
// the store, the plan and the runner, and the shell that runs --verify.
func (b *build) runtime(mgr *mcp.Manager) (*agent.Runtime, error) {
	m, env := b.model, b.env
	rt, err := agent.New(agent.Config{
		Provider:     m.Provider,
		ProviderName: m.ProviderName,
		Model:        m.Model.ID,
		Assembler:    env.Window,
		Runner:       env.Runner,
		Store:        env.Store,
		Workspace:    env.Workspace,
		MaxSteps:     b.opts.MaxSteps,
		Reasoning:    m.Model.Reasoning,
		Images:       m.Model.Images,
		Verify:       shellVerifier(b.shells.tool, b.opts.Logger),
		OpenPlan:     openPlan(env.Plan),
		SegmentNotes: func(context.Context) []string { return b.mem.source.Notes() },
		Cost:         m.Model.Price.Cost,
		About:        about(b.opts, b.mem.places, env.reg, mgr),
		Logger:       b.opts.Logger,
	})
	if err != nil {
		return nil, fmt.Errorf("wiring: %w", err)
	}
	return rt, nil
}

// withDefaults fills what a caller may leave out.
func (o Options) withDefaults() Options {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// withConfig takes config.yaml's model and step bound where the caller
// named none.
func (o Options) withConfig(cfg config.Config) Options {
	o.Model, o.MaxSteps = cmp.Or(o.Model, cfg.Model), cmp.Or(o.MaxSteps, cfg.MaxSteps)
	if o.WorkingSet == nil {
		o.WorkingSet = cfg.WorkingSet
	}
	return o
}

// loadConfig reads config.yaml under home and the model catalog it
// extends; a catalog godwit cannot use is the user's to fix.
func loadConfig(home string, getenv func(string) string) (config.Config, *catalog.Catalog, error) {
	cfg, err := config.Load(home, getenv)
	if err != nil {
		return config.Config{}, nil, err
	}
	cat, err := cfg.Catalog()
	if err != nil {
		return config.Config{}, nil, inputError(err)
	}
	return cfg, cat, nil
}

// openStore opens the database under opts.Home and ends what an earlier
// godwit left running.
func (b *build) openStore(ctx context.Context) error {
	st, err := store.Open(ctx, DBPath(b.opts.Home), store.WithLogger(b.opts.Logger))
	if err != nil {
		return fmt.Errorf("wiring: %w", err)
	}
	b.env.Store, b.env.closers = st, append(b.env.closers, st.Close)
	sweepOrphans(ctx, st, shell.DefaultKillGrace, b.opts.Logger)
	return nil
}

// window builds the request assembler: the system prompt, each
// segment's tool table, the memory prefix, and the summariser of paged
// outputs that config's summary_model names.
func (b *build) window(segment func(context.Context, string) ([]llm.ToolSpec, string), system string) (*window.Window, error) {
	summarize, err := summarizer(b.cfg.SummaryModel, b.cat, b.opts)
	if err != nil {
		return nil, err
	}
	return window.New(window.Options{
		Summarize: summarize,
		Segment:   segment,
		System:    system,
		Tools:     b.env.reg.Specs(),
		Budget:    b.budget,
		Counter:   b.counter,
		Pages:     storePages{b.env.Store},
		Logger:    b.opts.Logger,
		Prefix: func(ctx context.Context) []window.Text {
			var out []window.Text
			for _, t := range b.env.Memory.Texts(ctx) {
				out = append(out, window.Text{Part: t.Part, Body: t.Body})
			}
			return out
		},
	}), nil
}

// about describes, at each session's start, what it runs with.
func about(opts Options, places memory.SkillPlaces, reg *tool.Registry, mgr *mcp.Manager) func() agent.SessionInfo {
	return func() agent.SessionInfo {
		info := agent.SessionInfo{Version: opts.Version, Mode: opts.Approval.mode().String(), Tools: reg.Names()}
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
func contextWindow(choices ...int) int { return cmp.Or(choices...) }

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
