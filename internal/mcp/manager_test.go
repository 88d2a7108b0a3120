package mcp_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/mcp"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/fake"
	"github.com/godwit/godwit/tool"
)

// stdioServer is a config entry that runs this test binary as a server.
// GORACE spares a -race build its one-second sleep at exit.
func stdioServer() mcp.ServerConfig {
	return mcp.ServerConfig{Command: os.Args[0], Env: map[string]string{"GODWIT_MCP_TEST_SERVER": "1", "GORACE": "atexit_sleep_ms=0"}}
}

// start runs a Manager and waits for its servers; it closes it at the
// end of the test.
func start(t *testing.T, opts mcp.Options) (*mcp.Manager, *statusLog) {
	t.Helper()
	log := &statusLog{}
	opts.OnStatus = log.add
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 20 * time.Second
	}
	m := mcp.Start(opts)
	t.Cleanup(func() { m.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := m.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	return m, log
}

type statusLog struct {
	mu  sync.Mutex
	all []mcp.Status
}

func (l *statusLog) add(s mcp.Status) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all = append(l.all, s)
}

func (l *statusLog) last(server string) (mcp.Status, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := len(l.all) - 1; i >= 0; i-- {
		if l.all[i].Server == server {
			return l.all[i], true
		}
	}
	return mcp.Status{}, false
}

func find(t *testing.T, tools []tool.Tool, name string) tool.Tool {
	t.Helper()
	for _, tl := range tools {
		if tl.Name() == name {
			return tl
		}
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name())
	}
	t.Fatalf("no tool %s among %v", name, names)
	return nil
}

func call(t *testing.T, tl tool.Tool, args string) (tool.Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return tl.Run(ctx, json.RawMessage(args))
}

func TestStdioAndHTTPServersOfferTools(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(httpServer("s3cret"))
	t.Cleanup(srv.Close) // after the Manager's Close: cleanups run last first
	m, log := start(t, mcp.Options{
		Config: mcp.Config{Servers: map[string]mcp.ServerConfig{
			"local": stdioServer(),
			"web":   {URL: srv.URL, Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}},
		}},
		Getenv: func(k string) string { return map[string]string{"TOKEN": "s3cret"}[k] },
	})
	for _, st := range m.Statuses() {
		if st.State != mcp.StateReady || len(st.Tools) != 6 {
			t.Errorf("status = %v", st)
		}
		if reported, _ := log.last(st.Server); len(reported.Tools) != 6 {
			t.Errorf("OnStatus for %s carried %d tools, want 6", st.Server, len(reported.Tools))
		}
	}
	tools := m.Tools()
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name())
	}
	if len(names) != 12 || !strings.HasPrefix(names[5], "mcp__local__") || !strings.HasPrefix(names[6], "mcp__web__") {
		t.Errorf("tools are not in server order: %v", names)
	}
	for _, server := range []string{"local", "web"} {
		echo := find(t, tools, "mcp__"+server+"__echo")
		res, err := call(t, echo, `{"message":"hi"}`)
		if err != nil || res.Content != "echo: hi" {
			t.Errorf("%s echo = %q, %v", server, res.Content, err)
		}
		spec := echo.Spec()
		if strings.Contains(string(spec.Schema), "$schema") || !strings.Contains(string(spec.Schema), `"required":["message"]`) {
			t.Errorf("%s echo schema = %s", server, spec.Schema)
		}
		if spec.Description != "Echo the message back." {
			t.Errorf("description = %q", spec.Description)
		}
	}
}

