package fs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/tool/fs"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
)

// probe wraps a real tool to see, from inside Run (where the runner holds
// the call's locks), which calls are running at the same time.
type probe struct {
	tool.Tool
	enter func()
	exit  func()
}

func (p probe) Access(args json.RawMessage) (tool.Access, error) {
	return p.Tool.(tool.Accessor).Access(args)
}

func (p probe) Run(ctx context.Context, args json.RawMessage) (tool.Result, error) {
	p.enter()
	defer p.exit()
	return p.Tool.Run(ctx, args)
}

func runner(t *testing.T, tools ...tool.Tool) *tool.Runner {
	t.Helper()
	reg, err := tool.NewRegistry(tools...)
	if err != nil {
		t.Fatal(err)
	}
	return tool.NewRunner(reg, tool.RunnerOptions{Approver: tool.AllowAll{}})
}

func toolCall(id, name string, args map[string]any) llm.ToolCall {
	b, _ := json.Marshal(args)
	return llm.ToolCall{ID: id, Name: name, Args: b}
}

func TestReadsOfOnePathOverlap(t *testing.T) {
	ws, _ := newWS(t, map[string]string{"f.txt": "x\n"})
	var mu sync.Mutex
	arrived := 0
	both := make(chan struct{})
	read := probe{Tool: fs.NewRead(ws), exit: func() {}, enter: func() {
		mu.Lock()
		arrived++
		if arrived == 2 {
			close(both)
		}
		mu.Unlock()
		// Each read waits inside its lock for the other: only shared
		// read locks let both arrive. The timeout only ends a failing run.
		select {
		case <-both:
		case <-time.After(10 * time.Second):
			t.Error("two reads of one path did not run at the same time")
		}
	}}
	r := runner(t, read)
	calls := []llm.ToolCall{
		toolCall("1", "file_read", map[string]any{"path": "f.txt"}),
		toolCall("2", "file_read", map[string]any{"path": "./f.txt"}),
	}
	out, err := r.Run(context.Background(), calls, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range out {
		if o.Call.ID != calls[i].ID || o.Result.IsError || o.Result.Content != "1\tx\n" {
			t.Errorf("outcome %d: %+v", i, o)
		}
	}
}

func TestReadAndEditOfOnePathNeverOverlap(t *testing.T) {
	ws, _ := newWS(t, map[string]string{"f.txt": "v0\n"})
	var readers, writers atomic.Int32
	var violations atomic.Int32
	read := probe{Tool: fs.NewRead(ws),
		enter: func() {
			readers.Add(1)
			if writers.Load() > 0 {
				violations.Add(1)
			}
			// Stay a moment inside the lock so that a wrongly admitted edit
			// would be caught; a correct runner passes however long this is.
			time.Sleep(time.Millisecond)
		},
		exit: func() { readers.Add(-1) },
	}
	edit := probe{Tool: fs.NewEdit(ws, fs.Options{BeforeWrite: func(context.Context, string) error {
		if readers.Load() > 0 {
			violations.Add(1)
		}
		time.Sleep(time.Millisecond)
		return nil
	}}),
		enter: func() { writers.Add(1) },
		exit:  func() { writers.Add(-1) },
	}
	r := runner(t, read, edit)
	for i := range 20 {
		calls := []llm.ToolCall{
			toolCall("r1", "file_read", map[string]any{"path": "f.txt"}),
			toolCall("e", "file_edit", map[string]any{"path": "f.txt", "old_text": fmt.Sprintf("v%d", i), "new_text": fmt.Sprintf("v%d", i+1)}),
			toolCall("r2", "file_read", map[string]any{"path": "f.txt"}),
		}
		out, err := r.Run(context.Background(), calls, nil)
		if err != nil {
			t.Fatal(err)
		}
		for j, o := range out {
			if o.Call.ID != calls[j].ID || o.Result.IsError {
				t.Fatalf("batch %d outcome %d: %+v", i, j, o)
			}
		}
		for _, j := range []int{0, 2} {
			if c := out[j].Result.Content; c != fmt.Sprintf("1\tv%d\n", i) && c != fmt.Sprintf("1\tv%d\n", i+1) {
				t.Errorf("read saw %q, neither before nor after the edit", c)
			}
		}
	}
	if n := violations.Load(); n > 0 {
		t.Errorf("a read and an edit of one path ran at the same time %d times", n)
	}
}
