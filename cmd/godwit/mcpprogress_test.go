package main

import (
	"encoding/json"
	"github.com/godwit/godwit/internal/peertest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godwit/godwit/llm/llmtest"
)

// The reference MCP server's long operation reports progress; `run
// --json` passes each notification on as a tool.progress event of the
// call, and the plain output shows a line a step on stderr.
func TestMCPProgressReachesTheUser(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		peertest.Missing(t, "node is not installed (Debian: apt-get install nodejs npm); this test runs the reference MCP server")
	}
	js, _ := filepath.Abs(filepath.Join("..", "..", "internal", "mcp", "testdata", "peer", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"))
	if _, err := os.Stat(js); err != nil {
		peertest.Missing(t, "server-everything is not installed: run npm ci --prefix internal/mcp/testdata/peer")
	}
	const name = "mcp__everything__trigger-long-running-operation"
	for _, mode := range []string{"json", "plain"} {
		t.Run(mode, func(t *testing.T) {
			srv := llmtest.NewTestServer(t,
				llmtest.ChatReply(llmtest.ChatToolCall("call_1", name, `{"duration": 1, "steps": 4}`), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(900, 12)),
				llmtest.ChatTextReply("It finished.", 950, 6),
			)
			home, ws := setup(t, srv.URL())
			cfg, _ := os.ReadFile(filepath.Join(home, "config.yaml"))
			cfg = append(cfg, []byte("mcp:\n  servers:\n    everything:\n      command: node\n      args: ["+jsonString(js)+", stdio]\n")...)
			if err := os.WriteFile(filepath.Join(home, "config.yaml"), cfg, 0o600); err != nil {
				t.Fatal(err)
			}
			args := []string{"run", "--model", "local/m", "-p", "run the long operation"}
			if mode == "json" {
				args = append(args, "--json")
			}
			// node can take over the default 5 s to start the server on a
			// loaded machine, and the scripted model calls its tool in
			// the first request: wait for it (Build returns once it is
			// ready).
			r := godwit(t, home, ws, []string{"GODWIT_MCP_WAIT=60s"}, args...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			if mode == "plain" {
				if !strings.Contains(r.stderr, "… "+name+" 1/4") || !strings.Contains(r.stdout, "It finished.") {
					t.Errorf("no progress lines on stderr:\n%s", r.stderr)
				}
				return
			}
			var steps []float64
			for _, line := range strings.Split(r.stdout, "\n") {
				var e struct {
					Type string
					Tool struct {
						CallID string `json:"call_id"`
						Name   string
					}
					Progress *struct{ Progress, Total float64 }
				}
				if json.Unmarshal([]byte(line), &e) != nil || e.Type != "tool.progress" {
					continue
				}
				if e.Tool.CallID != "call_1" || e.Tool.Name != name || e.Progress == nil || e.Progress.Total != 4 {
					t.Errorf("a progress event: %s", line)
					continue
				}
				steps = append(steps, e.Progress.Progress)
			}
			if len(steps) < 3 || steps[0] != 1 || steps[1] != 2 {
				t.Errorf("progress events %v, want 1, 2, 3 (and maybe 4):\n%s", steps, r.stdout)
			}
		})
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
