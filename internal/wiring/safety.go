package wiring

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/godwit/godwit/internal/gitguard"
	"github.com/godwit/godwit/internal/policy"
	"github.com/godwit/godwit/internal/sandbox"
	"github.com/godwit/godwit/internal/snapshot"
	"github.com/godwit/godwit/internal/tool/shell"
	"github.com/godwit/godwit/tool"
)

// guard is what keeps a session safe: the approval policy, the sandbox
// for commands, a private temp folder, and snapshots for undo.
type guard struct {
	approver tool.Approver
	rules    *policy.Rules
	wrap     func(*exec.Cmd) error
	// readOnlyWrap is the sandbox of a command the policy allowed only
	// because it reads (tool.ConfineReadOnly), and of a sub-agent's
	// shell: no writes, no network, whatever the session's mode.
	readOnlyWrap func(*exec.Cmd) error
	// writeWrap is the sandbox of ask mode, for a command a person
	// allowed on the spot in read-only mode (tool.ConfineWrite); nil
	// when no mode that writes was built.
	writeWrap func(*exec.Cmd) error
	tmp       string
	// hidden are the paths grep and file_list pass over when they walk a
	// folder: what the rules' deny and ask path rules name.
	hidden   func(toolName, abs string) bool
	recorder *snapshot.Recorder
	watcher  *snapshot.Watcher
	// git restores the repository's hooks and config after commands,
	// where the sandbox's view cannot keep them (another OS, no
	// namespaces, a hook run later).
	git *gitguard.Guard
	// refused holds, until a shell result carries it to the user, why
	// commands run without the sandbox's view.
	refused atomic.Pointer[string]
	// logLimit bounds a background job's log (config shell.job_log_mb).
	logLimit int64
}

// cacheDir is the folder under GODWIT_HOME of the private caches that
// commands which may write use in place of the user's (sandbox.Caches):
// Go's build and module caches, npm's, pip's, cargo's and the like.
const cacheDir = "cache"

// newGuard loads the rules (the workspace's can only narrow the user's),
// and builds the policy and the Landlock sandbox for the mode: writes
// only to the workspace, the private temp folder and (ask and auto) the
// private caches, none in read-only mode, where the network is off too
// unless a rule says otherwise. With Approval.Live there is a policy and
// a sandbox per mode, taken at each approval and command.
func (b *build) newGuard() (*guard, error) {
	opts, ws, root := b.opts, b.ws, b.ws.Root()
	rules, err := policy.LoadRules(filepath.Join(opts.Home, policy.RulesFile), filepath.Join(root, ".godwit", policy.RulesFile))
	if err != nil {
		// A rules file godwit cannot use is the user's to fix, like config.yaml.
		return nil, inputError(fmt.Errorf("wiring: %w", err))
	}
	for _, w := range rules.Ignored {
		opts.Logger.Warn("rules: " + w)
	}
	tmp, err := os.MkdirTemp("", "godwit-tmp-")
	if err != nil {
		return nil, fmt.Errorf("wiring: private temp folder: %w", err)
	}
	b.env.closers = append(b.env.closers, func() error { return os.RemoveAll(tmp) })
	kind := "bash"
	if runtime.GOOS == "windows" {
		kind = "powershell"
	}
	ap := opts.Approval
	modes := []policy.Mode{ap.Mode}
	if ap.Live != nil {
		modes = []policy.Mode{policy.ReadOnly, policy.Ask, policy.Auto}
	}
	g := &guard{}
	procs, fileSize, logLimit := b.cfg.Shell.Limits()
	limits := sandbox.Limits{Processes: procs, FileSize: fileSize}
	view := newView(opts, root, rules, &g.refused)
	sw := switched{wraps: map[bool]func(*exec.Cmd) error{}}
	// The sandbox is wrapped up to three times, and its warnings about
	// the machine (no Landlock, an old ABI) are the same each time.
	var wrapLog *slog.Logger
	if opts.Logger != nil {
		wrapLog = slog.New(onceHandler{opts.Logger.Handler(), &sync.Map{}})
	}
	// A person's "never" holds in whichever mode the session switches to.
	refused := &policy.Refusals{}
	for _, m := range modes {
		pol, err := policy.New(policy.Options{Mode: m, Workspace: root, Rules: rules, Prompter: ap.Prompter, Offer: ap.Offer, Refusals: refused,
			Scratch: []string{tmp}, Vars: map[string]string{"TMPDIR": tmp}, Shell: kind, Logger: opts.Logger})
		if err != nil {
			return nil, fmt.Errorf("wiring: %w", err)
		}
		readOnly := m == policy.ReadOnly
		network := !readOnly
		if rules.Sandbox.Network != nil {
			network = *rules.Sandbox.Network
		}
		sw.policies[m] = pol
		if sw.wraps[readOnly] == nil { // ask and auto share one sandbox
			writable := append([]string{root}, pol.Writable()...)
			var caches *sandbox.Caches
			if !readOnly {
				caches = sandbox.NewCaches(sandbox.CacheOptions{Dir: filepath.Join(opts.Home, cacheDir),
					Writable: writable, Logger: opts.Logger})
			}
			sw.wraps[readOnly] = sandbox.Wrap(sandbox.Config{Writable: writable, ReadOnly: readOnly,
				Network: network, TempDir: tmp, Caches: caches, View: view, Limits: limits, Logger: wrapLog})
		}
	}
	sw.mode = ap.mode
	g.approver, g.rules, g.tmp, g.wrap, g.logLimit = &sw, rules, tmp, sw.wrap, logLimit
	g.writeWrap = sw.wraps[false]
	g.readOnlyWrap = sandbox.Wrap(sandbox.Config{ReadOnly: true, TempDir: tmp, View: view, Limits: limits, Logger: wrapLog})
	g.hidden = func(toolName, abs string) bool { return sw.current().Hidden(toolName, abs) }
	g.recorder = snapshot.NewRecorder(b.env.Store, snapshot.Options{Workspace: ws})
	// Landlock judges a write by its path: a file here hard-linked to one
	// outside would let a command write outside, so such files get a copy
	// of their own before commands that may write.
	g.watcher = snapshot.NewWatcher(root, snapshot.WatchOptions{Logger: opts.Logger,
		DetachShared: (ap.Mode != policy.ReadOnly || ap.Live != nil) && sandboxed()})
	g.git = gitguard.New(gitguard.Options{Workspace: root, Getenv: opts.Getenv, Logger: opts.Logger})
	if ap.Gate != nil {
		g.approver = gated(ap.Gate, g.approver)
	}
	if ap.Approver != nil { // the demo, tests
		g.approver = ap.Approver
	}
	return g, nil
}

