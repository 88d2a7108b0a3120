package wiring

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/godwit/godwit/gitguard"
	"github.com/godwit/godwit/policy"
	"github.com/godwit/godwit/sandbox"
	"github.com/godwit/godwit/snapshot"
	"github.com/godwit/godwit/store"
	"github.com/godwit/godwit/tool"
	"github.com/godwit/godwit/tool/shell"
)

// guard is what keeps a session safe: the approval policy, the sandbox
// for commands, a private temp folder, and snapshots for undo.
type guard struct {
	approver tool.Approver
	rules    *policy.Rules
	wrap     func(*exec.Cmd) error
	// readOnlyWrap is the sandbox of a sub-agent's shell: no writes, no
	// network, whatever the session's mode.
	readOnlyWrap func(*exec.Cmd) error
	tmp          string
	recorder     *snapshot.Recorder
	watcher      *snapshot.Watcher
	// git keeps the repository's hooks and config as the user left them
	// across shell commands (Landlock cannot forbid .git inside the
	// writable workspace).
	git *gitguard.Guard
}

// newGuard loads the rules ($GODWIT_HOME/rules.yaml, then the
// workspace's .godwit/rules.yaml), builds the policy for the mode, and
// the Landlock sandbox: writes only to the workspace and the private
// temp folder (none at all in read-only mode), reads anywhere, network
// off in read-only mode unless a rule says otherwise.
func newGuard(opts Options, root string, st *store.Store, closers *[]func() error) (*guard, error) {
	rules, err := policy.LoadRules(filepath.Join(opts.Home, policy.RulesFile), filepath.Join(root, ".godwit", policy.RulesFile))
	if err != nil {
		return nil, fmt.Errorf("wiring: %w", err)
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
	pol, err := policy.New(policy.Options{Mode: opts.Mode, Workspace: root, Rules: rules, Prompter: opts.Prompter,
		Scratch: []string{tmp}, Vars: map[string]string{"TMPDIR": tmp}, Shell: kind, Logger: opts.Logger})
	if err != nil {
		return nil, fmt.Errorf("wiring: %w", err)
	}
	network := opts.Mode != policy.ReadOnly
	if rules.Sandbox.Network != nil {
		network = *rules.Sandbox.Network
	}
	g := &guard{
		approver: pol,
		rules:    rules,
		tmp:      tmp,
		wrap: sandbox.Wrap(sandbox.Config{Writable: append([]string{root}, pol.Writable()...),
			ReadOnly: opts.Mode == policy.ReadOnly, Network: network, TempDir: tmp, Logger: opts.Logger}),
		readOnlyWrap: sandbox.Wrap(sandbox.Config{ReadOnly: true, TempDir: tmp, Logger: opts.Logger}),
		recorder:     snapshot.NewRecorder(st, snapshot.Options{Logger: opts.Logger}),
		// Landlock judges a write by its path: a file here hard-linked to
		// one outside would let a command write outside, so such files get
		// a copy of their own before commands that may write.
		watcher: snapshot.NewWatcher(root, snapshot.WatchOptions{Logger: opts.Logger,
			DetachShared: opts.Mode != policy.ReadOnly && sandboxed()}),
		git: gitguard.New(gitguard.Options{Workspace: root, Getenv: opts.Getenv, Logger: opts.Logger}),
	}
	if opts.Approver != nil { // the demo, tests
		g.approver = opts.Approver
	}
	return g, nil
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
