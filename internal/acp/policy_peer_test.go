package acp_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/godwit/godwit/llm/llmtest"
)

// reactiveModel is a scripted OpenAI-compatible model: for the user
// message that contains a key of calls, it makes those tool calls one
// after the other, each once the previous one's result is back, then
// says "done."; anything else (the end-of-turn checks) gets "done.". It
// keeps every request body: what the model saw.
type reactiveModel struct {
	calls map[string][]modelCall

	mu     sync.Mutex
	bodies []string
}

type modelCall struct{ name, args string }

func newReactiveModel(t *testing.T, calls map[string][]modelCall) (*reactiveModel, string) {
	t.Helper()
	m := &reactiveModel{calls: calls}
	srv := httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(srv.Close)
	return m, srv.URL
}

func (m *reactiveModel) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	m.mu.Lock()
	m.bodies = append(m.bodies, string(body))
	m.mu.Unlock()
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(body, &req)
	prompt, results := "", 0
	for _, msg := range req.Messages {
		switch msg.Role {
		case "user":
			prompt, results = string(msg.Content), 0
		case "tool":
			results++
		}
	}
	reply := llmtest.ChatTextReply("done.", 100, 2)
	for key, calls := range m.calls {
		if strings.Contains(prompt, key) && results < len(calls) {
			c := calls[results]
			reply = llmtest.ChatReply(llmtest.ChatToolCall(fmt.Sprintf("call_%d", len(m.bodies)), c.name, c.args),
				llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(100, 10))
		}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	_, _ = io.WriteString(w, reply.Body)
}

// saw reports whether any request to the model contains s.
func (m *reactiveModel) saw(s string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, b := range m.bodies {
		if strings.Contains(b, s) {
			return true
		}
	}
	return false
}

func (m *reactiveModel) all() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return strings.Join(m.bodies, "\n")
}

func shellCall(command string) modelCall {
	b, _ := json.Marshal(map[string]any{"command": command, "timeout_s": 120})
	return modelCall{"shell_exec", string(b)}
}

func fileCall(name string, args map[string]any) modelCall {
	b, _ := json.Marshal(args)
	return modelCall{name, string(b)}
}

const secret = "sekret-7f3a9c"

// goModule is a workspace a build and its tests can run in, offline.
var goModule = map[string]string{
	"go.mod":       "module example.com/hello\n\ngo 1.22\n",
	"main.go":      "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hi\") }\n",
	"main_test.go": "package main\n\nimport \"testing\"\n\nfunc TestHi(t *testing.T) {}\n",
}