func TestAccessFollowsReadOnlyHint(t *testing.T) {
	t.Parallel()
	m, _ := start(t, mcp.Options{Config: mcp.Config{Servers: map[string]mcp.ServerConfig{"local": stdioServer()}}})
	tools := m.Tools()
	for _, tc := range []struct {
		name    string
		mutates bool
	}{
		{"mcp__local__echo", false},
		{"mcp__local__write_note", true},
	} {
		acc, err := find(t, tools, tc.name).(tool.Accessor).Access(json.RawMessage(`{"note":"x"}`))
		if err != nil || acc.Mutates != tc.mutates || !strings.HasPrefix(acc.Summary, tc.name) {
			t.Errorf("%s access = %+v, %v; want Mutates %v", tc.name, acc, err, tc.mutates)
		}
	}
}

func TestResultsAndErrorsReachTheModelAsText(t *testing.T) {
	t.Parallel()
	m, _ := start(t, mcp.Options{Config: mcp.Config{Servers: map[string]mcp.ServerConfig{"local": stdioServer()}}})
	tools := m.Tools()

	res, err := call(t, find(t, tools, "mcp__local__picture"), `{}`)
	if err != nil || res.Content != "a red dot\n[image image/png, 2 KB: not shown]" {
		t.Errorf("picture = %q, %v", res.Content, err)
	}
	_, err = call(t, find(t, tools, "mcp__local__fail"), `{}`)
	if te := tool.AsToolError(err); te.Code != tool.CodeFailed || te.Message != "disk on fire" {
		t.Errorf("fail = %v", err)
	}
}

func TestAFailingServerIsReportedAndTheOthersRun(t *testing.T) {
	m, log := start(t, mcp.Options{Config: mcp.Config{Servers: map[string]mcp.ServerConfig{
		"local":   stdioServer(),
		"missing": {Command: "godwit-no-such-mcp-server"},
		"bad":     {Command: "x", URL: "http://y"},
		"nokey":   {URL: "http://127.0.0.1:1/mcp", Headers: map[string]string{"Authorization": "Bearer ${GODWIT_TEST_UNSET}"}},
		"crashes": {Command: os.Args[0], Args: []string{"-test.run=^$"}, Env: map[string]string{"GODWIT_MCP_TEST_SERVER": "", "GORACE": "atexit_sleep_ms=0"}},
	}}})
	want := map[string]string{
		"missing": `command "godwit-no-such-mcp-server" not found`,
		"bad":     "sets both command and url",
		"nokey":   "GODWIT_TEST_UNSET is not set",
		"crashes": "did not start",
	}
	for server, msg := range want {
		st, ok := log.last(server)
		if !ok || st.State != mcp.StateFailed || !strings.Contains(st.String(), msg) {
			t.Errorf("%s: status %v (reported %v), want failed with %q", server, st, ok, msg)
		}
	}
	if st, _ := log.last("local"); st.State != mcp.StateReady {
		t.Errorf("local = %v", st)
	}
	if n := len(m.Tools()); n != 6 {
		t.Errorf("%d tools, want the 6 of local", n)
	}
	if len(mcp.ToolsOf(m, "local")) != 6 || len(mcp.ToolsOf(m, "missing")) != 0 {
		t.Errorf("ToolsOf: local %d, missing %d", len(mcp.ToolsOf(m, "local")), len(mcp.ToolsOf(m, "missing")))
	}
}

