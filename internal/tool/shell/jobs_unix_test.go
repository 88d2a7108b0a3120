//go:build unix

package shell

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/godwit/godwit/tool"
)

// waitJob waits for job id's leader to exit.
func waitJob(t *testing.T, s *Shell, id string) {
	t.Helper()
	s.mu.Lock()
	j := s.jobs[id]
	s.mu.Unlock()
	<-j.proc.mainDone // the command itself; processes it started may still run
}

// serverScript is a "server" that forks a worker which ignores SIGTERM,
// records both pids (the worker once its trap is set), and waits.
const serverScript = `
sh -c 'trap "" TERM; echo $$ >> "$1"; while :; do sleep 1; done' sh "$1" &
echo $$ >> "$1"
echo listening
wait
`

func TestBackgroundStopKillsServerAndChild(t *testing.T) {
	s := newShell(t)
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pids")
	reapOnCleanup(t, pidFile)
	res := mustCall(t, s, m{"command": "sh " + script(t, dir, serverScript) + " " + pidFile, "background": true})
	if !regexp.MustCompile(`^started job j1 \(pid \d+\); log: \.godwit/run/j1\.log$`).MatchString(res.Content) {
		t.Fatalf("start: %q", res.Content)
	}
	pids := waitPids(t, pidFile, 2)
	for _, pid := range pids {
		if !alive(pid) {
			t.Fatalf("pid %d is not running before stop", pid)
		}
	}
	if res := mustCall(t, s, m{"action": "status", "job_id": "j1"}); !strings.HasPrefix(res.Content, "j1 running · pid ") {
		t.Errorf("status: %q", res.Content)
	}
	res = mustCall(t, s, m{"action": "stop", "job_id": "j1"})
	if !strings.HasPrefix(res.Content, "j1 stopped after ") || !strings.HasSuffix(res.Content, ": killed") {
		t.Errorf("stop: %q", res.Content)
	}
	assertDead(t, pids)
	if res := mustCall(t, s, m{"action": "list"}); !strings.HasPrefix(res.Content, "j1  killed  ") {
		t.Errorf("list after stop: %q", res.Content)
	}
	if res := mustCall(t, s, m{"action": "stop", "job_id": "j1"}); !strings.Contains(res.Content, "nothing to stop") {
		t.Errorf("second stop: %q", res.Content)
	}
}

func TestCloseKillsJobsLeft(t *testing.T) {
	s := newShell(t)
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pids")
	reapOnCleanup(t, pidFile)
	srv := "sh " + script(t, dir, serverScript) + " " + pidFile
	mustCall(t, s, m{"command": srv, "background": true})
	mustCall(t, s, m{"command": srv, "background": true})
	// A job whose leader exits at once, leaving a child behind.
	mustCall(t, s, m{"command": "sleep 1000 & echo $! >> " + pidFile, "background": true})
	pids := waitPids(t, pidFile, 5)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	assertDead(t, pids)
	_, err := call(context.Background(), t, s, m{"command": "true"})
	if !errors.Is(err, ErrClosed) {
		t.Errorf("run after Close: %v, want ErrClosed", err)
	}
	_, err = call(context.Background(), t, s, m{"command": "true", "background": true})
	if !errors.Is(err, ErrClosed) {
		t.Errorf("background after Close: %v, want ErrClosed", err)
	}
}

func TestStatusAfterExit(t *testing.T) {
	s := newShell(t)
	mustCall(t, s, m{"command": "echo bye; exit 7", "background": true})
	waitJob(t, s, "j1")
	res := mustCall(t, s, m{"action": "status", "job_id": "j1"})
	if !strings.HasPrefix(res.Content, "j1 exit 7 · pid ") || !strings.HasSuffix(res.Content, "$ echo bye; exit 7\nbye") {
		t.Errorf("status: %q", res.Content)
	}
	if res.ExitCode == nil || *res.ExitCode != 7 {
		t.Errorf("ExitCode = %v, want 7", deref(res.ExitCode))
	}
}

