package wiring

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/godwit/godwit/internal/gitguard"
	"github.com/godwit/godwit/internal/policy"
	"github.com/godwit/godwit/internal/sandbox"
	"github.com/godwit/godwit/internal/snapshot"
	"github.com/godwit/godwit/internal/store"
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
	// git keeps the repository's hooks and config as the user left them
	// across shell commands (Landlock cannot forbid .git inside the
	// writable workspace).
	git *gitguard.Guard
}

// CacheDir is the folder under GODWIT_HOME of the private caches that
// commands which may write use in place of the user's (sandbox.Caches):
// Go's build and module caches, npm's, pip's, cargo's and the like.
const CacheDir = "cache"

// newGuard loads the rules ($GODWIT_HOME/rules.yaml, then the
// workspace's .godwit/rules.yaml, which can only narrow them: what it
// tries to widen is ignored with a warning), builds the policy for the
// mode, and
// the Landlock sandbox: writes only to the workspace, the private
// temp folder and (ask and auto) the private caches of CacheDir, none at
// all in read-only mode; reads anywhere; network off in read-only mode
// unless a rule says otherwise. With
// Options.LiveMode there is a policy and a sandbox for each mode, and
// every approval and every command takes the one of the mode in force.
func newGuard(opts Options, root string, st *store.Store, closers *[]func() error) (*guard, error) {
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
	*closers = append(*closers, func() error { return os.RemoveAll(tmp) })
	kind := "bash"
	if runtime.GOOS == "windows" {
		kind = "powershell"
	}
	modes := []policy.Mode{opts.Mode}
	if opts.LiveMode != nil {
		modes = []policy.Mode{policy.ReadOnly, policy.Ask, policy.Auto}
	}
	sw := switched{wraps: map[bool]func(*exec.Cmd) error{}}
	for _, m := range modes {
		pol, err := policy.New(policy.Options{Mode: m, Workspace: root, Rules: rules, Prompter: opts.Prompter, Offer: opts.OfferWrites,
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
				caches = sandbox.NewCaches(sandbox.CacheOptions{Dir: filepath.Join(opts.Home, CacheDir),
					Writable: writable, Logger: opts.Logger})
			}
			sw.wraps[readOnly] = sandbox.Wrap(sandbox.Config{Writable: writable, ReadOnly: readOnly,
				Network: network, TempDir: tmp, Caches: caches, Logger: opts.Logger})
		}
	}
	sw.mode = func() policy.Mode { return opts.Mode }
	if opts.LiveMode != nil {
		sw.mode = opts.LiveMode
	}
	g := &guard{
		approver:     sw.approver(),
		rules:        rules,
		tmp:          tmp,
		wrap:         sw.wrap,
		readOnlyWrap: sandbox.Wrap(sandbox.Config{ReadOnly: true, TempDir: tmp, Logger: opts.Logger}),
		writeWrap:    sw.wraps[false],
		hidden:       func(toolName, abs string) bool { return sw.current().Hidden(toolName, abs) },
		recorder:     snapshot.NewRecorder(st, snapshot.Options{Logger: opts.Logger}),
		// Landlock judges a write by its path: a file here hard-linked to
		// one outside would let a command write outside, so such files get
		// a copy of their own before commands that may write.
		watcher: snapshot.NewWatcher(root, snapshot.WatchOptions{Logger: opts.Logger,
			DetachShared: (opts.Mode != policy.ReadOnly || opts.LiveMode != nil) && sandboxed()}),
		git: gitguard.New(gitguard.Options{Workspace: root, Getenv: opts.Getenv, Logger: opts.Logger}),
	}
	if opts.Gate != nil {
		g.approver = gated(opts.Gate, g.approver)
	}
	if opts.Approver != nil { // the demo, tests
		g.approver = opts.Approver
	}
	return g, nil
}

// switched holds a policy and a sandbox per mode and picks them by the
// mode in force: an editor may switch modes between two calls.
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

// approver is the one policy when there is one, else the switch.
func (s *switched) approver() tool.Approver {
	n := 0
	var only *policy.Policy
	for _, p := range s.policies {
		if p != nil {
			n, only = n+1, p
		}
	}
	if n == 1 {
		return only
	}
	return modal{s}
}

// wrap sandboxes a command by the mode in force when it starts.
func (s *switched) wrap(cmd *exec.Cmd) error {
	return s.wraps[s.current().Mode() == policy.ReadOnly](cmd)
}

// modal is the policy of the mode in force, asked anew at each call.
type modal struct{ s *switched }

func (m modal) Approve(ctx context.Context, req tool.ApprovalRequest) (tool.Decision, error) {
	return m.s.current().Approve(ctx, req)
}

// NeedsApproval implements tool.ReadScreener: the secrets screen.
func (m modal) NeedsApproval(toolName string, a tool.Access) bool {
	return m.s.current().NeedsApproval(toolName, a)
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

// sandboxed reports whether Landlock confines commands here.
func sandboxed() bool {
	_, err := sandbox.Status()
	return err == nil
}
