package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// jsonArgs encodes a tool call's arguments.
func jsonArgs(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// toolResult returns the content of the result for call id in a Chat
// Completions request body.
func toolResult(t *testing.T, body []byte, id string) string {
	t.Helper()
	var req struct {
		Messages []struct {
			Content    string `json:"content"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	for _, m := range req.Messages {
		if m.ToolCallID == id {
			return m.Content
		}
	}
	t.Fatalf("no result for %s", id)
	return ""
}

// homeProcs lists the live processes (zombies aside) whose environment
// names home as GODWIT_HOME: the godwit processes a test started over
// home, and what they started. Without /proc it finds none.
func homeProcs(home string) []int {
	want := []byte("GODWIT_HOME=" + home + "\x00")
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() || !alive(pid) {
			continue
		}
		if env, err := os.ReadFile("/proc/" + e.Name() + "/environ"); err == nil && bytes.Contains(env, want) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitHomeIdle waits, in a test's cleanup, until no process runs over
// home: a godwit still shutting down writes its database there, and
// t.TempDir's removal racing it fails the test with "directory not
// empty". Ending is the processes' own business (it is what the tests
// check); what is still there after a generous bound is killed so the
// suite goes on.
func waitHomeIdle(t *testing.T, home string) {
	t.Helper()
	for killed := false; ; killed = true {
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if len(homeProcs(home)) == 0 {
				return
			}
		}
		left := homeProcs(home)
		if killed {
			t.Logf("still running over %s after SIGKILL: %v", home, left)
			return
		}
		t.Logf("still running over %s 30 s after the test ended, killed: %v", home, left)
		for _, pid := range left {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