// TestPolicyThroughOfficialClient drives the real binary with the
// official client and a scripted model, one fresh workspace each, and
// checks that `godwit acp` applies godwit's policy (rules, the secrets
// screen, read-only commands, the sandbox by mode) under the editor's
// approvals, as `godwit run` does.
func TestPolicyThroughOfficialClient(t *testing.T) {
	t.Parallel() // each peer test has its own home, workspace and model
	pt := peerTools(t)
	tests := []struct {
		name     string
		files    map[string]string // workspace files
		rules    string            // $GODWIT_HOME/rules.yaml
		git      bool              // git init the workspace
		scenario peerScenario
		calls    map[string][]modelCall
		check    func(t *testing.T, ws string, got peerResult, m *reactiveModel)
	}{{
		name:     "a deny rule holds in auto mode",
		files:    map[string]string{"protected.txt": "keep\n", "victim.txt": "keep\n"},
		rules:    "deny:\n  - path: protected.txt\n  - command: rm *\n",
		scenario: peerScenario{Args: []string{"--mode", "auto"}, Turns: []peerTurn{{Prompt: "[deny] go"}}},
		calls: map[string][]modelCall{"[deny]": {
			fileCall("file_write", map[string]any{"path": "protected.txt", "content": "pwned\n"}),
			shellCall("rm -f victim.txt"),
			fileCall("file_write", map[string]any{"path": "new.txt", "content": "auto writes\n"}),
		}},
		check: func(t *testing.T, ws string, got peerResult, m *reactiveModel) {
			wantFile(t, ws, "protected.txt", "keep\n")
			wantFile(t, ws, "victim.txt", "keep\n")
			wantFile(t, ws, "new.txt", "auto writes\n") // auto mode still writes
			wantAsked(t, got, 0)
			if !m.saw("denied by rule deny[0]") || !m.saw("denied by rule deny[1]") {
				t.Errorf("the model was not told which rule denied the calls:\n%s", m.all())
			}
		},
	}, {
		name:     "the .env screen holds in read-only mode",
		files:    map[string]string{".env": "API_TOKEN=" + secret + "\n"},
		scenario: peerScenario{Args: []string{"--mode", "read-only"}, Answer: "reject_once", Turns: []peerTurn{{Prompt: "[env] go"}}},
		calls: map[string][]modelCall{"[env]": {
			fileCall("file_read", map[string]any{"path": ".env"}),
			shellCall("cat .env"),
			shellCall("grep -r API_TOKEN ."),
		}},
		check: func(t *testing.T, ws string, got peerResult, m *reactiveModel) {
			if m.saw(secret) {
				t.Errorf("the model saw the secret:\n%s", m.all())
			}
			wantAsked(t, got, 3)
			if !strings.Contains(permissionText(got), "a secrets file") {
				t.Errorf("the permission requests do not say why: %s", permissionText(got))
			}
		},
	}, {
		name:     "the .env screen asks in ask mode, and a reject keeps the secret hidden",
		files:    map[string]string{".env": "API_TOKEN=" + secret + "\n"},
		scenario: peerScenario{Answer: "reject_once", Turns: []peerTurn{{Prompt: "[env] go"}}},
		calls: map[string][]modelCall{"[env]": {
			fileCall("file_read", map[string]any{"path": ".env"}),
			shellCall("cat .env"),
		}},
		check: func(t *testing.T, ws string, got peerResult, m *reactiveModel) {
			if m.saw(secret) {
				t.Errorf("the model saw the secret:\n%s", m.all())
			}
			wantAsked(t, got, 2)
			if !m.saw("the user said no") {
				t.Errorf("the model was not told the user said no:\n%s", m.all())
			}
		},
	}, {
		name:     "read-only commands run without a prompt in ask mode",
		files:    map[string]string{"listed-file.txt": "x\n"},
		git:      true,
		scenario: peerScenario{Answer: "reject_once", Turns: []peerTurn{{Prompt: "[ro] go"}}},
		calls:    map[string][]modelCall{"[ro]": {shellCall("ls"), shellCall("git status")}},
		check: func(t *testing.T, ws string, got peerResult, m *reactiveModel) {
			wantAsked(t, got, 0)
			if !m.saw("listed-file.txt") || !m.saw("On branch") {
				t.Errorf("the model did not see ls and git status run:\n%s", m.all())
			}
		},
	}, {
		name:     "read-only commands run in read-only mode",
		files:    map[string]string{"listed-file.txt": "x\n"},
		scenario: peerScenario{Args: []string{"--mode", "read-only"}, Answer: "reject_once", Turns: []peerTurn{{Prompt: "[ro] go"}}},
		calls:    map[string][]modelCall{"[ro]": {shellCall("ls")}},
		check: func(t *testing.T, ws string, got peerResult, m *reactiveModel) {
			wantAsked(t, got, 0)
			if !m.saw("listed-file.txt") {
				t.Errorf("the model did not see ls run:\n%s", m.all())
			}
		},
	}, {
		name:     "an approved build and go test write the workspace in ask mode",
		files:    goModule,
		scenario: peerScenario{Answer: "allow_once", Turns: []peerTurn{{Prompt: "[build] go"}}},
		calls:    map[string][]modelCall{"[build]": {shellCall("go build -o app . && go test ./...")}},
		check: func(t *testing.T, ws string, got peerResult, m *reactiveModel) {
			wantAsked(t, got, 1)
			wantBuilt(t, ws, m)
		},
	}, {
		name:     "a build and go test write the workspace in auto mode",
		files:    goModule,
		scenario: peerScenario{Args: []string{"--mode", "auto"}, Turns: []peerTurn{{Prompt: "[build] go"}}},
		calls:    map[string][]modelCall{"[build]": {shellCall("go build -o app . && go test ./...")}},
		check: func(t *testing.T, ws string, got peerResult, m *reactiveModel) {
			wantAsked(t, got, 0)
			wantBuilt(t, ws, m)
		},
	}, {
		name:  "a mode the editor sets takes effect from the next call",
		files: goModule,
		scenario: peerScenario{Args: []string{"--mode", "read-only"}, Turns: []peerTurn{
			{Prompt: "[first] build"},
			{Mode: "auto", Prompt: "[build] again"},
			{Mode: "read-only", Prompt: "[write] now"},
		}},
		calls: map[string][]modelCall{
			"[first]": {shellCall("go build -o first .")},
			"[build]": {shellCall("go build -o app . && go test ./...")},
			"[write]": {fileCall("file_write", map[string]any{"path": "late.txt", "content": "x"})},
		},
		check: func(t *testing.T, ws string, got peerResult, m *reactiveModel) {
			wantAsked(t, got, 0)
			if _, err := os.Stat(filepath.Join(ws, "first")); err == nil {
				t.Error("the first build ran in read-only mode")
			}
			if !m.saw("switch this session to Ask mode") {
				t.Errorf("the model was not told how the user allows writes:\n%s", m.all())
			}
			wantBuilt(t, ws, m)
			if _, err := os.Stat(filepath.Join(ws, "late.txt")); err == nil {
				t.Error("late.txt was written after the editor set read-only mode")
			}
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, ws := t.TempDir(), t.TempDir()
			for name, content := range tt.files {
				if err := os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tt.git {
				gitInit(t, ws)
			}
			if tt.rules != "" {
				if err := os.WriteFile(filepath.Join(home, "rules.yaml"), []byte(tt.rules), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			m, url := newReactiveModel(t, tt.calls)
			writeConfig(t, home, url)
			got := pt.run(t, home, ws, tt.scenario)
			if got.StopReason != "end_turn" {
				t.Errorf("the last turn stopped with %q\ngodwit stderr:\n%s", got.StopReason, got.Stderr)
			}
			tt.check(t, ws, got, m)
			if t.Failed() {
				t.Logf("godwit stderr:\n%s", got.Stderr)
			}
		})
	}
}

// TestTerminalCommandsThroughOfficialClient runs shell_exec in the
// editor's terminal: the policy judges it as it judges any command, and
// the command line godwit hands the editor is its own sandbox, so the
// editor runs it confined to the session's mode.
func TestTerminalCommandsThroughOfficialClient(t *testing.T) {
	t.Parallel() // each peer test has its own home, workspace and model
	pt := peerTools(t)
	home, ws, outside := t.TempDir(), t.TempDir(), t.TempDir()
	for name, content := range goModule {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	escape := filepath.Join(outside, "escaped.txt")
	m, url := newReactiveModel(t, map[string][]modelCall{"[term]": {
		shellCall("ls"),
		shellCall("go build -o app . && go test ./..."),
		shellCall("touch " + escape),
	}})
	writeConfig(t, home, url)
	got := pt.run(t, home, ws, peerScenario{Terminal: true, Answer: "allow_once", Turns: []peerTurn{{Prompt: "[term] go"}}})

	if len(got.Terminals) != 3 {
		t.Fatalf("%d terminals, want 3\ngodwit stderr:\n%s", len(got.Terminals), got.Stderr)
	}
	for _, term := range got.Terminals {
		// `godwit __godwit_supervise PATH ARGV...` holds the command's
		// process tree (tool/shell's supervise.go); ARGV is the sandbox.
		args := term.Args
		if len(args) >= 3 && args[0] == "__godwit_supervise" && args[1] == pt.bin {
			args = args[3:]
		}
		if term.Command != pt.bin || len(args) == 0 || args[0] != "__godwit_sandbox" || !contains(term.Env, "GODWIT_SANDBOX") {
			t.Errorf("the editor was asked to run %s %q, not godwit's sandbox under its supervisor", term.Command, term.Args)
		}
	}
	wantAsked(t, got, 2) // the build and the touch; ls only reads
	wantBuilt(t, ws, m)
	if _, err := os.Stat(escape); err == nil {
		t.Errorf("an approved command in the editor's terminal wrote outside the workspace: %s", escape)
	}
	if !m.saw("Permission denied") {
		t.Errorf("the model did not see the sandbox refuse the write:\n%s", m.all())
	}
}

func wantFile(t *testing.T, ws, name, want string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ws, name))
	if err != nil || string(b) != want {
		t.Errorf("%s = %q, %v; want %q", name, b, err, want)
	}
}

func wantAsked(t *testing.T, got peerResult, n int) {
	t.Helper()
	if len(got.Permissions) != n {
		t.Errorf("%d permission requests, want %d: %s", len(got.Permissions), n, permissionText(got))
	}
}

// wantBuilt checks that the build wrote its binary in the workspace and
// the tests ran.
func wantBuilt(t *testing.T, ws string, m *reactiveModel) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(ws, "app")); err != nil {
		t.Errorf("go build wrote no app: %v", err)
	}
	if !m.saw(`ok  \texample.com/hello`) {
		t.Errorf("the model did not see go test pass:\n%s", m.all())
	}
}

func permissionText(got peerResult) string {
	var parts []string
	for _, p := range got.Permissions {
		s := p.ToolCall.Title
		for _, c := range p.ToolCall.Content {
			if c.Content.Text != "" {
				s += " | " + c.Content.Text
			}
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "\n")
}

func gitInit(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