// switched holds a policy and a sandbox per mode and picks them by the
// mode in force: an editor may switch modes between two calls. It is
// the session's approver.
type switched struct {
	mode     func() policy.Mode
	policies [policy.Auto + 1]*policy.Policy
	wraps    map[bool]func(*exec.Cmd) error // by read-only
}

// current is the policy of the mode in force; a mode without one (a
// value out of range) gets the strictest policy built.
func (s *switched) current() *policy.Policy {
	if m := s.mode(); m >= 0 && int(m) < len(s.policies) && s.policies[m] != nil {
		return s.policies[m]
	}
	for _, p := range s.policies {
		if p != nil {
			return p
		}
	}
	return nil
}

// wrap sandboxes a command by the mode in force when it starts.
func (s *switched) wrap(cmd *exec.Cmd) error {
	return s.wraps[s.current().Mode() == policy.ReadOnly](cmd)
}

// Approve asks the policy of the mode in force, anew at each call.
func (s *switched) Approve(ctx context.Context, req tool.ApprovalRequest) (tool.Decision, error) {
	return s.current().Approve(ctx, req)
}

// NeedsApproval implements tool.ReadScreener: the secrets screen.
func (s *switched) NeedsApproval(toolName string, a tool.Access) bool {
	return s.current().NeedsApproval(toolName, a)
}

// gated puts gate in front of next and keeps next's secrets screen,
// should the gate not pass it on: losing it would let reads of secrets
// through unasked.
func gated(gate func(tool.Approver) tool.Approver, next tool.Approver) tool.Approver {
	g := gate(next)
	if g == nil {
		return next
	}
	rs, screens := next.(tool.ReadScreener)
	if _, ok := g.(tool.ReadScreener); screens && !ok {
		return screenedGate{g, rs}
	}
	return g
}

type screenedGate struct {
	tool.Approver
	tool.ReadScreener
}

// guardShell wraps a shell_exec tool with the git guard, and while
// background jobs run, checks every pollEvery; a restore found then is
// logged at once and reported with the next command. The returned closer
// runs a last check once the shell has stopped its jobs: register it
// before the shell's own Close.
func (g *guard) guardShell(t tool.Tool, sh *shell.Shell) (tool.Tool, func() error) {
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(pollEvery)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if sh.JobsRunning() {
					g.git.Poll()
				}
			}
		}
	}()
	closer := func() error {
		close(done)
		<-stopped
		g.git.Poll() // what the jobs did before they were stopped
		return nil
	}
	return gitguard.Tool(t, g.git, sh.JobsRunning), closer
}

// pollEvery is how often the git guard looks while background jobs run.
const pollEvery = 2 * time.Second

