package wiring

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/godwit/godwit/internal/policy"
	"github.com/godwit/godwit/internal/sandbox"
	"github.com/godwit/godwit/internal/store/storetest"
	"github.com/godwit/godwit/internal/tool/workspace"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
)

func liveGuard(t *testing.T, opts Options) (*guard, string) {
	t.Helper()
	ws := t.TempDir()
	if real, err := filepath.EvalSymlinks(ws); err == nil {
		ws = real
	}
	st := storetest.Open(t) // closed after the guard's closers below
	opts.Home = t.TempDir()
	w, err := workspace.New(ws)
	if err != nil {
		t.Fatal(err)
	}
	b := &build{opts: opts, ws: w, env: &Env{Store: st, closers: []func() error{w.Close}}}
	t.Cleanup(func() {
		for _, c := range b.env.closers {
			_ = c()
		}
	})
	g, err := b.newGuard()
	if err != nil {
		t.Fatal(err)
	}
	return g, ws
}

// TestLiveModeFollowsTheMode switches the mode under one guard, as an
// editor's session/set_mode does, and checks that the policy and the
// sandbox of the mode in force decide each call.
func TestLiveModeFollowsTheMode(t *testing.T) {
	t.Parallel()
	var mode atomic.Int32
	always := policy.PrompterFunc(func(context.Context, policy.Question) (policy.Answer, error) {
		return policy.Answer{Choice: policy.Yes}, nil
	})
	g, ws := liveGuard(t, Options{Approval: Approval{Live: func() policy.Mode { return policy.Mode(mode.Load()) }, Prompter: always}})
	write := tool.ApprovalRequest{Tool: "file_write", Access: tool.Access{Mutates: true,
		Paths: []tool.PathAccess{{Path: filepath.Join(ws, "a.txt"), Write: true}}}}
	secret := tool.Access{Paths: []tool.PathAccess{{Path: filepath.Join(ws, ".env")}}}
	screen, ok := g.approver.(tool.ReadScreener)
	if !ok {
		t.Fatal("the live-mode approver does not screen reads of secrets")
	}
	canSandbox := true
	if _, err := sandbox.Status(); err != nil {
		canSandbox = false
		t.Logf("no Landlock here (%v): the sandbox half is not checked", err)
	}
	tests := []struct {
		mode       policy.Mode
		allowed    bool   // the write
		reason     string // part of its decision's reason
		screened   bool   // a read of .env asks
		shellWrite bool   // a command may write the workspace
	}{
		{policy.ReadOnly, false, "read-only mode", true, false},
		{policy.Ask, true, "approved by the user", true, true},
		{policy.Auto, true, "auto mode", false, true},
		{policy.ReadOnly, false, "read-only mode", true, false}, // and back
	}
	for i, tt := range tests {
		mode.Store(int32(tt.mode))
		d, err := g.approver.Approve(context.Background(), write)
		if err != nil {
			t.Fatal(err)
		}
		if d.Allow != tt.allowed || !strings.Contains(d.Reason, tt.reason) {
			t.Errorf("%d %s: write decision = %+v, want allow %v saying %q", i, tt.mode, d, tt.allowed, tt.reason)
		}
		if got := screen.NeedsApproval("file_read", secret); got != tt.screened {
			t.Errorf("%d %s: reading .env needs approval = %v, want %v", i, tt.mode, got, tt.screened)
		}
		if !canSandbox {
			continue
		}
		out := filepath.Join(ws, "out.txt")
		os.Remove(out)
		cmd := exec.Command("/bin/sh", "-c", "echo x > out.txt")
		cmd.Dir = ws
		if err := g.wrap(cmd); err != nil {
			t.Fatal(err)
		}
		runErr := cmd.Run()
		_, statErr := os.Stat(out)
		if wrote := runErr == nil && statErr == nil; wrote != tt.shellWrite {
			t.Errorf("%d %s: a command wrote the workspace = %v (%v), want %v", i, tt.mode, wrote, runErr, tt.shellWrite)
		}
		// A command a person allowed on the spot (tool.ConfineWrite) gets
		// ask mode's sandbox in every mode.
		os.Remove(out)
		cmd = exec.Command("/bin/sh", "-c", "echo x > out.txt")
		cmd.Dir = ws
		if err := g.writeWrap(cmd); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Run(); err != nil {
			t.Errorf("%d %s: a command allowed to write could not: %v", i, tt.mode, err)
		}
	}
}

// passGate is a gate that counts calls and passes them on, without
// implementing tool.ReadScreener itself.
type passGate struct {
	next  tool.Approver
	calls *int
}

func (p passGate) Approve(ctx context.Context, req tool.ApprovalRequest) (tool.Decision, error) {
	*p.calls++
	return p.next.Approve(ctx, req)
}

