package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/fake"
	"github.com/godwit/godwit/tool"
)

func withTools(h *harness, names ...string) {
	for _, n := range names {
		h.tools = append(h.tools, &tool.Func{ToolSpec: llm.ToolSpec{Name: n},
			Fn: func(context.Context, json.RawMessage) (tool.Result, error) { return tool.Result{Content: "ok"}, nil }})
	}
}

func TestEndOfTurnChecks(t *testing.T) {
	tests := []struct {
		name   string
		steps  []fake.Step
		plan   []string
		checks []string // nudges expected, in order
		// answer is the turn's: a reply to a check made without any
		// further call does not replace the answer the check followed.
		answer string
	}{
		{"write without a check command", []fake.Step{
			{ToolCalls: []llm.ToolCall{fake.Call("1", "file_edit", map[string]string{"path": "a.go"})}},
			{Text: "Fixed."},
			{ToolCalls: []llm.ToolCall{fake.Call("2", "shell_exec", map[string]string{"command": "go test ./..."})}},
			{Text: "Fixed, and the tests pass."},
		}, nil, []string{agent.CheckUnverifiedWrite}, "Fixed, and the tests pass."},
		{"prose needs no check", []fake.Step{
			{ToolCalls: []llm.ToolCall{fake.Call("1", "file_edit", map[string]string{"path": "docs/notes.md"})}},
			{ToolCalls: []llm.ToolCall{fake.Call("2", "file_edit", map[string]string{"path": "LICENSE"})}},
			{Text: "Documented."},
		}, nil, nil, "Documented."},
		{"test data is checked even when it is text", []fake.Step{
			{ToolCalls: []llm.ToolCall{fake.Call("1", "file_edit", map[string]string{"path": "pkg/testdata/want.txt"})}},
			{Text: "Updated."},
			{Text: "Updated; no test reads it yet."},
		}, nil, []string{agent.CheckUnverifiedWrite}, "Updated."},
		{"code after prose is checked", []fake.Step{
			{ToolCalls: []llm.ToolCall{fake.Call("1", "file_edit", map[string]string{"path": "README.md"})}},
			{ToolCalls: []llm.ToolCall{fake.Call("2", "file_edit", map[string]string{"path": "Makefile"})}},
			{Text: "Done."},
			{Text: "Done, unchecked: no make here."},
		}, nil, []string{agent.CheckUnverifiedWrite}, "Done."},
		{"a failed write needs no check", []fake.Step{
			{ToolCalls: []llm.ToolCall{fake.Call("1", "file_write", map[string]string{"path": "a.go"})}},
			{Text: "Could not write."},
		}, nil, nil, "Could not write."},
		{"a write checked by a command passes", []fake.Step{
			{ToolCalls: []llm.ToolCall{fake.Call("1", "file_edit", map[string]string{"path": "a.go"})}},
			{ToolCalls: []llm.ToolCall{fake.Call("2", "shell_exec", map[string]string{"command": "go test ./..."})}},
			{Text: "Fixed; tests pass."},
		}, nil, nil, "Fixed; tests pass."},
		{"announced next step", []fake.Step{
			{Text: "I found the bug. Next I'll run the tests."},
			{Text: "ok"},
		}, nil, []string{agent.CheckAnnouncedStep}, "I found the bug. Next I'll run the tests."},
		{"open plan fires once", []fake.Step{
			{Text: "All done."},
			{Text: "Still done."},
		}, []string{"write docs"}, []string{agent.CheckOpenPlan}, "All done."},
		{"loop", []fake.Step{
			{ToolCalls: []llm.ToolCall{fake.Call("1", "echo", map[string]int{"a": 1})}},
			{ToolCalls: []llm.ToolCall{fake.Call("2", "echo", map[string]int{"a": 1})}},
			{ToolCalls: []llm.ToolCall{fake.Call("3", "echo", map[string]int{"a": 1})}},
			{Text: "Here it is."},
			{Text: "Here it is, for real."},
		}, nil, []string{agent.CheckLoop}, "Here it is."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.steps)
			withTools(h, "file_edit", "shell_exec")
			h.tools = append(h.tools, &tool.Func{ToolSpec: llm.ToolSpec{Name: "file_write"},
				Fn: func(context.Context, json.RawMessage) (tool.Result, error) {
					return tool.Result{}, tool.Errorf(tool.CodeDenied, "", "read-only")
				}})
			h.rt = h.runtime(func(c *agent.Config) {
				if tc.plan != nil {
					c.OpenPlan = func() []string { return tc.plan }
				}
			})
			res, err := h.rt.Run(context.Background(), agent.RunInput{Sink: h.rec, Prompt: "go"})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			if res.Text != tc.answer {
				t.Errorf("answer = %q, want %q", res.Text, tc.answer)
			}
			if fin := h.rec.OfType(agent.EventTurnFinished); len(fin) != 1 || fin[0].Finished.Text != tc.answer {
				t.Errorf("turn.finished text differs from the answer")
			}
			for _, e := range h.rec.OfType(agent.EventNudge) {
				got = append(got, e.Nudge.Check)
			}
			if strings.Join(got, ",") != strings.Join(tc.checks, ",") {
				t.Errorf("nudges = %v, want %v", got, tc.checks)
			}
			if h.fake.Remaining() != 0 {
				t.Errorf("%d scripted steps unused; final answer %q", h.fake.Remaining(), res.Text)
			}
		})
	}
}

