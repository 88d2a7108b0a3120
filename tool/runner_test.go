package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
)

// probe tracks, per path, how many readers and writers are inside Run, and
// fails the test on any overlap the locks should have prevented.
type probe struct {
	t         *testing.T
	mu        sync.Mutex
	readers   map[string]int
	writers   map[string]int
	exclusive int
	active    int
	maxActive int
}

func newProbe(t *testing.T) *probe {
	return &probe{t: t, readers: map[string]int{}, writers: map[string]int{}}
}

func (p *probe) enter(path string, write, excl bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.active++
	p.maxActive = max(p.maxActive, p.active)
	switch {
	case excl:
		if p.active != 1 || p.exclusive != 0 {
			p.t.Errorf("exclusive call overlaps %d others", p.active-1)
		}
		p.exclusive++
	case p.exclusive > 0:
		p.t.Errorf("call on %s overlaps an exclusive call", path)
	case write:
		if p.readers[path] > 0 || p.writers[path] > 0 {
			p.t.Errorf("write of %s overlaps %d readers and %d writers", path, p.readers[path], p.writers[path])
		}
		p.writers[path]++
	default:
		if p.writers[path] > 0 {
			p.t.Errorf("read of %s overlaps a write", path)
		}
		p.readers[path]++
	}
}

func (p *probe) leave(path string, write, excl bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.active--
	switch {
	case excl:
		p.exclusive--
	case write:
		p.writers[path]--
	default:
		p.readers[path]--
	}
}

type pathArgs struct {
	Path string `json:"path"`
	ID   int    `json:"id"`
}

// probeTool is a read, write or exclusive tool that reports to a probe and
// echoes its id, so the test can check result order.
func probeTool(p *probe, name string, write, excl bool, hold func()) tool.Tool {
	return &tool.Func{
		ToolSpec: llm.ToolSpec{Name: name},
		AccessFn: func(raw json.RawMessage) (tool.Access, error) {
			var a pathArgs
			if err := json.Unmarshal(raw, &a); err != nil {
				return tool.Access{}, err
			}
			acc := tool.Access{Exclusive: excl, Mutates: write || excl}
			if !excl {
				acc.Paths = []tool.PathAccess{{Path: "/ws/" + a.Path, Write: write}}
			}
			return acc, nil
		},
		Fn: func(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
			var a pathArgs
			_ = json.Unmarshal(raw, &a)
			p.enter(a.Path, write, excl)
			if hold != nil {
				hold()
			}
			p.leave(a.Path, write, excl)
			return tool.Result{Content: fmt.Sprint(a.ID)}, nil
		},
	}
}

func call(id int, name, path string) llm.ToolCall {
	args, _ := json.Marshal(pathArgs{Path: path, ID: id})
	return llm.ToolCall{ID: fmt.Sprint("c", id), Name: name, Args: args}
}

func newRunner(t *testing.T, approver tool.Approver, tools ...tool.Tool) *tool.Runner {
	t.Helper()
	reg, err := tool.NewRegistry(tools...)
	if err != nil {
		t.Fatal(err)
	}
	return tool.NewRunner(reg, tool.RunnerOptions{Approver: approver})
}

