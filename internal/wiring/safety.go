package wiring

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/godwit/godwit/policy"
	"github.com/godwit/godwit/sandbox"
	"github.com/godwit/godwit/snapshot"
	"github.com/godwit/godwit/store"
	"github.com/godwit/godwit/tool"
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
}

// newGuard loads the rules ($GODWIT_HOME/rules.yaml, then the
// workspace's .godwit/rules.yaml), builds the policy for the mode, and
// the Landlock sandbox: writes only to the workspace and the private
// temp folder (none at all in read-only mode), reads anywhere, network
// off in read-only mode unless a rule says otherwise.
func newGuard(opts Options, root string, st *store.Store, closers *[]func() error) (*guard, error) {
	rules, err := policy.LoadRules(filepath.Join(opts.Home, policy.RulesFile), filepath.Join(root, ".godwit", policy.RulesFile))
	if err != nil {
		// A rules file godwit cannot use is the user's to fix, like config.yaml.
		return nil, inputError(fmt.Errorf("wiring: %w", err))
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
		watcher:      snapshot.NewWatcher(root, snapshot.WatchOptions{Logger: opts.Logger}),
	}
	if opts.Approver != nil { // the demo, tests
		g.approver = opts.Approver
	}
	return g, nil
}
