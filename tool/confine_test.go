package tool_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
)

// TestConfinementTravelsWithTheCall: the Decision's Confine reaches the
// tool's context, per call; calls that needed no approval run with the
// session's confinement.
func TestConfinementTravelsWithTheCall(t *testing.T) {
	seen := map[string]tool.Confinement{}
	ch := make(chan [2]any, 3)
	run := func(name string, mutates bool) *tool.Func {
		return &tool.Func{
			ToolSpec: llm.ToolSpec{Name: name},
			AccessFn: func(json.RawMessage) (tool.Access, error) { return tool.Access{Mutates: mutates}, nil },
			Fn: func(ctx context.Context, _ json.RawMessage) (tool.Result, error) {
				ch <- [2]any{name, tool.ConfinementFrom(ctx)}
				return tool.Result{Content: "ok"}, nil
			},
		}
	}
	reg, err := tool.NewRegistry(run("reader", true), run("writer", true), run("plain", false))
	if err != nil {
		t.Fatal(err)
	}
	approver := tool.ApproverFunc(func(_ context.Context, req tool.ApprovalRequest) (tool.Decision, error) {
		d := tool.Decision{Allow: true}
		if req.Tool == "reader" {
			d.Confine = tool.ConfineReadOnly
		}
		return d, nil
	})
	r := tool.NewRunner(reg, tool.RunnerOptions{Approver: approver})
	calls := []llm.ToolCall{{ID: "1", Name: "reader"}, {ID: "2", Name: "writer"}, {ID: "3", Name: "plain"}}
	if _, err := r.Run(context.Background(), calls, nil); err != nil {
		t.Fatal(err)
	}
	close(ch)
	for v := range ch {
		seen[v[0].(string)] = v[1].(tool.Confinement)
	}
	want := map[string]tool.Confinement{"reader": tool.ConfineReadOnly, "writer": tool.ConfineSession, "plain": tool.ConfineSession}
	for k, w := range want {
		if seen[k] != w {
			t.Errorf("%s ran with %v, want %v", k, seen[k], w)
		}
	}
	if tool.ConfinementFrom(context.Background()) != tool.ConfineSession {
		t.Error("no confinement in ctx must mean the session's")
	}
}

// TestAccessTravelsWithTheCall: the Access the approver judged reaches
// the tool's Run, whose paths a command may have changed since.
func TestAccessTravelsWithTheCall(t *testing.T) {
	got := make(chan tool.Access, 1)
	tl := &tool.Func{
		ToolSpec: llm.ToolSpec{Name: "reader"},
		AccessFn: func(json.RawMessage) (tool.Access, error) {
			return tool.Access{Paths: []tool.PathAccess{{Path: "/ws/judged"}}}, nil
		},
		Fn: func(ctx context.Context, _ json.RawMessage) (tool.Result, error) {
			a, _ := tool.AccessFrom(ctx)
			got <- a
			return tool.Result{}, nil
		},
	}
	reg, err := tool.NewRegistry(tl)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tool.NewRunner(reg, tool.RunnerOptions{}).Run(context.Background(), []llm.ToolCall{{ID: "1", Name: "reader"}}, nil); err != nil {
		t.Fatal(err)
	}
	if a := <-got; len(a.Paths) != 1 || a.Paths[0].Path != "/ws/judged" {
		t.Errorf("Run saw %+v", a)
	}
	if _, ok := tool.AccessFrom(context.Background()); ok {
		t.Error("a bare context carries an Access")
	}
}
