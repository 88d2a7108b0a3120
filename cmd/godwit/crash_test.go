package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/store/storetest"
	"github.com/godwit/godwit/llm/llmtest"
)

// startRun starts `godwit run --json ...` and returns the command and the
// session id read from its first event.
func startRun(t *testing.T, home, ws string, args ...string) (*exec.Cmd, *bufio.Scanner, string) {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"run", "--json"}, args...)...)
	cmd.Dir = ws
	cmd.Env = append(baseEnv(), "GODWIT_HOME="+home)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// A test that fails before godwit ends must not leave it running
	// over the temporary folders as they are removed.
	t.Cleanup(func() { _ = cmd.Process.Kill(); waitHomeIdle(t, home) })
	sc := bufio.NewScanner(out)
	if !sc.Scan() {
		t.Fatal("no first event")
	}
	var e struct {
		Type      string `json:"type"`
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Type != "session.started" {
		t.Fatalf("first event %q: %v", sc.Text(), err)
	}
	return cmd, sc, e.SessionID
}

// waitFor reads events until one of type typ.
func waitFor(t *testing.T, sc *bufio.Scanner, typ string) {
	t.Helper()
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"type":"`+typ+`"`) {
			return
		}
	}
	t.Fatalf("no %s event", typ)
}

func turnStatuses(t *testing.T, home, sid string) []string {
	t.Helper()
	st := storetest.OpenAt(t, filepath.Join(home, "godwit.db"))
	turns, err := st.Turns(context.Background(), sid)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tr := range turns {
		out = append(out, string(tr.Status))
	}
	return out
}

func TestKill9MidTurnThenResume(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewTestServer(t,
		llmtest.ChatTextReply("first answer", 10, 1),
		// Turn 2 runs a long command; the process is killed meanwhile.
		llmtest.ChatReply(llmtest.ChatToolCall("c1", "shell_exec", `{"command": "sleep 30"}`), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(10, 1)),
		llmtest.ChatTextReply("third answer", 10, 1),
	)
	home, ws := setup(t, srv.URL())
	r := godwit(t, home, ws, nil, "run", "--json", "--model", "local/m", "-p", "one")
	if r.code != 0 {
		t.Fatalf("turn 1: %s", r.stderr)
	}
	var first struct {
		SessionID string `json:"session_id"`
	}
	_ = json.Unmarshal([]byte(strings.SplitN(r.stdout, "\n", 2)[0]), &first)

	cmd, sc, sid := startRun(t, home, ws, "--model", "local/m", "--yes", "--session", first.SessionID, "-p", "two")
	if sid != first.SessionID {
		t.Fatalf("resumed %s, want %s", sid, first.SessionID)
	}
	waitFor(t, sc, "tool.started")
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	r = godwit(t, home, ws, nil, "run", "--model", "local/m", "--session", sid, "-p", "three")
	if r.code != 0 {
		t.Fatalf("resume after kill -9: exit %d: %s", r.code, r.stderr)
	}
	if got := strings.Join(turnStatuses(t, home, sid), ","); got != "done,interrupted,done" {
		t.Errorf("turn statuses = %s, want done,interrupted,done", got)
	}
	// The third request holds the whole earlier history, and the killed
	// call is answered, so the vendor accepts it: killed when the command
	// had started (TestSignalsLeaveNoProcess), cancelled when godwit died
	// before it could.
	third := string(srv.Requests()[2].Body)
	for _, want := range []string{"first answer", `"tool_call_id":"c1"`} {
		if !strings.Contains(third, want) {
			t.Errorf("the resumed request lacks %q", want)
		}
	}
	if !strings.Contains(third, `"content":"CANCELLED: `) && !strings.Contains(third, `"content":"KILLED: `) {
		t.Errorf("the killed call is not answered: %s", third)
	}
	llmtest.CheckChat(t, srv.Requests())
	// What the killed process sent, the next one sends again byte for
	// byte (the call's arguments as the model wrote them), so the cache
	// holds across the crash.
	sent, next := cacheItems(t, "openai-chat", srv.Requests()[1].Body), cacheItems(t, "openai-chat", srv.Requests()[2].Body)
	for i := range sent {
		if i >= len(next) || !bytes.Equal(sent[i], next[i]) {
			t.Fatalf("item %d differs after the crash:\n before: %s\n after:  %s", i, sent[i], next[min(i, len(next)-1)])
		}
	}
	if !strings.Contains(third, `{\"command\": \"sleep 30\"}`) {
		t.Errorf("the killed call's arguments were re-encoded: %s", third)
	}
}

func TestInterruptCancelsTheTurnAndKillsTheCommand(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewTestServer(t,
		llmtest.ChatReply(llmtest.ChatToolCall("c1", "shell_exec", `{"command":"sleep 300 & echo $! > child.pid; wait"}`), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(10, 1)),
	)
	home, ws := setup(t, srv.URL())
	cmd, sc, sid := startRun(t, home, ws, "--model", "local/m", "--yes", "-p", "wait")
	waitFor(t, sc, "tool.started")
	pidFile := filepath.Join(ws, "child.pid")
	var child int
	// The sandbox can take seconds to start on a loaded CI machine; the
	// bound only stops a broken run from hanging the suite.
	for deadline := time.Now().Add(20 * time.Second); child == 0; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(pidFile); err == nil {
			// The pid the command wrote is its own PID namespace's
			// (Linux); ours is found by the process's folder.
			child = sleeperIn(ws)
		}
		if child == 0 && time.Now().After(deadline) {
			t.Fatal("the command never started its child")
		}
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Errorf("exit after Ctrl-C: %v, want status 1", err)
	}
	if got := strings.Join(turnStatuses(t, home, sid), ","); got != "cancelled" {
		t.Errorf("turn status = %s, want cancelled", got)
	}
	// The command's whole process group is gone.
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if !alive(child) {
			return
		}
	}
	t.Errorf("the command's child %d outlived Ctrl-C", child)
}

// sleeperIn is the pid of a `sleep` whose folder is dir, or 0.
func sleeperIn(dir string) int {
	names, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range names {
		cmdline, _ := os.ReadFile(d + "/cmdline")
		cwd, _ := os.Readlink(d + "/cwd")
		if strings.HasPrefix(string(cmdline), "sleep\x00") && cwd == dir {
			pid, _ := strconv.Atoi(filepath.Base(d))
			return pid
		}
	}
	return 0
}

// alive reports whether pid runs (a zombie counts as gone: PID 1 here
// does not reap).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	fields := strings.Fields(string(b))
	return len(fields) > 2 && fields[2] != "Z"
}