func TestStatusNotesLeftChildren(t *testing.T) {
	s := newShell(t)
	pidFile := filepath.Join(t.TempDir(), "pids")
	reapOnCleanup(t, pidFile)
	mustCall(t, s, m{"command": "sleep 1000 & echo $! > " + pidFile, "background": true})
	waitJob(t, s, "j1")
	pids := waitPids(t, pidFile, 1)
	res := mustCall(t, s, m{"action": "status", "job_id": "j1"})
	if !strings.HasPrefix(res.Content, "j1 exit 0 (its child processes still run; stop kills them)") {
		t.Errorf("status: %q", res.Content)
	}
	res = mustCall(t, s, m{"action": "stop", "job_id": "j1"})
	if !strings.Contains(res.Content, "killed the processes it left running") {
		t.Errorf("stop: %q", res.Content)
	}
	assertDead(t, pids)
}

func TestLogs(t *testing.T) {
	s := newShell(t)
	mustCall(t, s, m{"command": "seq 1 1000", "background": true})
	mustCall(t, s, m{"command": "true", "background": true})
	mustCall(t, s, m{"command": "seq 1 3", "background": true})
	waitJob(t, s, "j1")
	waitJob(t, s, "j2")
	waitJob(t, s, "j3")
	for _, tc := range []struct {
		name  string
		args  m
		first string // first line shown
		last  string
		lines int
	}{
		{"last 5", m{"action": "logs", "job_id": "j1", "lines": 5}, "[last 5 lines; the full log is .godwit/run/j1.log]", "1000", 6},
		{"default 50", m{"action": "logs", "job_id": "j1"}, "[last 50 lines; the full log is .godwit/run/j1.log]", "1000", 51},
		{"capped", m{"action": "logs", "job_id": "j1", "lines": 5000}, "[lines is capped at 500; last 500 lines; the full log is .godwit/run/j1.log]", "1000", 501},
		{"all of a short log", m{"action": "logs", "job_id": "j3", "lines": 10}, "1", "3", 3},
		{"empty log", m{"action": "logs", "job_id": "j2"}, "(no output yet)", "(no output yet)", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := mustCall(t, s, tc.args)
			lines := strings.Split(res.Content, "\n")
			if lines[0] != tc.first || lines[len(lines)-1] != tc.last || len(lines) != tc.lines {
				t.Errorf("got %d lines, first %q, last %q; want %d, %q, %q", len(lines), lines[0], lines[len(lines)-1], tc.lines, tc.first, tc.last)
			}
		})
	}
	res := mustCall(t, s, m{"action": "logs", "job_id": "j1", "lines": 3})
	if !strings.HasSuffix(res.Content, "\n998\n999\n1000") {
		t.Errorf("logs: %q", res.Content)
	}
}

func TestUnknownJob(t *testing.T) {
	s := newShell(t)
	for _, action := range []string{"status", "logs", "stop"} {
		_, err := call(context.Background(), t, s, m{"action": action, "job_id": "j9"})
		var te *tool.ToolError
		if !errors.As(err, &te) || te.Code != tool.CodeBadArgs || !strings.Contains(te.Remedy, "No job runs here") {
			t.Errorf("%s with no jobs: %v", action, err)
		}
	}
	mustCall(t, s, m{"command": "true", "background": true})
	mustCall(t, s, m{"command": "true", "background": true})
	_, err := call(context.Background(), t, s, m{"action": "logs", "job_id": "j9"})
	if te := tool.AsToolError(err); te.Code != tool.CodeBadArgs || te.Remedy != "Known jobs: j1, j2." || te.Message != `no job "j9"` {
		t.Errorf("logs j9: %v", err)
	}
}

