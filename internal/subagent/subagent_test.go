package subagent_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/store/storetest"
	"github.com/godwit/godwit/internal/subagent"
	"github.com/godwit/godwit/internal/tool/fs"
	"github.com/godwit/godwit/internal/tool/recall"
	"github.com/godwit/godwit/internal/tool/workspace"
	"github.com/godwit/godwit/internal/window"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/fake"
	"github.com/godwit/godwit/tool"
)

// world is a parent agent with the real file tools and recall over a
// temp workspace, and a subagent tool whose child runtimes share the
// parent's scripted model and store, as wiring builds them.
type world struct {
	t      *testing.T
	st     *store.Store
	model  *fake.Provider
	ws     string
	parent *agent.Runtime
	sub    *subagent.Tool
	// childTables records the tool table of each child runtime built.
	childTables [][]string
}

func newWorld(t *testing.T, maxSteps int, steps ...fake.Step) *world {
	t.Helper()
	w := &world{t: t, model: fake.New(steps...), ws: t.TempDir()}
	w.st = storetest.Open(t)
	if err := os.WriteFile(filepath.Join(w.ws, "auth.go"), []byte("package auth\n\nfunc Login() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wsp, err := workspace.New(w.ws)
	if err != nil {
		t.Fatal(err)
	}
	parentTools, err := tool.NewRegistry(append(fs.Tools(wsp, fs.Options{}), recall.New(w.st.In(w.ws)))...)
	if err != nil {
		t.Fatal(err)
	}
	w.sub, err = subagent.New(subagent.Options{
		Parent: parentTools, Store: w.st, Workspace: w.ws, Model: "fake/scripted", MaxSteps: maxSteps,
		New: func(_ context.Context, c subagent.Child) (*agent.Runtime, error) {
			w.childTables = append(w.childTables, c.Tools.Names())
			return agent.New(agent.Config{
				Provider: w.model, Model: "scripted", Store: w.st, Workspace: w.ws, MaxSteps: c.MaxSteps,
				Assembler: window.New(window.Options{System: c.System, Tools: c.Tools.Specs()}),
				Runner:    tool.NewRunner(c.Tools, tool.RunnerOptions{}), // no approver: nothing that mutates runs
			})
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := parentTools.Add(w.sub); err != nil {
		t.Fatal(err)
	}
	w.parent, err = agent.New(agent.Config{
		Provider: w.model, Model: "scripted", Store: w.st, Workspace: w.ws,
		Assembler: window.New(window.Options{System: "parent", Tools: parentTools.Specs()}),
		Runner:    tool.NewRunner(parentTools, tool.RunnerOptions{Approver: tool.AllowAll{}}),
	})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *world) run(prompt string) agent.Result {
	w.t.Helper()
	res, err := w.parent.Run(context.Background(), agent.RunInput{Prompt: prompt, NoChecks: true})
	if err != nil {
		w.t.Fatal(err)
	}
	return res
}

func call(id, name string, args any) fake.Step {
	return fake.Step{ToolCalls: []llm.ToolCall{fake.Call(id, name, args)}}
}

func lastResult(req llm.Request) string {
	m := req.Messages[len(req.Messages)-1]
	for _, p := range m.Parts {
		if p.ToolResult != nil {
			return p.ToolResult.Content
		}
	}
	return ""
}

func TestReportReachesTheParentAndTheChildIsRecorded(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 0,
		call("p1", "subagent", map[string]string{"task": "Where is Login defined?"}),
		call("c1", "grep", map[string]string{"pattern": "func Login"}),
		fake.Step{Text: "Login is defined in auth.go:3."},
		fake.Step{Text: "It is in auth.go."},
	)
	res := w.run("find login")
	if res.Text != "It is in auth.go." {
		t.Errorf("answer = %q", res.Text)
	}
	reqs := w.model.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	if got := lastResult(reqs[2]); !strings.Contains(got, "3:func Login") {
		t.Errorf("the child's grep result = %q", got)
	}
	report := lastResult(reqs[3])
	if !strings.HasPrefix(report, "Login is defined in auth.go:3.\n[subagent session ") || !strings.Contains(report, ": 2 steps]") {
		t.Errorf("the parent saw %q", report)
	}
	if reqs[1].System != subagent.System() || reqs[1].Messages[0].Text() != "Where is Login defined?" {
		t.Errorf("the child's request: system %q, first message %q", reqs[1].System, reqs[1].Messages[0].Text())
	}

	sessions, err := w.st.ListSessions(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	var child store.SessionSummary
	for _, s := range sessions {
		if s.ParentID == res.SessionID {
			child = s
		}
	}
	if child.ID == "" || !strings.Contains(report, child.ID) || child.Turns != 1 {
		t.Errorf("no child session of %s recorded with one turn: %+v", res.SessionID, sessions)
	}
}

func TestTheChildCannotWriteOrStartSubagents(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 0,
		call("p1", "subagent", map[string]string{"task": "fix it"}),
		call("c1", "file_write", map[string]string{"path": "x.go", "content": "package x"}),
		call("c2", "subagent", map[string]string{"task": "recurse"}),
		fake.Step{Text: "I could not write."},
		fake.Step{Text: "ok"},
	)
	w.run("go")
	reqs := w.model.Requests()
	want := "file_read file_list grep recall"
	for _, table := range w.childTables {
		if strings.Join(table, " ") != want {
			t.Errorf("child tools = %v, want %s", table, want)
		}
	}
	var names []string
	for _, s := range reqs[1].Tools {
		names = append(names, s.Name)
	}
	if strings.Join(names, " ") != want {
		t.Errorf("child tool table = %v", names)
	}
	for i, tc := range []struct{ req int }{{2}, {3}} {
		if got := lastResult(reqs[tc.req]); !strings.Contains(got, "UNKNOWN_TOOL") {
			t.Errorf("call %d: %q, want UNKNOWN_TOOL", i, got)
		}
	}
	if _, err := os.Stat(filepath.Join(w.ws, "x.go")); err == nil {
		t.Error("the sub-agent wrote a file")
	}
}

func TestAToolThatDeclaresAWriteIsDenied(t *testing.T) {
	t.Parallel()
	st := storetest.Open(t)
	writer := &tool.Func{ToolSpec: llm.ToolSpec{Name: "sneaky"},
		Fn: func(context.Context, json.RawMessage) (tool.Result, error) { return tool.Result{Content: "wrote"}, nil },
		AccessFn: func(json.RawMessage) (tool.Access, error) {
			return tool.Access{Paths: []tool.PathAccess{{Path: "/ws/x", Write: true}}}, nil
		}}
	reg, _ := tool.NewRegistry()
	sub, err := subagent.New(subagent.Options{Parent: reg, Extra: []tool.Tool{writer}, Store: st,
		New: func(context.Context, subagent.Child) (*agent.Runtime, error) { return nil, nil }})
	if err != nil {
		t.Fatal(err)
	}
	guarded, _ := sub.Registry().Get("sneaky")
	_, err = guarded.(tool.Accessor).Access(json.RawMessage(`{}`))
	if te := tool.AsToolError(err); te.Code != tool.CodeDenied || !strings.Contains(te.Message, "cannot write") {
		t.Errorf("access = %v, want DENIED", err)
	}
}

func TestStepLimitStillYieldsAReport(t *testing.T) {
	t.Parallel()
	grep := call("c", "grep", map[string]string{"pattern": "Login"})
	w := newWorld(t, 2,
		call("p1", "subagent", map[string]string{"task": "look around"}),
		grep, grep, // the limit of 2 steps ends the first child turn
		fake.Step{Text: "Partial: Login is in auth.go; callers not checked."},
		fake.Step{Text: "ok"},
	)
	w.run("go")
	reqs := w.model.Requests()
	if got := reqs[3].Messages[len(reqs[3].Messages)-1].Text(); !strings.Contains(got, "write your report now") {
		t.Errorf("the wrap-up prompt = %q", got)
	}
	report := lastResult(reqs[4])
	if !strings.HasPrefix(report, "Partial: Login is in auth.go") || !strings.Contains(report, "cut at its limit of 2 steps") {
		t.Errorf("report = %q", report)
	}
}

func TestRecallSearchesTheParentSession(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 0,
		call("p1", "subagent", map[string]string{"task": "what did the user say about zebras?"}),
		call("c1", "recall", map[string]string{"query": "zebras"}),
		fake.Step{Text: "The user wants zebras."},
		fake.Step{Text: "ok"},
	)
	w.run("remember: zebras are striped")
	if got := lastResult(w.model.Requests()[2]); !strings.Contains(got, "zebras are striped") {
		t.Errorf("recall in the child found %q, want the parent's message", got)
	}
}

func TestBadOptions(t *testing.T) {
	t.Parallel()
	st := storetest.Open(t)
	reg, _ := tool.NewRegistry()
	build := func(context.Context, subagent.Child) (*agent.Runtime, error) { return nil, nil }
	for _, tc := range []struct {
		name string
		opts subagent.Options
		want string
	}{
		{"no parent", subagent.Options{Store: st, New: build}, "Parent is required"},
		{"no store", subagent.Options{Parent: reg, New: build}, "Store is required"},
		{"no constructor", subagent.Options{Parent: reg, Store: st}, "New is required"},
		{"a writer", subagent.Options{Parent: reg, Store: st, New: build, Names: []string{"file_write"}}, "must not get file_write"},
		{"itself", subagent.Options{Parent: reg, Store: st, New: build, Names: []string{"subagent"}}, "must not get subagent"},
		{"nothing", subagent.Options{Parent: reg, Store: st, New: build}, "none of the tools"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := subagent.New(tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestEmptyTaskIsBadArgs(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 0)
	_, err := w.sub.Run(context.Background(), json.RawMessage(`{"task":"  "}`))
	if te := tool.AsToolError(err); te.Code != tool.CodeBadArgs {
		t.Errorf("err = %v", err)
	}
}

// TestSpecSize pins what the tool costs on every request: growing it is
// a deliberate change to this number.
func TestSpecSize(t *testing.T) {
	t.Parallel()
	spec := (&subagent.Tool{}).Spec()
	whole, _ := json.Marshal(spec)
	if n := window.NewCounter().Count(string(whole)); n != 94 {
		t.Errorf("subagent's spec is %d o200k tokens, pinned at 94: update the pin if the growth is meant", n)
	}
}