func TestRunnerReadsOfOnePathOverlap(t *testing.T) {
	p := newProbe(t)
	// Each read waits until the other is inside: only concurrent reads
	// get past the barrier. The timeout only guards against a hang.
	var inside atomic.Int32
	both := make(chan struct{})
	hold := func() {
		if inside.Add(1) == 2 {
			close(both)
		}
		select {
		case <-both:
		case <-time.After(10 * time.Second):
			t.Error("the two reads of one path never ran at the same time")
		}
	}
	r := newRunner(t, nil, probeTool(p, "read", false, false, hold))
	out, err := r.Run(context.Background(), []llm.ToolCall{call(1, "read", "a.go"), call(2, "read", "a.go")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range out {
		if o.Result.IsError || o.Result.Content != fmt.Sprint(i+1) {
			t.Errorf("outcome %d = %+v", i, o.Result)
		}
	}
}

func TestRunnerRandomMixesNeverOverlapOrDeadlock(t *testing.T) {
	p := newProbe(t)
	hold := func() { time.Sleep(time.Duration(rand.IntN(200)) * time.Microsecond) }
	r := newRunner(t, tool.AllowAll{},
		probeTool(p, "read", false, false, hold),
		probeTool(p, "write", true, false, hold),
		probeTool(p, "shell", false, true, hold),
	)
	names := []string{"read", "read", "read", "write", "write", "shell"}
	paths := []string{"a", "b", "c", "d"}
	for round := range 20 {
		calls := make([]llm.ToolCall, 50)
		for i := range calls {
			calls[i] = call(i, names[rand.IntN(len(names))], paths[rand.IntN(len(paths))])
		}
		done := make(chan []tool.Outcome)
		go func() {
			out, err := r.Run(context.Background(), calls, nil)
			if err != nil {
				t.Error(err)
			}
			done <- out
		}()
		select {
		case out := <-done:
			for i, o := range out {
				if o.Call.ID != calls[i].ID || o.Result.Content != fmt.Sprint(i) {
					t.Fatalf("round %d: outcome %d is %s/%q, want %s/%d", round, i, o.Call.ID, o.Result.Content, calls[i].ID, i)
				}
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("round %d: deadlock", round)
		}
	}
	if p.maxActive > tool.DefaultConcurrency {
		t.Errorf("%d calls ran at once; the semaphore allows %d", p.maxActive, tool.DefaultConcurrency)
	}
}

// multiPath declares several paths, unsorted and repeated, to exercise
// the merge (write wins) and the sorted lock order.
func TestRunnerMergedPathLocks(t *testing.T) {
	var active atomic.Int32
	tl := &tool.Func{
		ToolSpec: llm.ToolSpec{Name: "multi"},
		AccessFn: func(json.RawMessage) (tool.Access, error) {
			return tool.Access{Mutates: true, Paths: []tool.PathAccess{
				{Path: "/ws/z"}, {Path: "/ws/a", Write: true}, {Path: "/ws/z", Write: true}, {Path: "/ws/a"},
			}}, nil
		},
		Fn: func(context.Context, json.RawMessage) (tool.Result, error) {
			if n := active.Add(1); n != 1 {
				return tool.Result{}, fmt.Errorf("%d writers of the same paths at once", n)
			}
			time.Sleep(100 * time.Microsecond)
			active.Add(-1)
			return tool.Result{Content: "ok"}, nil
		},
	}
	r := newRunner(t, tool.AllowAll{}, tl)
	calls := make([]llm.ToolCall, 20)
	for i := range calls {
		calls[i] = llm.ToolCall{ID: fmt.Sprint(i), Name: "multi", Args: json.RawMessage(`{}`)}
	}
	out, _ := r.Run(context.Background(), calls, nil)
	for _, o := range out {
		if o.Result.IsError {
			t.Fatal(o.Result.Content)
		}
	}
}

func TestRunnerErrorsReachTheModel(t *testing.T) {
	echo := &tool.Func{ToolSpec: llm.ToolSpec{Name: "echo"}, Fn: func(_ context.Context, raw json.RawMessage) (tool.Result, error) {
		return tool.Result{Content: string(raw)}, nil
	}}
	failing := &tool.Func{ToolSpec: llm.ToolSpec{Name: "fail"}, Fn: func(context.Context, json.RawMessage) (tool.Result, error) {
		return tool.Result{}, tool.Errorf(tool.CodeEditNoMatch, "re-read it", "no match")
	}}
	panicky := &tool.Func{ToolSpec: llm.ToolSpec{Name: "panic"}, Fn: func(context.Context, json.RawMessage) (tool.Result, error) {
		panic("boom")
	}}
	writer := &tool.Func{
		ToolSpec: llm.ToolSpec{Name: "write"},
		AccessFn: func(json.RawMessage) (tool.Access, error) { return tool.Access{Mutates: true, Summary: "write x"}, nil },
		Fn: func(context.Context, json.RawMessage) (tool.Result, error) {
			return tool.Result{Content: "written"}, nil
		},
	}
	tests := []struct {
		name     string
		approver tool.Approver
		call     llm.ToolCall
		wantErr  bool
		want     string
	}{
		{"ok", nil, llm.ToolCall{ID: "1", Name: "echo", Args: json.RawMessage(`{"a":1}`)}, false, `{"a":1}`},
		{"null args become {}", nil, llm.ToolCall{ID: "1", Name: "echo", Args: json.RawMessage(`null`)}, false, `{}`},
		{"invalid json", nil, llm.ToolCall{ID: "1", Name: "echo", Args: json.RawMessage(`{"a":`)}, true, "ERROR BAD_ARGS"},
		{"unknown tool", nil, llm.ToolCall{ID: "1", Name: "nope"}, true, "ERROR UNKNOWN_TOOL: no tool named \"nope\"\nUse one of: echo, fail, panic, write."},
		{"tool error with remedy", nil, llm.ToolCall{ID: "1", Name: "fail"}, true, "ERROR EDIT_NO_MATCH: no match\nre-read it"},
		{"panic recovered", nil, llm.ToolCall{ID: "1", Name: "panic"}, true, "ERROR FAILED: the panic tool crashed: boom"},
		{"no approver denies", nil, llm.ToolCall{ID: "1", Name: "write"}, true, "ERROR DENIED: denied: no approver is configured"},
		{"approver denies", tool.ApproverFunc(func(context.Context, tool.ApprovalRequest) (tool.Decision, error) {
			return tool.Decision{Reason: "read-only"}, nil
		}), llm.ToolCall{ID: "1", Name: "write"}, true, "ERROR DENIED: denied: read-only"},
		{"manual approval is said", tool.ApproverFunc(func(context.Context, tool.ApprovalRequest) (tool.Decision, error) {
			return tool.Decision{Allow: true, Manual: true}, nil
		}), llm.ToolCall{ID: "1", Name: "write"}, false, "written\n" + tool.ManualApprovalNote},
		{"rule approval is silent", tool.AllowAll{}, llm.ToolCall{ID: "1", Name: "write"}, false, "written"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRunner(t, tc.approver, echo, failing, panicky, writer)
			out, err := r.Run(context.Background(), []llm.ToolCall{tc.call}, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := out[0].Result
			if got.IsError != tc.wantErr || !strings.HasPrefix(got.Content, tc.want) {
				t.Errorf("result = %v %q, want %v %q", got.IsError, got.Content, tc.wantErr, tc.want)
			}
		})
	}
}

func TestRunnerFatalEndsTheBatch(t *testing.T) {
	boom := errors.New("store is gone")
	fatal := &tool.Func{ToolSpec: llm.ToolSpec{Name: "fatal"}, Fn: func(context.Context, json.RawMessage) (tool.Result, error) {
		return tool.Result{}, tool.Fatal(boom)
	}}
	ok := &tool.Func{ToolSpec: llm.ToolSpec{Name: "ok"}, Fn: func(context.Context, json.RawMessage) (tool.Result, error) {
		return tool.Result{Content: "fine"}, nil
	}}
	r := newRunner(t, nil, fatal, ok)
	out, err := r.Run(context.Background(), []llm.ToolCall{{ID: "1", Name: "fatal"}, {ID: "2", Name: "ok"}}, nil)
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want %v", err, boom)
	}
	if len(out) != 2 || !out[0].Result.IsError || out[1].Result.Content != "fine" {
		t.Errorf("siblings must still finish: %+v", out)
	}
}

func TestRunnerCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	slow := &tool.Func{ToolSpec: llm.ToolSpec{Name: "slow"}, Fn: func(ctx context.Context, _ json.RawMessage) (tool.Result, error) {
		cancel()
		<-ctx.Done()
		return tool.Result{}, ctx.Err()
	}}
	r := newRunner(t, nil, slow)
	out, err := r.Run(ctx, []llm.ToolCall{{ID: "1", Name: "slow"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := out[0].Result; got.Code != tool.CodeCancelled {
		t.Errorf("code = %q, want CANCELLED", got.Code)
	}
}

func TestAsToolErrorMapsErrno(t *testing.T) {
	_, err := os.ReadFile("/definitely/not/here")
	te := tool.AsToolError(err)
	if te.Code != tool.CodeNotFound || !strings.Contains(te.Remedy, "file_list") {
		t.Errorf("got %+v", te)
	}
}

type screener struct {
	tool.ApproverFunc
	secret string
}

func (s screener) NeedsApproval(_ string, a tool.Access) bool {
	for _, p := range a.Paths {
		if p.Path == s.secret {
			return true
		}
	}
	return false
}

func TestRunnerAsksAReadScreenerAboutReads(t *testing.T) {
	asked := 0
	sc := screener{secret: "/ws/.env", ApproverFunc: func(context.Context, tool.ApprovalRequest) (tool.Decision, error) {
		asked++
		return tool.Decision{Reason: "secret"}, nil
	}}
	p := newProbe(t)
	r := newRunner(t, sc, probeTool(p, "read", false, false, nil))
	out, err := r.Run(context.Background(), []llm.ToolCall{call(1, "read", "main.go"), call(2, "read", ".env")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if asked != 1 || out[0].Result.IsError || out[1].Result.Code != tool.CodeDenied {
		t.Errorf("asked %d times; results %+v / %+v", asked, out[0].Result, out[1].Result)
	}
}

func TestRunnerGivesToolsTheirCallID(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]bool{}
	tl := &tool.Func{ToolSpec: llm.ToolSpec{Name: "who"}, Fn: func(ctx context.Context, _ json.RawMessage) (tool.Result, error) {
		mu.Lock()
		defer mu.Unlock()
		seen[tool.CallIDFrom(ctx)] = true
		return tool.Result{}, nil
	}}
	reg, err := tool.NewRegistry(tl)
	if err != nil {
		t.Fatal(err)
	}
	r := tool.NewRunner(reg, tool.RunnerOptions{Approver: tool.AllowAll{}})
	if _, err := r.Run(context.Background(), []llm.ToolCall{{ID: "a", Name: "who"}, {ID: "b", Name: "who"}}, nil); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 || !seen["a"] || !seen["b"] {
		t.Errorf("tools saw call ids %v", seen)
	}
	if tool.CallIDFrom(context.Background()) != "" {
		t.Error("a bare context carries a call id")
	}
}