func TestVerifyRounds(t *testing.T) {
	tests := []struct {
		name     string
		exits    []int
		steps    int
		wantErr  error
		verified bool
	}{
		{"passes at once", []int{0}, 1, nil, true},
		{"fails, fixed, passes", []int{1, 0}, 2, nil, true},
		{"still failing after the last round", []int{1, 1, 1}, 3, agent.ErrVerifyFailed, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var steps []fake.Step
			for range tc.steps {
				steps = append(steps, fake.Step{Text: "Done."})
			}
			h := newHarness(t, steps)
			runs := 0
			h.rt = h.runtime(func(c *agent.Config) {
				c.Verify = func(_ context.Context, cmd string, _ time.Duration) agent.VerifyOutcome {
					code := tc.exits[runs]
					runs++
					return agent.VerifyOutcome{ExitCode: code, Output: "--- FAIL: TestX\nx_test.go:7: boom", Duration: time.Millisecond}
				}
			})
			res, err := h.rt.Run(context.Background(), agent.RunInput{Sink: h.rec, Prompt: "fix", Verify: "go test ./...", VerifyRounds: 2})
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if res.Verified == nil || *res.Verified != tc.verified || runs != len(tc.exits) {
				t.Errorf("verified = %v after %d runs", res.Verified, runs)
			}
			stored, _ := h.st.VerifyRuns(context.Background(), res.SessionID)
			if len(stored) != len(tc.exits) {
				t.Errorf("%d verify runs recorded, want %d", len(stored), len(tc.exits))
			}
			if len(tc.exits) > 1 {
				msgs := h.fake.Requests()[1].Messages
				if last := msgs[len(msgs)-1].Text(); !strings.Contains(last, "x_test.go:7: boom") || !strings.Contains(last, "verify #1") {
					t.Errorf("the failure did not go back to the model: %q", last)
				}
			}
		})
	}
}

// approvalLog is the store, keeping the approvals the engine records.
type approvalLog struct {
	agent.Store
	mu  sync.Mutex
	got []store.Approval
}

func (l *approvalLog) RecordApproval(ctx context.Context, a store.Approval) (int64, error) {
	l.mu.Lock()
	l.got = append(l.got, a)
	l.mu.Unlock()
	return l.Store.RecordApproval(ctx, a)
}

func TestApprovalsAreRecorded(t *testing.T) {
	writer := &tool.Func{
		ToolSpec: llm.ToolSpec{Name: "write"},
		AccessFn: func(json.RawMessage) (tool.Access, error) {
			return tool.Access{Mutates: true, Summary: "write a.txt", Command: ""}, nil
		},
		Fn: func(context.Context, json.RawMessage) (tool.Result, error) { return tool.Result{Content: "ok"}, nil },
	}
	h := newHarness(t, []fake.Step{
		{ToolCalls: []llm.ToolCall{fake.Call("1", "write", nil), fake.Call("2", "write", map[string]int{"n": 2})}},
		{Text: "done"},
	})
	h.tools = append(h.tools, writer)
	n := 0
	st := &approvalLog{Store: h.st}
	h.rt = h.runtime(func(c *agent.Config) {
		c.Store = st
		reg, _ := tool.NewRegistry(h.tools...)
		c.Runner = tool.NewRunner(reg, tool.RunnerOptions{Approver: tool.ApproverFunc(func(context.Context, tool.ApprovalRequest) (tool.Decision, error) {
			n++
			if n == 1 {
				return tool.Decision{Allow: true, Manual: true}, nil
			}
			return tool.Decision{Reason: "read-only mode"}, nil
		})})
	})
	res, err := h.rt.Run(context.Background(), agent.RunInput{Sink: h.rec, Prompt: "write", NoChecks: true})
	if err != nil {
		t.Fatal(err)
	}
	got := st.got
	if len(got) != 2 || got[0].SessionID != res.SessionID {
		t.Fatalf("approvals = %+v", got)
	}
	if got[0].Decision != "allow" || got[0].Source != "user" || got[1].Decision != "deny" || got[1].Rule != "read-only mode" || got[1].Subject != "write a.txt" {
		t.Errorf("approvals = %+v", got)
	}
}
