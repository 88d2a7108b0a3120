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
	// Approval says who approves writes and commands; the zero value is
	// read-only, asking nobody.
	Approval Approval
	// EngineEvents receives the events that belong to no run: mcp.status
	// when an MCP server changes state after Build. They come from the
	// MCP servers' goroutines, between runs or during one. nil discards
	// them. A run's events go to its own RunInput.Sink, never here.
	EngineEvents agent.Sink
	// Getenv reads the environment (API keys); nil means os.Getenv.
	Getenv func(string) string
	// ProjectKey reads a provider key of the workspace's .env, which
	// came with the repository: it never picks the provider or the
	// account, and is used only as the key of the provider Model names
	// when Getenv has none, with a warning. Nil has none.
	ProjectKey func(name string) (string, bool)
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
	// WorkingSet overrides how much tool output of earlier turns stays
	// in view, in tokens; nil takes config.yaml's working_set, then the
	// default.
	WorkingSet *int
	// MCPWait is how long Build waits for MCP servers before the first
	// tool table is fixed; 0 is 5 s. Later servers join at the next
	// segment.
	MCPWait time.Duration
	// Version is godwit's, for session.started and MCP servers.
	Version string
	Logger  *slog.Logger
}

// Approval says who approves the model's writes and commands.
type Approval struct {
	// Mode is the approval mode: read-only (the default), ask
	// (--allow-write) or auto (--yes).
	Mode policy.Mode
	// Live, when set, replaces Mode: it is read at every approval and
	// whenever a command starts, so the policy and the sandbox follow a
	// mode the user switches mid-session (an editor's session/set_mode).
	Live func() policy.Mode
	// Prompter asks a person about a call (ask mode, secret reads); nil
	// means nobody can be asked, and what needs asking is denied.
	Prompter policy.Prompter
	// Offer puts a call read-only mode refuses to the Prompter, to allow
	// once (policy.Options.Offer): the chat, where the user can also
	// switch the mode on the spot.
	Offer bool
	// Gate, when set, is put in front of the policy: the runner asks
	// Gate(policy), which must pass every call on to the policy (an
	// editor shows each call before the policy judges it). Unlike
	// Approver it cannot take the policy's place, and the policy's
	// secrets screen stays even if the gate does not pass it on.
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
	Catalog   *catalog.Catalog
	// ModelInfo is the catalog's entry for the model (zero for a
	// scripted provider).
	ModelInfo catalog.Model
	// Window assembles requests; its Budget says the partition in force.
	Window *window.Window
	// Memory serves project rules, memory files and skills per segment.
	Memory *memory.Source
	// Runner runs the session's tool calls under its guard: the
	// runtime's, and the chat's for what the user runs (!CMD, @path),
	// which hold the same path locks.
	Runner *tool.Runner
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

// Build assembles an engine, one idea a step: the configuration, the
// model, the store, the guard, the tools, the extensions, the window and
// the runtime. What a step opens joins env's closers, so when a step
// fails the deferred Close undoes the steps before it.
func Build(ctx context.Context, opts Options) (_ *Env, err error) {
	opts = opts.withDefaults()
	ws, err := workspace.New(opts.Workspace)
	if err != nil {
		return nil, fmt.Errorf("wiring: workspace: %w", err)
	}
	root := ws.Root()
	env := &Env{Workspace: root, closers: []func() error{ws.Close}}
	defer func() {
		if err != nil {
			_ = env.Close()
		}
	}()
	cfg, cat, err := loadConfig(opts.Home, opts.Getenv)
	if err != nil {
		return nil, err
	}
	opts = opts.withConfig(cfg)
	m, err := chooseModel(opts, cfg, cat)
	if err != nil {
		return nil, err
	}
	env.Catalog, env.Model, env.ModelInfo = cat, m.ref(), m.info
	if env.Store, err = openStore(ctx, opts, &env.closers); err != nil {
		return nil, err
	}
	g, err := newGuard(opts, ws, env.Store, cfg.Shell, &env.closers)
	if err != nil {
		return nil, err
	}
	shells := newShells(opts, root, g, keyNames(cat, cfg), trackProcs(env.Store, opts.Logger), &env.closers)
	mem, err := newMemory(opts, cfg.Memory, root, env.Store)
	if err != nil {
		return nil, err
	}
	env.Memory, env.Plan = mem.source, plan.New()
	size := windowSize{
		budget:  window.Scaled(contextWindow(opts.ContextWindow, cfg.ContextWindow, m.info.ContextWindow)),
		counter: window.NewCounter(),
	}
	if opts.WorkingSet != nil {
		size.budget.WorkingSet = *opts.WorkingSet
	}
	if env.reg, err = newTools(ctx, toolDeps{opts: opts, cfg: cfg, ws: ws, store: env.Store, guard: g,
		shells: shells, plan: env.Plan, mem: mem, model: m, size: size}); err != nil {
		return nil, err
	}
	ext, err := startExtensions(ctx, opts, cfg, root, env.reg, size.counter, &env.closers)
	if err != nil {
		return nil, err
	}
	env.Notices = ext.notices
	system := prompt.System(prompt.Env{OS: runtime.GOOS, Shell: shells.main.Kind(), Workspace: root})
	if env.Window, err = newWindow(windowDeps{opts: opts, summaryModel: cfg.SummaryModel, env: env, segment: ext.segment,
		system: system, size: size}); err != nil {
		return nil, err
	}
	env.Runner = tool.NewRunner(env.reg, tool.RunnerOptions{Approver: g.approver, Logger: opts.Logger})
	if env.Runtime, err = newRuntime(opts, m, env, shells.tool, mem, ext.mcp); err != nil {
		return nil, err
	}
	return env, nil
}

// newRuntime builds the agent over what the steps before built into
// env: the window, the store, the plan and the runner, and which shell
// runs --verify.
func newRuntime(opts Options, m chosenModel, env *Env, verify tool.Tool, mem memoryParts, mgr *mcp.Manager) (*agent.Runtime, error) {
	rt, err := agent.New(agent.Config{
		Provider:     m.provider,
		ProviderName: m.providerName,
		Model:        m.id,
		Assembler:    env.Window,
		Runner:       env.Runner,
		Store:        env.Store,
		Workspace:    env.Workspace,
		MaxSteps:     opts.MaxSteps,
		Reasoning:    m.info.Reasoning,
		Images:       m.info.Images,
		Verify:       shellVerifier(verify, opts.Logger),
		OpenPlan:     openPlan(env.Plan),
		SegmentNotes: func(context.Context) []string { return mem.source.Notes() },
		Cost:         m.info.Price.Cost,
		About:        about(opts, mem.places, env.reg, mgr),
		Logger:       opts.Logger,
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
	if o.Model == "" {
		o.Model = cfg.Model
	}
	if o.MaxSteps == 0 {
		o.MaxSteps = cfg.MaxSteps
	}
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
func openStore(ctx context.Context, opts Options, closers *[]func() error) (*store.Store, error) {
	st, err := store.Open(ctx, DBPath(opts.Home), store.WithLogger(opts.Logger))
	if err != nil {
		return nil, fmt.Errorf("wiring: %w", err)
	}
	*closers = append(*closers, st.Close)
	sweepOrphans(ctx, st, shell.DefaultKillGrace, opts.Logger)
	return st, nil
}

// windowSize is the context window's partition and the token counter
// the session's window and a sub-agent's share.
type windowSize struct {
	budget  window.Budget
	counter *window.Counter
}

// windowDeps is what the session's window is built from: the store,
// tools, catalog and memory the steps before put in env, and the rest.
type windowDeps struct {
	opts         Options
	summaryModel string
	env          *Env
	// segment is each segment's tool table and listing.
	segment func(context.Context, string) ([]llm.ToolSpec, string)
	system  string
	size    windowSize
}

// newWindow builds the request assembler: the system prompt, the tool
// table of each segment, the memory prefix, and the summariser of paged
// outputs that summaryModel names.
func newWindow(d windowDeps) (*window.Window, error) {
	summarize, err := summarizer(d.summaryModel, d.env.Catalog, d.opts)
	if err != nil {
		return nil, err
	}
	return window.New(window.Options{
		Summarize: summarize,
		Segment:   d.segment,
		System:    d.system,
		Tools:     d.env.reg.Specs(),
		Budget:    d.size.budget,
		Counter:   d.size.counter,
		Pages:     storePages{d.env.Store},
		Logger:    d.opts.Logger,
		Prefix: func(ctx context.Context) []window.Text {
			var out []window.Text
			for _, t := range d.env.Memory.Texts(ctx) {
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
func contextWindow(choices ...int) int {
	for _, n := range choices {
		if n > 0 {
			return n
		}
	}
	return 0
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
