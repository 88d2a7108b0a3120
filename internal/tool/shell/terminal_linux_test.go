package shell

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// editorTerminal runs commands as an editor's integrated terminal does
// (terminal/create): as its own child, in the folder and with the
// variables it is given; it kills with SIGKILL when ctx ends, as the
// attack suite's editor does.
type editorTerminal struct {
	mu   sync.Mutex
	pids []int
}

func (e *editorTerminal) Run(ctx context.Context, c *exec.Cmd, limit int) (TerminalResult, error) {
	cmd := exec.Command(c.Path, c.Args[1:]...)
	cmd.Dir, cmd.Env = c.Dir, c.Env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 5 * time.Second // a process left behind holds the output open
	if err := cmd.Start(); err != nil {
		return TerminalResult{}, err
	}
	e.mu.Lock()
	e.pids = append(e.pids, cmd.Process.Pid)
	e.mu.Unlock()
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			_ = cmd.Process.Kill()
		case <-done:
		}
	}()
	err := cmd.Wait()
	close(done)
	res := TerminalResult{Output: out.String()}
	if ctx.Err() != nil {
		return res, nil
	}
	if ee, ok := err.(*exec.ExitError); ok || err == nil {
		code := 0
		if ok {
			code = ee.ExitCode()
		}
		res.ExitCode = &code
	}
	return res, nil
}

// TestTerminalSupervised: a command run in the editor's terminal leaves
// nothing behind, whether it exits, times out (the editor SIGKILLs the
// terminal), or godwit goes away.
func TestTerminalSupervised(t *testing.T) {
	t.Parallel() // the timeout case waits 10 s: see TestTimeoutKillsGroup
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, s *Shell, cmd string)
	}{
		{"command exits", func(t *testing.T, s *Shell, cmd string) {
			res := mustCall(t, s, m{"command": cmd + "\nwhile [ \"$(cat \"$1\" 2>/dev/null | wc -l)\" -lt 3 ]; do sleep 0.01; done; exit 3"})
			if res.ExitCode == nil || *res.ExitCode != 3 {
				t.Errorf("exit code %v, want 3: %q", deref(res.ExitCode), res.Content)
			}
		}},
		{"terminal killed on timeout", func(t *testing.T, s *Shell, cmd string) {
			_, err := call(context.Background(), t, s, m{"command": cmd + "\nsleep 1000", "timeout_s": 10})
			if err == nil || !strings.Contains(err.Error(), "timed out") {
				t.Errorf("err = %v", err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pidFile := filepath.Join(t.TempDir(), "pids")
			reapOnCleanup(t, pidFile)
			term := &editorTerminal{}
			s := newShell(t, func(o *Options) { o.Terminal = term; o.Env = []string{"PIDS=" + pidFile} })
			tc.run(t, s, `set -- "$PIDS"; `+escapes)
			assertDead(t, waitPids(t, pidFile, 3))
			assertDead(t, term.pids) // the supervisors too
		})
	}
}

// TestTerminalSupervisorWatchesGodwit: the supervisor an editor starts
// is not godwit's child, so no lifeline reaches it; it ends the tree
// once the process it watches (godwit; here a stand-in) exits, and the
// editor sees the command end.
func TestTerminalSupervisorWatchesGodwit(t *testing.T) {
	standIn := exec.Command("sleep", "1000")
	if err := standIn.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = standIn.Process.Kill(); _ = standIn.Wait() })
	id, ok := Lookup(standIn.Process.Pid)
	if !ok {
		t.Fatal("no identity for the stand-in")
	}
	pidFile := filepath.Join(t.TempDir(), "pids")
	reapOnCleanup(t, pidFile)
	exe, _ := os.Executable()
	cmd := exec.Command("/bin/sh", "-c", `set -- "$0"; `+escapes+"\nsleep 1000", pidFile)
	terminalCmd(cmd, exe, id, 200*time.Millisecond)
	editor := exec.Command(cmd.Path, cmd.Args[1:]...)
	editor.Env = cmd.Env
	if err := editor.Start(); err != nil {
		t.Fatal(err)
	}
	pids := waitPids(t, pidFile, 3)
	_ = standIn.Process.Kill() // godwit is gone
	_ = standIn.Wait()
	done := make(chan error, 1)
	go func() { done <- editor.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = editor.Process.Kill()
		t.Fatal("the terminal's supervisor did not end when godwit did")
	}
	assertDead(t, pids)

	// A stale identity (the pid now names another process) counts as gone.
	stale := Self()
	stale.Start++
	select {
	case <-watchExit(stale):
	case <-time.After(30 * time.Second):
		t.Error("a watch of a process that is not the one named did not end")
	}
}

// TestTerminalPayload: the editor gets godwit's identity to watch.
func TestTerminalPayload(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", "true")
	cmd.Env = []string{"A=1"}
	self := Self()
	terminalCmd(cmd, "/godwit", self, time.Second)
	var p supervisorPayload
	env := cmd.Env[len(cmd.Env)-1]
	if !strings.HasPrefix(env, supervisorEnv+"=") || json.Unmarshal([]byte(strings.TrimPrefix(env, supervisorEnv+"=")), &p) != nil {
		t.Fatalf("env %q", cmd.Env)
	}
	if !p.Terminal || p.Watch == nil || *p.Watch != self || p.GraceMS != 1000 {
		t.Errorf("payload %+v", p)
	}
	if cmd.Path != "/godwit" || strings.Join(cmd.Args, " ") != "/godwit "+supervisorArg+" /bin/sh /bin/sh -c true" {
		t.Errorf("%s %q", cmd.Path, cmd.Args)
	}
}