// newView is what commands see (sandbox.View, Linux): the workspace's
// secrets files and what deny path rules name empty, the user's
// credential folders and GODWIT_HOME (but for its caches and skills) not
// there, git's config without credentials. Why it cannot be made goes to refused.
func newView(opts Options, root string, rules *policy.Rules, refused *atomic.Pointer[string]) *sandbox.View {
	home := opts.UserHome
	if home == "" && opts.Getenv != nil {
		home = opts.Getenv("HOME")
	}
	secrets := &secretFiles{root: root, limit: maxSecretWalk,
		denied: func(abs, rel string) bool { return rules.DeniedToCommands(abs, rel, home) },
		cut: func() {
			refused.Store(new(fmt.Sprintf("The workspace has over %d entries: the sandbox's view hides the secrets files and denied paths among the first %[1]d, nearest the root first, and not deeper ones.", maxSecretWalk)))
		}}
	return &sandbox.View{
		Workspace:  root,
		Secrets:    secrets.list,
		Hidden:     append(sandbox.HomeSecrets(home), opts.Home),
		Keep:       []string{filepath.Join(opts.Home, cacheDir), filepath.Join(opts.Home, "skills")},
		GitConfigs: sandbox.GitConfigs(home),
		Refused: func(err error) {
			refused.Store(new("Commands run without the sandbox's view of secrets (" + err.Error() +
				"): only the approval screen keeps secrets files, ~/.ssh and the like, .git/config's credentials and other processes' environments from them."))
		},
	}
}

// secretFiles lists the workspace's secrets files (tool.IsSecret) and
// what deny rules name, for the view to hide from commands' own code.
// The first command waits for a walk; a later one takes the last list
// and, when it is older than secretsFresh, starts another walk, so a
// secrets file made during the session is hidden seconds later.
type secretFiles struct {
	root   string
	denied func(abs, rel string) bool
	limit  int    // entries one walk looks at
	cut    func() // told once when a walk stops at limit
	cutOne sync.Once
	mu     sync.Mutex
	found  []string
	when   time.Time // of the last walk; zero before the first
	busy   bool      // a walk runs
}

// secretsFresh is how old a walk may be before the next command starts
// another; maxSecretWalk bounds the entries one walk looks at (200k cost
// 0.8 s of CPU, most of it tool.IsSecret).
const (
	secretsFresh  = 5 * time.Second
	maxSecretWalk = 200000
)

func (s *secretFiles) list() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.when.IsZero() {
		s.found, s.when = s.walk(), time.Now()
		return s.found
	}
	if !s.busy && time.Since(s.when) > secretsFresh {
		s.busy = true
		go func() {
			found := s.walk()
			s.mu.Lock()
			s.found, s.when, s.busy = found, time.Now(), false
			s.mu.Unlock()
		}()
	}
	return s.found
}

// walk finds the secrets files and denied paths under the root, folder
// by folder nearest the root first, so that a repository padded with
// files cannot push the root's .env past the limit; it passes over .git
// and node_modules and follows no link.
func (s *secretFiles) walk() []string {
	var out []string
	n := 0
	for queue := []string{""}; len(queue) > 0; queue = queue[1:] { // folders relative to the root
		entries, err := os.ReadDir(filepath.Join(s.root, queue[0]))
		if err != nil {
			continue
		}
		for _, e := range entries {
			if n++; n > s.limit {
				if s.cut != nil {
					s.cutOne.Do(s.cut)
				}
				return out
			}
			rel := path.Join(queue[0], e.Name())
			p := filepath.Join(s.root, rel)
			switch {
			case e.IsDir() && (e.Name() == ".git" || e.Name() == "node_modules"):
				// git and package managers need them whole; the git
				// guard and the protected files cover .git.
			case s.denied != nil && s.denied(p, rel):
				out = append(out, p)
			case e.IsDir():
				queue = append(queue, rel)
			case tool.IsSecret(rel):
				out = append(out, p)
			}
		}
	}
	return out
}

// noticed passes n's message, when there is one, to the user with a
// shell_exec's next result, once.
type noticed struct {
	accessTool
	n *atomic.Pointer[string]
}

type accessTool interface {
	tool.Tool
	tool.Accessor
}

func (t *noticed) Run(ctx context.Context, args json.RawMessage) (tool.Result, error) {
	res, err := t.accessTool.Run(ctx, args)
	if msg := t.n.Swap(nil); msg != nil {
		res.Notice = strings.TrimPrefix(res.Notice+"\n"+*msg, "\n")
	}
	return res, err
}

// sandboxed reports whether Landlock confines commands here.
func sandboxed() bool {
	_, err := sandbox.Status()
	return err == nil
}

// onceHandler passes on each distinct message once and drops its repeats.
type onceHandler struct {
	slog.Handler
	seen *sync.Map
}

func (h onceHandler) Handle(ctx context.Context, r slog.Record) error {
	if _, dup := h.seen.LoadOrStore(r.Message, true); dup {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}

func (h onceHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return onceHandler{h.Handler.WithAttrs(as), h.seen}
}

func (h onceHandler) WithGroup(name string) slog.Handler {
	return onceHandler{h.Handler.WithGroup(name), h.seen}
}
