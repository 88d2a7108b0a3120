//go:build unix

package shell

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
)

// TestReadOnlyWrapFollowsTheDecision: a command the approver confined
// to reading is wrapped by ReadOnlyWrap, in the foreground and as a job;
// any other by Wrap.
func TestReadOnlyWrapFollowsTheDecision(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	record := func(kind string) func(*exec.Cmd) error {
		return func(cmd *exec.Cmd) error {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, kind+": "+cmd.Args[len(cmd.Args)-1])
			return nil
		}
	}
	s := newShell(t, func(o *Options) {
		o.Wrap = record("session")
		o.ReadOnlyWrap = record("read-only")
	})
	reg, err := tool.NewRegistry(s)
	if err != nil {
		t.Fatal(err)
	}
	approver := tool.ApproverFunc(func(_ context.Context, req tool.ApprovalRequest) (tool.Decision, error) {
		d := tool.Decision{Allow: true}
		if strings.HasPrefix(req.Access.Command, "cat") {
			d.Confine = tool.ConfineReadOnly
		}
		return d, nil
	})
	r := tool.NewRunner(reg, tool.RunnerOptions{Approver: approver, Concurrency: 1})
	calls := []llm.ToolCall{
		{ID: "1", Name: Name, Args: json.RawMessage(`{"command":"cat /dev/null"}`)},
		{ID: "2", Name: Name, Args: json.RawMessage(`{"command":"true"}`)},
		{ID: "3", Name: Name, Args: json.RawMessage(`{"command":"cat /dev/null","background":true}`)},
	}
	if _, err := r.Run(context.Background(), calls, nil); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(seen, "|")
	for _, want := range []string{"read-only: cat /dev/null", "session: true"} {
		if !strings.Contains(got, want) {
			t.Errorf("wraps saw %q, want %q", got, want)
		}
	}
	if strings.Count(got, "read-only: cat /dev/null") != 2 || strings.Contains(got, "session: cat") {
		t.Errorf("a confined command, foreground or job, must get ReadOnlyWrap only: %q", got)
	}
}
