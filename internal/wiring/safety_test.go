package wiring

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/godwit/godwit/internal/policy"
	"github.com/godwit/godwit/internal/sandbox"
	"github.com/godwit/godwit/internal/store/storetest"
	"github.com/godwit/godwit/tool"
)

func liveGuard(t *testing.T, opts Options) (*guard, string) {
	t.Helper()
	ws := t.TempDir()
	if real, err := filepath.EvalSymlinks(ws); err == nil {
		ws = real
	}
	st := storetest.Open(t) // closed after the guard's closers below
	var closers []func() error
	t.Cleanup(func() {
		for _, c := range closers {
			_ = c()
		}
	})
	opts.Home = t.TempDir()
	g, err := newGuard(opts, ws, st, &closers)
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
	g, ws := liveGuard(t, Options{LiveMode: func() policy.Mode { return policy.Mode(mode.Load()) }, Prompter: always})
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
		{policy.Auto, true, "--yes", false, true},
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
	g, _ := liveGuard(t, Options{Mode: policy.Ask, Gate: gate})
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
	g, _ = liveGuard(t, Options{Mode: policy.Auto, Gate: gate, Approver: denyAll})
	if _, err := g.approver.Approve(context.Background(), tool.ApprovalRequest{Tool: "x"}); err == nil || err.Error() != "replaced" {
		t.Errorf("Approver did not replace the policy: %v", err)
	}
}
