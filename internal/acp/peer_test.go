package acp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/godwit/godwit/internal/peertest"
	"github.com/godwit/godwit/llm/llmtest"
)

// TestOfficialClient drives the real godwit binary with the official ACP
// TypeScript client (@agentclientprotocol/sdk, pinned in
// testdata/peer/package-lock.json): initialize, a new session, a prompt
// whose scripted model writes a file, the permission request answered,
// the streamed updates checked, then session/load from a second process.
func TestOfficialClient(t *testing.T) {
	t.Parallel() // each peer test has its own home, workspace and model
	pt := peerTools(t)
	srv := llmtest.NewTestServer(t,
		llmtest.ChatReply(llmtest.ChatReasoning("The user wants a file."), llmtest.ChatText("Writing it."),
			llmtest.ChatToolCall("call_w", "file_write", `{"path":"hello.txt","content":"hi from the peer\n"}`),
			llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(900, 20)),
		// A text file's write needs no end-of-turn check.
		llmtest.ChatTextReply("I wrote hello.txt.", 950, 6),
	)
	home, ws := t.TempDir(), t.TempDir()
	writeConfig(t, home, srv.URL())
	got := pt.run(t, home, ws, peerScenario{Turns: []peerTurn{{Prompt: "write hello.txt"}}, Load: true})

	if !got.Initialize.AgentCapabilities.LoadSession || got.Initialize.AgentInfo.Name != "godwit" {
		t.Errorf("initialize = %+v", got.Initialize)
	}
	if got.StopReason != "end_turn" || got.Modes.CurrentModeID != "ask" {
		t.Errorf("stop reason %q, mode %q\ngodwit stderr:\n%s", got.StopReason, got.Modes.CurrentModeID, got.Stderr)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "hello.txt")); err != nil || string(b) != "hi from the peer\n" {
		t.Errorf("hello.txt = %q, %v", b, err)
	}
	if len(got.FsWrites) == 0 {
		t.Log("the binary wrote hello.txt itself: wiring does not pass the editor's files to tool/fs yet")
	}

	if len(got.Permissions) != 1 {
		t.Fatalf("%d permission requests, want 1", len(got.Permissions))
	}
	p := got.Permissions[0]
	var kinds []string
	for _, o := range p.Options {
		kinds = append(kinds, o.Kind)
	}
	if strings.Join(kinds, " ") != "allow_once allow_always reject_once reject_always" || p.ToolCall.Kind != "edit" ||
		len(p.ToolCall.Content) != 2 || p.ToolCall.Content[0].NewText != "hi from the peer\n" ||
		p.ToolCall.Content[0].Path != filepath.Join(ws, "hello.txt") || p.ToolCall.Content[1].Content.Text != "Needs approval: writes hello.txt" {
		t.Errorf("permission request = %+v", p)
	}

	seq := updateKinds(got.Updates)
	for _, want := range []string{"agent_thought_chunk", "agent_message_chunk", "tool_call:call_w:pending", "tool_call_update:call_w:in_progress", "tool_call_update:call_w:completed"} {
		if !strings.Contains(seq, want) {
			t.Errorf("updates lack %s:\n%s", want, seq)
		}
	}
	if text := messageText(got.Updates, "agent_message_chunk"); !strings.Contains(text, "Writing it.") || !strings.Contains(text, "I wrote hello.txt.") {
		t.Errorf("message chunks: %q", text)
	}
	if text := messageText(got.Replay, "user_message_chunk"); text != "write hello.txt" {
		t.Errorf("session/load replayed the prompt as %q\nreplay: %s", text, updateKinds(got.Replay))
	}
	if !strings.Contains(updateKinds(got.Replay), "tool_call:call_w:completed") {
		t.Errorf("session/load did not replay the write: %s", updateKinds(got.Replay))
	}
}

// peerTool is what the peer tests need: node, the client library, and a
// godwit binary built from this tree.
type peerTool struct{ node, dir, bin string }

