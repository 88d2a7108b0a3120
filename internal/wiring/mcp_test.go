package wiring

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/fake"
)

// gatedMCP serves one MCP tool over streamable HTTP, but holds every
// request until open is closed: a server that is slow to start.
func gatedMCP(t *testing.T) (url string, open func()) {
	s := sdk.NewServer(&sdk.Implementation{Name: "slow", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "ping", Description: "Answers pong."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "pong"}}}, nil, nil
		})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	gate := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-gate:
		case <-r.Context().Done():
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	var once sync.Once
	return srv.URL, func() { once.Do(func() { close(gate) }) }
}

// An MCP server that is not ready when the first tool table is fixed
// joins at the next segment: never within one (the table is cached
// prefix), and without restarting godwit.
func TestLateMCPServerJoinsAtTheNextSegment(t *testing.T) {
	t.Parallel()
	for _, deferred := range []string{"off", "on"} {
		t.Run("deferred "+deferred, func(t *testing.T) {
			url, open := gatedMCP(t)
			home := t.TempDir()
			cfg := fmt.Sprintf("tools:\n  deferred: %s\nmcp:\n  servers:\n    slow:\n      url: %s\n", deferred, url)
			if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
				t.Fatal(err)
			}
			p := fake.New(
				fake.Step{Text: "one"},
				fake.Step{Text: "## Current task\nAnswer.\n## Next step\nAnswer."}, // the handoff
				fake.Step{Text: "two"},
			)
			env, err := Build(context.Background(), Options{Home: home, Workspace: t.TempDir(), Model: "demo/m", Provider: p, Getenv: shortMCPWait})
			if err != nil {
				t.Fatal(err)
			}
			defer env.Close()
			res, err := env.Runtime.Run(context.Background(), agent.RunInput{Prompt: "hi"})
			if err != nil {
				t.Fatal(err)
			}
			const name = "mcp__slow__ping"
			if got := toolsSeen(p.Requests()[0]); slices.Contains(got, name) {
				t.Fatalf("the slow server's tool is in the first table: %v", got)
			}

			open()
			deadline := time.Now().Add(20 * time.Second)
			for !slices.Contains(env.reg.Names(), name) {
				if time.Now().After(deadline) {
					t.Fatal("the server's tools never reached the registry")
				}
				time.Sleep(20 * time.Millisecond)
			}
			if _, err := env.Runtime.Run(context.Background(), agent.RunInput{SessionID: res.SessionID, Prompt: "again", Reset: true}); err != nil {
				t.Fatal(err)
			}
			reqs := p.Requests()
			if got := toolsSeen(reqs[len(reqs)-1]); !slices.Contains(got, name) {
				t.Errorf("after the reset the table lacks %s: %v", name, got)
			}
		})
	}
}

// toolsSeen is what a request offers the model: its table, or in
// deferred mode the listing in the system prompt too.
func toolsSeen(r llm.Request) []string {
	names := specNames(r.Tools)
	if slices.Contains(names, "tool_call") && strings.Contains(r.System, "mcp__slow__ping") {
		names = append(names, "mcp__slow__ping")
	}
	return names
}

// A consumer of the events learns each server's state: at the session's
// start in session.started, and every later change as an mcp.status event.
func TestMCPStateReachesTheEvents(t *testing.T) {
	url, open := gatedMCP(t)
	home := t.TempDir()
	cfg := fmt.Sprintf("mcp:\n  servers:\n    slow:\n      url: %s\n", url)
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	rec := &eventLog{}
	env, err := Build(context.Background(), Options{Home: home, Workspace: t.TempDir(), Model: "demo/m", Provider: fake.New(fake.Step{Text: "one"}),
		Getenv: shortMCPWait, EngineEvents: rec, Version: "v-test"})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if _, err := env.Runtime.Run(context.Background(), agent.RunInput{Prompt: "hi", Sink: rec}); err != nil {
		t.Fatal(err)
	}
	s := rec.OfType(agent.EventSessionStarted)[0].Session
	if len(s.MCPServers) != 1 || s.MCPServers[0].Name != "slow" || s.MCPServers[0].State != "starting" || s.Version != "v-test" || s.Mode != "read-only" {
		t.Fatalf("session.started = %+v", s)
	}
	open()
	deadline := time.Now().Add(20 * time.Second)
	for {
		evs := rec.OfType(agent.EventMCPStatus)
		if n := len(evs); n > 0 && evs[n-1].MCP.State == "ready" {
			if m := evs[n-1].MCP; m.Name != "slow" || m.Tools != 1 || m.Source != "config.yaml" {
				t.Errorf("mcp.status = %+v", m)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no mcp.status event said the server is ready: %+v", rec.OfType(agent.EventMCPStatus))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// GODWIT_MCP_WAIT lengthens the wait for the first table: a server ready
// after the default 5 s is in it.
// shortMCPWait makes Build wait 50 ms for MCP servers.
func shortMCPWait(k string) string {
	if k == mcpWaitEnv {
		return "50ms"
	}
	return os.Getenv(k)
}

func TestMCPWaitFromTheEnvironment(t *testing.T) {
	t.Parallel()
	url, open := gatedMCP(t)
	home := t.TempDir()
	cfg := fmt.Sprintf("mcp:\n  servers:\n    slow:\n      url: %s\n", url)
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(mcpStartWait+time.Second, open)
	defer timer.Stop()
	getenv := func(k string) string {
		if k == mcpWaitEnv {
			return "60s"
		}
		return ""
	}
	p := fake.New(fake.Step{Text: "one"})
	env, err := Build(context.Background(), Options{Home: home, Workspace: t.TempDir(), Model: "demo/m", Provider: p, Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if _, err := env.Runtime.Run(context.Background(), agent.RunInput{Prompt: "hi"}); err != nil {
		t.Fatal(err)
	}
	if got := toolsSeen(p.Requests()[0]); !slices.Contains(got, "mcp__slow__ping") {
		t.Errorf("with %s=60s the server ready after %s is not in the first table: %v", mcpWaitEnv, mcpStartWait+time.Second, got)
	}
}

// eventLog keeps the events a sink is given.
type eventLog struct {
	mu     sync.Mutex
	events []agent.Event
}

func (l *eventLog) Emit(e agent.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
}

// OfType returns the events of one type so far.
func (l *eventLog) OfType(typ string) []agent.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []agent.Event
	for _, e := range l.events {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}