func TestListAndLogNames(t *testing.T) {
	s := newShell(t)
	if res := mustCall(t, s, m{"action": "list"}); res.Content != "no background jobs" {
		t.Errorf("empty list: %q", res.Content)
	}
	// Another session's log already holds j1.log: it must not be clobbered.
	if err := os.MkdirAll(s.jobsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(s.jobsDir, "j1.log")
	if err := os.WriteFile(other, []byte("theirs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := mustCall(t, s, m{"command": "exit 2", "background": true})
	if !strings.Contains(res.Content, "started job j2 ") {
		t.Errorf("start: %q", res.Content)
	}
	mustCall(t, s, m{"command": "sleep 1000\n# second line", "background": true})
	waitJob(t, s, "j2")
	res = mustCall(t, s, m{"action": "list"})
	if !regexp.MustCompile(`^j2  exit 2  \d+\.\d\ds  exit 2\nj3  running  \d+\.\d\ds  sleep 1000 …$`).MatchString(res.Content) {
		t.Errorf("list: %q", res.Content)
	}
	if data, _ := os.ReadFile(other); string(data) != "theirs\n" {
		t.Errorf("other session's log changed: %q", data)
	}
}

// TestJobLogsStayInWorkspace: godwit writes job logs outside the
// sandbox; a .godwit/run the repository ships as a link out of the
// workspace must not carry them out.
func TestJobLogsStayInWorkspace(t *testing.T) {
	out := t.TempDir()
	var ws string
	s := newShell(t, func(o *Options) {
		ws = o.Workdir
		if err := os.MkdirAll(filepath.Join(ws, ".godwit"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(out, filepath.Join(ws, ".godwit", "run")); err != nil {
			t.Fatal(err)
		}
	})
	if _, err := call(context.Background(), t, s, m{"command": "true", "background": true}); err == nil {
		t.Error("a job started with its log through a link out of the workspace")
	}
	if entries, _ := os.ReadDir(out); len(entries) > 0 {
		t.Errorf("godwit wrote outside the workspace: %v", entries)
	}
}

// TestJobLogIsTheFileGodwitMade: a job replaces its log's name with a
// link out of the workspace, or a FIFO; status and logs still read the
// file godwit created (a link would have godwit, outside the sandbox,
// read what it points to; a FIFO's open would wait forever).
func TestJobLogIsTheFileGodwitMade(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(outside, []byte("OUTSIDE-SECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, plant := range []string{"ln -s " + outside + " .godwit/run/j1.log", "mkfifo .godwit/run/j1.log"} {
		t.Run(strings.Fields(plant)[0], func(t *testing.T) {
			s := newShell(t)
			mustCall(t, s, m{"command": "echo mine; rm .godwit/run/j1.log; " + plant, "background": true})
			waitJob(t, s, "j1")
			for _, action := range []string{"logs", "status"} {
				raw := []byte(`{"action": "` + action + `", "job_id": "j1"}`)
				done := make(chan string, 1)
				go func() {
					res, err := s.Run(context.Background(), raw)
					done <- fmt.Sprint(res.Content, err)
				}()
				select {
				case got := <-done:
					if !strings.Contains(got, "mine") || strings.Contains(got, "OUTSIDE") {
						t.Errorf("%s: %q", action, got)
					}
				case <-time.After(time.Minute): // a hang guard
					t.Fatalf("%s did not return", action)
				}
			}
		})
	}
}

// TestJobLogBounded: a job that writes without end (break 9: `seq` to
// 10^11 wrote 3.2 GB in 6 s) leaves a log no larger than LogLimit, whose
// end is the latest output; and a command that swaps the log's name for
// a link changes nothing godwit reads or writes.
func TestJobLogBounded(t *testing.T) {
	const limit = 64 << 10
	s := newShell(t, func(o *Options) { o.LogLimit = limit })
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("SECRETLOGMARK\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mustCall(t, s, m{"command": "seq 1 100000000000", "background": true})
	log := filepath.Join(s.jobsDir, "j1.log")
	for {
		if fi, err := os.Stat(log); err == nil && fi.Size() > limit/2 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // many limits' worth of output
	if err := os.Rename(log, log+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, log); err != nil {
		t.Fatal(err)
	}
	res := mustCall(t, s, m{"action": "stop", "job_id": "j1"})
	if !strings.Contains(res.Content, "stopped") {
		t.Fatalf("stop: %q", res.Content)
	}
	logs := mustCall(t, s, m{"action": "logs", "job_id": "j1", "lines": 3})
	if strings.Contains(logs.Content, "SECRETLOGMARK") || !regexp.MustCompile(`\n\d+\n\d+\n\d*$`).MatchString(logs.Content) {
		t.Errorf("logs after the swap: %q", logs.Content)
	}
	b, err := os.ReadFile(log + ".old")
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > limit {
		t.Errorf("the log grew to %d bytes, past its limit %d", len(b), limit)
	}
	if !regexp.MustCompile(`^\[godwit: \d+ bytes of earlier output dropped; a job's log keeps its last 64 KiB\]\n\d+\n`).Match(b) {
		t.Errorf("the log does not start with the note: %q", b[:min(len(b), 200)])
	}
	if got, _ := os.ReadFile(secret); string(got) != "SECRETLOGMARK\n" {
		t.Errorf("the link's target changed: %q", got)
	}
}