// TestGateSitsOnThePolicy checks that a gate sees every approval, cannot
// lose the policy's secrets screen, and that Approver still replaces
// both (the demo).
func TestGateSitsOnThePolicy(t *testing.T) {
	t.Parallel()
	calls := 0
	gate := func(next tool.Approver) tool.Approver { return passGate{next, &calls} }
	g, _ := liveGuard(t, Options{Approval: Approval{Mode: policy.Ask, Gate: gate}})
	d, err := g.approver.Approve(context.Background(), tool.ApprovalRequest{Tool: "shell_exec",
		Access: tool.Access{Mutates: true, Command: "rm -rf build"}})
	if err != nil || d.Allow || !strings.Contains(d.Reason, "no one can be asked") || calls != 1 {
		t.Errorf("ask mode with nobody to ask, through the gate: %+v, %v, %d gate calls", d, err, calls)
	}
	screen, ok := g.approver.(tool.ReadScreener)
	if !ok || !screen.NeedsApproval("file_read", tool.Access{Paths: []tool.PathAccess{{Path: "/etc/shadow"}}}) {
		t.Error("the gate dropped the policy's screen of reads outside the workspace")
	}

	denyAll := tool.ApproverFunc(func(context.Context, tool.ApprovalRequest) (tool.Decision, error) {
		return tool.Decision{}, errors.New("replaced")
	})
	g, _ = liveGuard(t, Options{Approval: Approval{Mode: policy.Auto, Gate: gate, Approver: denyAll}})
	if _, err := g.approver.Approve(context.Background(), tool.ApprovalRequest{Tool: "x"}); err == nil || err.Error() != "replaced" {
		t.Errorf("Approver did not replace the policy: %v", err)
	}
}

// TestSecretFilesForTheView: the view hides the workspace's secrets
// files, as the screen names them, and what deny path rules for commands
// name (a denied folder whole), passing over .git and node_modules.
func TestSecretFilesForTheView(t *testing.T) {
	ws := t.TempDir()
	for _, p := range []string{".env", "deploy/id_rsa", "src/app.go", ".env.example", ".git/config", "node_modules/x/.env",
		"secrets/db.txt", "src/a.key", "docs/b.txt"} {
		if err := os.MkdirAll(filepath.Join(ws, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, p), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rules, err := policy.ParseRules([]byte("deny:\n- path: secrets/**\n- path: src/*.key\n- path: .git/**\n- path: node_modules\n- {tool: file_read, path: docs/*.txt}\n"), "rules.yaml")
	if err != nil {
		t.Fatal(err)
	}
	denied := func(abs, rel string) bool { return rules.DeniedToCommands(abs, rel, "") }
	got := (&secretFiles{root: ws, denied: denied, limit: maxSecretWalk}).list()
	want := []string{filepath.Join(ws, ".env"), filepath.Join(ws, "secrets"), filepath.Join(ws, "deploy", "id_rsa"), filepath.Join(ws, "src", "a.key")}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("secrets = %q, want %q", got, want)
	}
}

// TestSecretFilesPadded: a repository that pads a folder with more
// entries than one walk looks at cannot push the root's .env off the
// list, and the user is told that deeper files may go unhidden.
func TestSecretFilesPadded(t *testing.T) {
	ws := t.TempDir()
	for _, p := range []string{".a/1", ".a/2", ".a/3", ".a/4", ".a/5", ".a/6", ".a/b/.env", ".env"} {
		if err := os.MkdirAll(filepath.Join(ws, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, p), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cuts := 0
	s := &secretFiles{root: ws, limit: 5, cut: func() { cuts++ }}
	for range 2 {
		if got := s.walk(); !slices.Equal(got, []string{filepath.Join(ws, ".env")}) {
			t.Errorf("secrets = %q", got)
		}
	}
	if cuts != 1 {
		t.Errorf("told of the cut %d times, want once", cuts)
	}
}

// TestNoticeOnce: why the view is missing reaches the user with the next
// shell result, once.
func TestNoticeOnce(t *testing.T) {
	var n atomic.Pointer[string]
	sh := &noticed{toolFunc(func() tool.Result { return tool.Result{Content: "ok"} }), &n}
	n.Store(new("no view here"))
	for i, want := range []string{"no view here", ""} {
		res, err := sh.Run(context.Background(), nil)
		if err != nil || res.Notice != want {
			t.Errorf("run %d: notice %q, %v; want %q", i, res.Notice, err, want)
		}
	}
}

// toolFunc is a tool that returns what f gives.
type toolFunc func() tool.Result

func (toolFunc) Name() string       { return "shell_exec" }
func (toolFunc) Spec() llm.ToolSpec { return llm.ToolSpec{Name: "shell_exec"} }
func (f toolFunc) Run(context.Context, json.RawMessage) (tool.Result, error) {
	return f(), nil
}
func (toolFunc) Access(json.RawMessage) (tool.Access, error) { return tool.Access{}, nil }
