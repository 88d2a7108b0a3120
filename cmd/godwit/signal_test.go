//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/godwit/godwit/internal/peertest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/llm/llmtest"
)

// TestSignalsLeaveNoProcess ends godwit with HUP, TERM, INT and KILL
// while a foreground command and a background job run, each of which
// forks: a plain child, a setsid grandchild, a double fork. Nothing may
// survive, and the next `run --session` tells the model the call was
// killed.
func TestSignalsLeaveNoProcess(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) { signalRun(t, sig) })
	}
}

func signalRun(t *testing.T, sig syscall.Signal) {
	// Every process the commands start carries mark in its command line
	// (sleep accepts a fraction), so survivors can be found in /proc.
	mark := fmt.Sprintf("600.%d%d", os.Getpid(), sig)
	t.Cleanup(func() { killMarked(mark) })
	job := `sleep ` + mark + `1 & setsid sleep ` + mark + `2 & wait`
	fg := `sleep ` + mark + `3 & setsid sleep ` + mark + `4 & (sleep ` + mark + `5 &) ; ` +
		`setsid bash -c 'sleep ` + mark + `6 & wait' & echo up > fg.up; wait`
	srv := llmtest.NewTestServer(t,
		llmtest.ChatReply(llmtest.ChatToolCall("c1", "shell_exec", jsonArgs(map[string]any{"command": job, "background": true})), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(10, 1)),
		llmtest.ChatReply(llmtest.ChatToolCall("c2", "shell_exec", jsonArgs(map[string]any{"command": fg})), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(10, 1)),
		llmtest.ChatTextReply("resumed", 10, 1),
	)
	home, ws := setup(t, srv.URL())
	cmd, sc, sid := startRun(t, home, ws, "--model", "local/m", "--yes", "-p", "start things")
	waitFor(t, sc, "tool.finished") // the job started
	waitFor(t, sc, "tool.started")  // the foreground command
	deadline := time.Now().Add(20 * time.Second)
	for sleeps(mark) < 6 || !exists(filepath.Join(ws, "fg.up")) {
		if time.Now().After(deadline) {
			t.Fatalf("the commands did not start: %v", marked(mark))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("godwit did not exit after %s", sig)
	}
	// The processes die within a moment; poll rather than assert a time.
	var left []string
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if left = marked(mark); len(left) == 0 {
			break
		}
	}
	if len(left) > 0 {
		t.Errorf("after %s these outlived godwit:\n%s", sig, strings.Join(left, "\n"))
	}

	r := godwit(t, home, ws, nil, "run", "--model", "local/m", "--session", sid, "-p", "what happened?")
	if r.code != 0 {
		t.Fatalf("resume: exit %d: %s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	var body struct {
		Messages []struct {
			Content    string `json:"content"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(reqs[len(reqs)-1].Body, &body); err != nil {
		t.Fatal(err)
	}
	result := ""
	for _, m := range body.Messages {
		if m.ToolCallID == "c2" {
			result = m.Content
		}
	}
	t.Logf("after %s the model reads: %s", sig, result)
	if !strings.Contains(result, "killed") || strings.Contains(result, "did not run to completion") {
		t.Errorf("the resumed request does not say the call was killed: %q", result)
	}
	st, err := store.Open(context.Background(), filepath.Join(home, "godwit.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	procs, err := st.Procs(context.Background(), sid)
	if err != nil {
		t.Fatal(err)
	}
	byCall := map[string]store.Proc{}
	for _, p := range procs {
		byCall[p.CallID] = p
	}
	for _, id := range []string{"c1", "c2"} {
		if p, ok := byCall[id]; !ok || p.Status != store.ProcKilled {
			t.Errorf("call %s: proc record %+v, want status killed", id, p)
		}
	}
	llmtest.CheckChat(t, reqs)
}

func exists(path string) bool { _, err := os.Stat(path); return err == nil }

// marked lists the live processes whose command line holds mark.
func marked(mark string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() || !alive(pid) {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !strings.Contains(string(b), mark) {
			continue
		}
		out = append(out, e.Name()+" "+strings.ReplaceAll(strings.TrimRight(string(b), "\x00"), "\x00", " "))
	}
	return out
}

// sleeps counts the live sleep processes marked.
func sleeps(mark string) int {
	n := 0
	for _, p := range marked(mark) {
		if f := strings.Fields(p); len(f) == 3 && f[1] == "sleep" {
			n++
		}
	}
	return n
}

func killMarked(mark string) {
	for _, p := range marked(mark) {
		pid, _ := strconv.Atoi(strings.Fields(p)[0])
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// TestChatTerminalClosedLeavesNoProcess: the terminal running `godwit
// chat` closes (SIGHUP) while a job and a foreground command run, each
// with a setsid grandchild: nothing outlives it.
func TestChatTerminalClosedLeavesNoProcess(t *testing.T) {
	bin, err := exec.LookPath("tmux")
	if err != nil {
		peertest.Missing(t, "tmux is not installed (Debian: apt-get install tmux); this test drives the chat in a real terminal")
	}
	mark := fmt.Sprintf("600.%d77", os.Getpid())
	t.Cleanup(func() { killMarked(mark) })
	srv := llmtest.NewTestServer(t,
		llmtest.ChatReply(llmtest.ChatToolCall("c1", "shell_exec", jsonArgs(map[string]any{"command": "setsid sleep " + mark + "1 & wait", "background": true})), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(10, 1)),
		llmtest.ChatReply(llmtest.ChatToolCall("c2", "shell_exec", jsonArgs(map[string]any{"command": "setsid sleep " + mark + "2 & sleep " + mark + "3"})), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(10, 1)),
	)
	home, ws := setup(t, srv.URL())
	s := &tmuxSession{t: t, bin: bin, sock: filepath.Join(t.TempDir(), "tmux.sock"),
		env: append(baseEnv(), "GODWIT_HOME="+home, "TERM=xterm-256color")}
	s.run("new-session", "-d", "-s", "chat", "-x", "100", "-y", "30", "-c", ws, binary, "chat", "--yes", "--model", "local/m")
	s.stopOnCleanup()
	s.waitFor("/help")
	s.run("send-keys", "-t", "chat", "-l", "start")
	s.run("send-keys", "-t", "chat", "Enter")
	deadline := time.Now().Add(20 * time.Second)
	for sleeps(mark) < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("the commands did not start: %v\n%s", marked(mark), s.screen())
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.run("kill-server") // the terminal closes: SIGHUP
	var left []string
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if left = marked(mark); len(left) == 0 {
			break
		}
	}
	if len(left) > 0 {
		t.Errorf("after the terminal closed these outlived godwit chat:\n%s", strings.Join(left, "\n"))
	}
}