func TestAServerThatStopsIsReportedAndItsCallsFail(t *testing.T) {
	t.Parallel()
	m, log := start(t, mcp.Options{Config: mcp.Config{Servers: map[string]mcp.ServerConfig{"local": stdioServer()}}})
	tools := m.Tools()
	if _, err := call(t, find(t, tools, "mcp__local__exit"), `{}`); err == nil {
		t.Error("the call that killed the server succeeded")
	}
	deadline := time.Now().Add(30 * time.Second) // a hang guard
	for {
		if st, _ := log.last("local"); st.State == mcp.StateStopped {
			if !strings.Contains(st.String(), "exiting on request") {
				t.Errorf("status %v lacks the server's stderr", st)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no stopped status; last %v", m.Statuses())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(m.Tools()) != 0 {
		t.Error("a stopped server still offers tools")
	}
	_, err := call(t, find(t, tools, "mcp__local__echo"), `{"message":"x"}`)
	if te := tool.AsToolError(err); te.Code != tool.CodeFailed || !strings.Contains(te.Message, "not connected") {
		t.Errorf("call after stop = %v", err)
	}
}

func TestProjectServersStartOnlyWhenTrusted(t *testing.T) {
	ws := t.TempDir()
	file := `{"mcpServers": {"one": {"command": "` + jsonEscape(os.Args[0]) + `", "env": {"GODWIT_MCP_TEST_SERVER": "1", "GORACE": "atexit_sleep_ms=0"}},
		"two": {"command": "` + jsonEscape(os.Args[0]) + `", "env": {"GODWIT_MCP_TEST_SERVER": "1", "GORACE": "atexit_sleep_ms=0"}}}}`
	if err := os.WriteFile(filepath.Join(ws, ".mcp.json"), []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	m, _ := start(t, mcp.Options{Workspace: ws, Config: mcp.Config{Project: []string{"two"}}})
	got := map[string]mcp.State{}
	for _, st := range m.Statuses() {
		got[st.Server] = st.State
		if st.Source != ".mcp.json" {
			t.Errorf("%s source = %q", st.Server, st.Source)
		}
		if st.Server == "one" && !strings.Contains(st.String(), `add "one" (or "*") to mcp.project`) {
			t.Errorf("skip message = %v", st)
		}
	}
	if got["one"] != mcp.StateSkipped || got["two"] != mcp.StateReady {
		t.Errorf("states = %v", got)
	}
}

func TestCloseStopsServers(t *testing.T) {
	t.Parallel()
	m, _ := start(t, mcp.Options{Config: mcp.Config{Servers: map[string]mcp.ServerConfig{"local": stdioServer()}}})
	echo := find(t, m.Tools(), "mcp__local__echo")
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := call(t, echo, `{"message":"x"}`); err == nil {
		t.Error("a call after Close succeeded")
	}
	for _, st := range m.Statuses() {
		if st.State != mcp.StateStopped {
			t.Errorf("after Close: %v", st)
		}
	}
}

func jsonEscape(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

func TestAChangedToolListIsTakenUp(t *testing.T) {
	t.Parallel()
	m, _ := start(t, mcp.Options{Config: mcp.Config{Servers: map[string]mcp.ServerConfig{"local": stdioServer()}}})
	if _, err := call(t, find(t, m.Tools(), "mcp__local__grow"), `{}`); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second) // a hang guard
	for {
		for _, tl := range m.Tools() {
			if tl.Name() == "mcp__local__extra" {
				if res, err := call(t, tl, `{}`); err != nil || res.Content != "extra" {
					t.Errorf("extra = %q, %v", res.Content, err)
				}
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the new tool never showed up")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestThroughTheAgent runs the tools in a real turn: a read-only tool
// runs without approval and its result reaches the model; a tool that
// may mutate is denied when no approver allows it.
func TestThroughTheAgent(t *testing.T) {
	t.Parallel()
	m, _ := start(t, mcp.Options{Config: mcp.Config{Servers: map[string]mcp.ServerConfig{"local": stdioServer()}}})
	model := fake.New(
		fake.Step{ToolCalls: []llm.ToolCall{
			fake.Call("c1", "mcp__local__echo", map[string]string{"message": "ping"}),
			fake.Call("c2", "mcp__local__write_note", map[string]string{"note": "x"}),
		}},
		fake.Step{Text: "done"},
	)
	runAgent(t, model, m.Tools(), "go")
	req := model.Requests()[1]
	var got []string
	for _, p := range req.Messages[len(req.Messages)-1].Parts {
		if p.ToolResult != nil {
			got = append(got, p.ToolResult.Content)
		}
	}
	if len(got) != 2 || !strings.Contains(got[0], "echo: ping") || !strings.Contains(got[1], "DENIED") {
		t.Errorf("results = %q", got)
	}
}