// peerTools builds the binary. Where node or the client library is
// missing it skips the test, or fails it under CI (peertest); a binary
// without the acp command fails it in pt.run.
func peerTools(t *testing.T) peerTool {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary and runs node; skipped with -short")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		peertest.Missing(t, "node is not installed; the ACP peer test needs Node 20 or later")
	}
	dir, _ := filepath.Abs("testdata/peer")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@agentclientprotocol", "sdk")); err != nil {
		peertest.Missing(t, "the ACP client library is not installed: run npm ci --prefix internal/acp/testdata/peer")
	}
	bin, err := godwitBinary()
	if err != nil {
		t.Fatal(err)
	}
	return peerTool{node: node, dir: dir, bin: bin}
}

// godwitBinary builds the binary once for all the peer tests (a link
// takes seconds), in binDir, which TestMain removes.
var godwitBinary = sync.OnceValues(func() (string, error) {
	bin := filepath.Join(binDir, "godwit")
	// From the build cache when another package linked it (see cmd/godwit's TestMain).
	build := exec.Command("go", "run", "-exec", "cp", "../../cmd/godwit", bin)
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building godwit: %v\n%s", err, out)
	}
	return bin, nil
})

// peerScenario is what peer.mjs does (see its header).
type peerScenario struct {
	Args     []string   `json:"args,omitempty"`
	Terminal bool       `json:"terminal,omitempty"`
	Answer   string     `json:"answer,omitempty"`
	Turns    []peerTurn `json:"turns"`
	Load     bool       `json:"load,omitempty"`
	Parallel []string   `json:"parallel,omitempty"`
}

type peerTurn struct {
	Mode   string `json:"mode,omitempty"`
	Prompt string `json:"prompt"`
}

// run drives `godwit acp` in ws with GODWIT_HOME=home through peer.mjs.
func (pt peerTool) run(t *testing.T, home, ws string, sc peerScenario) peerResult {
	t.Helper()
	js, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(pt.node, filepath.Join(pt.dir, "peer.mjs"), pt.bin, ws, string(js))
	cmd.Dir = pt.dir
	cmd.Env = append(peerEnv(), "GODWIT_HOME="+home, "GODWIT_MODEL=local/test-model", "GOTOOLCHAIN=local")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("peer: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	var got peerResult
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("peer printed %q: %v", stdout.String(), err)
	}
	if len(got.BadLines) > 0 {
		t.Errorf("godwit acp wrote non-protocol lines on stdout: %q", got.BadLines)
	}
	return got
}

// writeConfig points GODWIT_HOME's config at the scripted model.
func writeConfig(t *testing.T, home, url string) {
	t.Helper()
	cfg := "providers:\n  local:\n    type: openai-chat\n    base_url: " + url + "/v1\n    no_key: true\n"
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}

