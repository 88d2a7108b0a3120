package mcp_test

import (
	"bufio"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/mcp"
	"github.com/godwit/godwit/internal/peertest"
	"github.com/godwit/godwit/internal/store/storetest"
	"github.com/godwit/godwit/internal/window"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/fake"
	"github.com/godwit/godwit/tool"
)

// The tests in this file run real MCP peers we did not write: the
// reference server-everything from npm, pinned in testdata/peer. They
// skip when node or the installed packages are missing, and fail under
// CI (peertest): .ci/run installs them with `npm ci --prefix
// internal/mcp/testdata/peer`.

// peerDir returns testdata/peer; peertest decides when node or its
// node_modules are missing.
func peerDir(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		peertest.Missing(t, "node is not installed; the real-peer tests need Node 20 or later")
	}
	dir, err := filepath.Abs(filepath.Join("testdata", "peer"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		peertest.Missing(t, "the npm peers are not installed: run `npm ci` in internal/mcp/testdata/peer")
	}
	return dir
}

func everythingJS(t *testing.T) string {
	t.Helper()
	js := filepath.Join(peerDir(t), "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(js); err != nil {
		peertest.Missing(t, "server-everything is not installed: run `npm ci` in internal/mcp/testdata/peer")
	}
	return js
}

func TestServerEverythingOverStdio(t *testing.T) {
	t.Parallel()
	js := everythingJS(t)
	m, _ := start(t, mcp.Options{Config: mcp.Config{Servers: map[string]mcp.ServerConfig{
		"everything": {Command: "node", Args: []string{js, "stdio"}},
	}}})
	checkEverything(t, m)
}

func TestServerEverythingOverStreamableHTTP(t *testing.T) {
	t.Parallel()
	js := everythingJS(t)
	port := freePort(t)
	cmd := exec.Command("node", js, "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on port") {
				close(ready)
				break
			}
		}
		for sc.Scan() {
		}
	}()
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		t.Fatal("server-everything did not start listening in 30s")
	}
	m, _ := start(t, mcp.Options{Config: mcp.Config{Servers: map[string]mcp.ServerConfig{
		"everything": {Type: "http", URL: "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp"},
	}}})
	checkEverything(t, m)
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// checkEverything lists the server's tools and has a scripted model call
// echo through a real agent.Runtime: the echo must come back to the
// model in the next request.
func checkEverything(t *testing.T, m *mcp.Manager) {
	t.Helper()
	st := m.Statuses()[0]
	if st.State != mcp.StateReady || len(st.Tools) < 5 {
		t.Fatalf("status = %v", st)
	}
	tools := m.Tools()
	echo := find(t, tools, "mcp__everything__echo")
	if acc, _ := echo.(tool.Accessor).Access(nil); acc.Mutates {
		t.Error("echo is readOnlyHint but declares Mutates")
	}

	model := fake.New(
		fake.Step{ToolCalls: []llm.ToolCall{fake.Call("c1", "mcp__everything__echo", map[string]string{"message": "hello from godwit"})}},
		fake.Step{Text: "done"},
	)
	res := runAgent(t, model, tools, "echo something")
	if res.Text != "done" {
		t.Errorf("answer = %q", res.Text)
	}
	reqs := model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if !hasTool(reqs[0].Tools, "mcp__everything__echo") {
		t.Error("the tool table lacks mcp__everything__echo")
	}
	if got := lastToolResult(reqs[1]); !strings.Contains(got, "Echo: hello from godwit") {
		t.Errorf("the model saw %q, want the echo", got)
	}
}

// runAgent runs one turn of a real Runtime over tools, with no approver:
// only calls that need no approval can run.
func runAgent(t *testing.T, model *fake.Provider, tools []tool.Tool, prompt string) agent.Result {
	t.Helper()
	st := storetest.Open(t)
	reg, err := tool.NewRegistry(tools...)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := agent.New(agent.Config{
		Provider:  model,
		Model:     "scripted",
		Assembler: window.New(window.Options{System: "sys", Tools: reg.Specs()}),
		Runner:    tool.NewRunner(reg, tool.RunnerOptions{}),
		Store:     st,
		Workspace: t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := rt.Run(ctx, agent.RunInput{Prompt: prompt, NoChecks: true})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func hasTool(specs []llm.ToolSpec, name string) bool {
	for _, s := range specs {
		if s.Name == name {
			return true
		}
	}
	return false
}

func lastToolResult(req llm.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		for _, p := range req.Messages[i].Parts {
			if p.ToolResult != nil {
				return p.ToolResult.Content
			}
		}
	}
	return ""
}

// The reference server's long operation sends notifications/progress for
// the progress token godwit puts on the call; they reach whoever runs the
// call, in order.
func TestServerEverythingProgress(t *testing.T) {
	js := everythingJS(t)
	m, _ := start(t, mcp.Options{Config: mcp.Config{Servers: map[string]mcp.ServerConfig{
		"everything": {Command: "node", Args: []string{js, "stdio"}},
	}}})
	tools := m.Tools()
	long := find(t, tools, "mcp__everything__trigger-long-running-operation")
	var mu sync.Mutex
	var got []tool.Progress
	ctx := tool.WithProgress(context.Background(), func(p tool.Progress) {
		mu.Lock()
		got = append(got, p)
		mu.Unlock()
	})
	res, err := long.Run(ctx, []byte(`{"duration": 0.4, "steps": 4}`))
	if err != nil || !strings.Contains(res.Content, "Long running operation completed") {
		t.Fatalf("result %q, %v", res.Content, err)
	}
	mu.Lock()
	defer mu.Unlock()
	// The SDK may hand the last notification over after the result,
	// when the call has ended and nobody shows it any more: the call's
	// own end says as much.
	if len(got) < 3 || len(got) > 4 {
		t.Fatalf("%d progress notifications, want 3 or 4: %+v", len(got), got)
	}
	for i, p := range got {
		if p.Progress != float64(i+1) || p.Total != 4 {
			t.Errorf("notification %d = %+v, want %d of 4", i, p, i+1)
		}
	}
	// A call nobody listens to still runs (the token is still sent).
	if _, err := long.Run(context.Background(), []byte(`{"duration": 0.1, "steps": 1}`)); err != nil {
		t.Fatal(err)
	}
}
