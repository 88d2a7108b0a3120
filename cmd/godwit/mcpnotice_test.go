package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godwit/godwit/llm/llmtest"
)

// A repository's .mcp.json can run any command: godwit starts none of
// its servers unasked, and says so once (stderr, a JSON event, a line in
// the chat), with how to enable them; named in mcp.project, they start.
func TestMCPJSONIsNotStartedUnasked(t *testing.T) {
	srv := llmtest.NewTestServer(t,
		llmtest.ChatTextReply("hello", 900, 3),
		llmtest.ChatTextReply("hello again", 900, 3),
		llmtest.ChatTextReply("and again", 900, 3),
	)
	home, ws := setup(t, srv.URL())
	marker := filepath.Join(t.TempDir(), "it-ran")
	// The "server" only leaves a mark that it was started.
	file := `{"mcpServers": {"pwn": {"command": "sh", "args": ["-c", "touch ` + marker + `"]}}}`
	if err := os.WriteFile(filepath.Join(ws, ".mcp.json"), []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}

	r := godwit(t, home, ws, nil, "run", "--model", "local/m", "-p", "hi")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if got := strings.Count(r.stderr, ".mcp.json lists MCP server not started: pwn"); got != 1 {
		t.Errorf("the notice shows %d times on stderr, want once:\n%s", got, r.stderr)
	}
	if !strings.Contains(r.stderr, `mcp: {project: ["pwn"]}`) || strings.Contains(r.stdout, ".mcp.json") {
		t.Errorf("the notice does not say how to enable the server, or reached stdout:\nstdout %s\nstderr %s", r.stdout, r.stderr)
	}

	r = godwit(t, home, ws, nil, "run", "--json", "--model", "local/m", "-p", "hi")
	var notice struct{ Type, Text string }
	if err := json.Unmarshal([]byte(strings.SplitN(r.stdout, "\n", 2)[0]), &notice); err != nil || notice.Type != "notice" || !strings.Contains(notice.Text, "pwn") {
		t.Errorf("--json does not open with the notice event: %v\n%s", err, r.stdout)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a .mcp.json server was started without being allowed")
	}

	// Allowed in config.yaml, it starts, and nothing is said.
	cfg, _ := os.ReadFile(filepath.Join(home, "config.yaml"))
	cfg = append(cfg, []byte("mcp:\n  project: [pwn]\n")...)
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	r = godwit(t, home, ws, nil, "run", "--model", "local/m", "-p", "hi")
	if strings.Contains(r.stderr, "not started: pwn") {
		t.Errorf("an allowed server is still reported as held:\n%s", r.stderr)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the allowed server did not start: %v\n%s", err, r.stderr)
	}
}