// peerResult is what peer.mjs prints.
type peerResult struct {
	Initialize struct {
		AgentCapabilities struct {
			LoadSession bool `json:"loadSession"`
		} `json:"agentCapabilities"`
		AgentInfo struct {
			Name string `json:"name"`
		} `json:"agentInfo"`
	} `json:"initialize"`
	Modes struct {
		CurrentModeID string `json:"currentModeId"`
	} `json:"modes"`
	StopReason  string `json:"stopReason"`
	Permissions []struct {
		Options []struct {
			Kind string `json:"kind"`
		} `json:"options"`
		ToolCall struct {
			Title   string `json:"title"`
			Kind    string `json:"kind"`
			Content []struct {
				Type    string `json:"type"`
				Path    string `json:"path"`
				NewText string `json:"newText"`
				Content struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"content"`
		} `json:"toolCall"`
	} `json:"permissions"`
	Updates []update `json:"updates"`
	Turns   []struct {
		StopReason  string   `json:"stopReason"`
		Updates     []update `json:"updates"`
		Permissions int      `json:"permissions"` // asked so far
	} `json:"turns"`
	Replay    []update `json:"replay"`
	FsWrites  []string `json:"fsWrites"`
	Terminals []struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
		Env     []string `json:"env"`
	} `json:"terminals"`
	BadLines []string `json:"badLines"`
	Stderr   string   `json:"stderr"`
	// Parallel are the sessions of a parallel scenario, each with the
	// updates the client queued for its id; Tagged is every update as
	// it came, with the session id godwit sent it under.
	Parallel []struct {
		SessionID  string   `json:"sessionId"`
		StopReason string   `json:"stopReason"`
		Updates    []update `json:"updates"`
	} `json:"parallel"`
	Tagged []struct {
		SessionID string `json:"sessionId"`
		Update    update `json:"update"`
	} `json:"tagged"`
}

type update struct {
	SessionUpdate string `json:"sessionUpdate"`
	ToolCallID    string `json:"toolCallId"`
	Status        string `json:"status"`
	Content       struct {
		Text string `json:"text"`
	} `json:"content"`
	// usage_update
	Used, Size int
	Cost       *usageCost
	// plan
	Entries []planEntry
}

type usageCost struct {
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"`
}

type planEntry struct {
	Content string `json:"content"`
	Status  string `json:"status"`
}

// UnmarshalJSON tolerates content being an array (tool calls) rather
// than one block (message chunks).
func (u *update) UnmarshalJSON(b []byte) error {
	var raw struct {
		SessionUpdate string          `json:"sessionUpdate"`
		ToolCallID    string          `json:"toolCallId"`
		Status        string          `json:"status"`
		Content       json.RawMessage `json:"content"`
		Used          int             `json:"used"`
		Size          int             `json:"size"`
		Cost          *usageCost      `json:"cost"`
		Entries       []planEntry     `json:"entries"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	u.SessionUpdate, u.ToolCallID, u.Status = raw.SessionUpdate, raw.ToolCallID, raw.Status
	u.Used, u.Size, u.Cost, u.Entries = raw.Used, raw.Size, raw.Cost, raw.Entries
	if len(raw.Content) > 0 && raw.Content[0] == '{' {
		return json.Unmarshal(raw.Content, &u.Content)
	}
	return nil
}

func updateKinds(us []update) string {
	var parts []string
	for _, u := range us {
		s := u.SessionUpdate
		if u.ToolCallID != "" {
			s += ":" + u.ToolCallID + ":" + u.Status
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "\n")
}

func messageText(us []update, kind string) string {
	var b strings.Builder
	for _, u := range us {
		if u.SessionUpdate == kind {
			b.WriteString(u.Content.Text)
		}
	}
	return b.String()
}

// peerEnv is the test's environment without godwit's variables or any
// provider key, so a developer's own setup cannot leak in.
func peerEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "GODWIT_") || strings.HasSuffix(name, "_API_KEY") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// The official client hears usage_update after each model call (the
// context in use against the window, the session's cost), and
// session/load replays the plan updates the live session sent after each
// plan call, then the session's usage.
func TestOfficialClientUsageAndPlanReplay(t *testing.T) {
	t.Parallel() // each peer test has its own home, workspace and model
	pt := peerTools(t)
	planArgs := `{"steps":[{"text":"read a.txt","status":"done"},{"text":"answer","status":"in_progress"}]}`
	srv := llmtest.NewTestServer(t,
		llmtest.ChatReply(llmtest.ChatToolCall("call_p", "plan", planArgs), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(900, 20)),
		llmtest.ChatTextReply("a.txt is empty.", 950, 6),
		// The end-of-turn check: a plan step is still open.
		llmtest.ChatTextReply("The answer was the last step.", 990, 7),
	)
	home, ws := t.TempDir(), t.TempDir()
	writeConfig(t, home, srv.URL())
	cfg, _ := os.ReadFile(filepath.Join(home, "config.yaml"))
	// A price, so the cost is not zero.
	cfg = append(cfg, []byte("    models:\n      - id: test-model\n        context_window: 64000\n        price: {input: 3, output: 15}\n")...)
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	got := pt.run(t, home, ws, peerScenario{Turns: []peerTurn{{Prompt: "plan, then answer"}}, Load: true})
	if got.StopReason != "end_turn" {
		t.Fatalf("stop reason %q\n%s", got.StopReason, got.Stderr)
	}
	var usages []update
	for _, u := range got.Updates {
		if u.SessionUpdate == "usage_update" {
			usages = append(usages, u)
		}
	}
	if len(usages) != 3 {
		t.Fatalf("%d usage_update, want one a model call:\n%s", len(usages), updateKinds(got.Updates))
	}
	last := usages[2]
	wantCost := (900*3.0 + 20*15.0 + 950*3.0 + 6*15.0 + 990*3.0 + 7*15.0) / 1e6
	if usages[0].Used != 920 || usages[1].Used != 956 || last.Used != 997 || last.Size != 64000 || last.Cost == nil || last.Cost.Currency != "USD" ||
		last.Cost.Amount < wantCost*0.99 || last.Cost.Amount > wantCost*1.01 {
		t.Errorf("usage updates %+v, %+v, %+v; want used 920, 956, 997 of 64000, cost $%.6f", usages[0], usages[1], last, wantCost)
	}

	seq := updateKinds(got.Replay)
	i := strings.Index(seq, "tool_call:call_p:completed\nplan")
	if i < 0 {
		t.Fatalf("session/load does not replay the plan after its call:\n%s", seq)
	}
	var replayed []planEntry
	var replayUsage *update
	for k, u := range got.Replay {
		switch u.SessionUpdate {
		case "plan":
			replayed = u.Entries
		case "usage_update":
			replayUsage = &got.Replay[k]
		}
	}
	if len(replayed) != 2 || replayed[0] != (planEntry{"read a.txt", "completed"}) || replayed[1] != (planEntry{"answer", "in_progress"}) {
		t.Errorf("replayed plan = %+v", replayed)
	}
	if replayUsage == nil || replayUsage.Used != 997 || replayUsage.Size != 64000 || replayUsage.Cost == nil || replayUsage.Cost.Amount < wantCost*0.99 {
		t.Errorf("session/load's usage = %+v, want the session's", replayUsage)
	}
}

// TestOfficialClientRejectAlways: the official client answers "always
// reject" for a command in ask mode, then switches the session to auto
// mode; the real binary must not run the command there, nor the model's
// way around it through sh, and must still run what was not refused.
func TestOfficialClientRejectAlways(t *testing.T) {
	t.Parallel()
	pt := peerTools(t)
	call := func(id, cmd string) llmtest.Reply {
		return llmtest.ChatReply(llmtest.ChatToolCall(id, "shell_exec", `{"command":"`+cmd+`"}`), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(900, 5))
	}
	srv := llmtest.NewTestServer(t,
		call("c1", "touch rj_file"), llmtest.ChatTextReply("refused.", 900, 2),
		call("c2", "touch rj_file"), call("c3", "sh -c 'touch rj_file'"), call("c4", "mkdir other"), llmtest.ChatTextReply("done.", 900, 2),
	)
	home, ws := t.TempDir(), t.TempDir()
	writeConfig(t, home, srv.URL())
	got := pt.run(t, home, ws, peerScenario{Answer: "reject_always", Turns: []peerTurn{
		{Mode: "ask", Prompt: "touch it"}, {Mode: "auto", Prompt: "touch it again"}}})
	if _, err := os.Stat(filepath.Join(ws, "rj_file")); err == nil {
		t.Fatalf("rj_file was made after always reject\ngodwit stderr:\n%s", got.Stderr)
	}
	if _, err := os.Stat(filepath.Join(ws, "other")); err != nil {
		t.Errorf("auto mode did not run what was not refused: %v\ngodwit stderr:\n%s", err, got.Stderr)
	}
	if len(got.Permissions) != 1 {
		t.Errorf("%d permission requests, want 1 (the one answered always reject)", len(got.Permissions))
	}
}
