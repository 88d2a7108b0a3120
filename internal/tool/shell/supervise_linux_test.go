package shell

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// escapes is a command whose processes leave its process group every way
// a shell allows: setsid, a double fork, a setsid shell that forks again.
// Each writes its pid to the file $1.
const escapes = `
setsid sh -c 'echo $$ >> "$1"; exec sleep 1000' sh "$1" &
(sh -c 'echo $$ >> "$1"; exec sleep 1000' sh "$1" &) 
setsid sh -c 'sh -c "echo \$\$ >> \"$1\"; exec sleep 1000" sh "$1" & wait' sh "$1" &
`

func TestSupervisorHoldsEscapedProcesses(t *testing.T) {
	t.Parallel() // the timeout case waits 10 s: see TestTimeoutKillsGroup
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, s *Shell, cmd string)
	}{
		{"foreground leftovers", func(t *testing.T, s *Shell, cmd string) {
			res := mustCall(t, s, m{"command": cmd + "\nwhile [ \"$(cat \"$1\" 2>/dev/null | wc -l)\" -lt 3 ]; do sleep 0.01; done"})
			if !strings.Contains(res.Content, "killed the processes it left running") {
				t.Errorf("content = %q", res.Content)
			}
		}},
		{"foreground timeout", func(t *testing.T, s *Shell, cmd string) {
			_, err := call(context.Background(), t, s, m{"command": cmd + "\nsleep 1000", "timeout_s": 10})
			if err == nil || !strings.Contains(err.Error(), "timed out") {
				t.Errorf("err = %v", err)
			}
		}},
		{"job stop", func(t *testing.T, s *Shell, cmd string) {
			mustCall(t, s, m{"command": cmd + "\nwait", "background": true})
			waitPids(t, s.opts.Env[0][len("PIDS="):], 3)
			if res := mustCall(t, s, m{"action": "stop", "job_id": "j1"}); !strings.Contains(res.Content, "stopped") &&
				!strings.Contains(res.Content, "killed the processes it left running") {
				t.Errorf("stop: %q", res.Content)
			}
		}},
		{"job whose shell exited", func(t *testing.T, s *Shell, cmd string) {
			mustCall(t, s, m{"command": cmd, "background": true})
			waitJob(t, s, "j1")
			waitPids(t, s.opts.Env[0][len("PIDS="):], 3)
			if res := mustCall(t, s, m{"action": "status", "job_id": "j1"}); !strings.Contains(res.Content, "its child processes still run") {
				t.Errorf("status: %q", res.Content)
			}
			s.Close()
		}},
		{"lifeline closed", func(t *testing.T, s *Shell, cmd string) {
			// godwit dying closes the write end of the lifeline; closing it
			// here is the same to the supervisor.
			mustCall(t, s, m{"command": cmd + "\nwait", "background": true})
			waitPids(t, s.opts.Env[0][len("PIDS="):], 3)
			s.mu.Lock()
			s.lifeW.Close()
			j := s.jobs["j1"]
			s.mu.Unlock()
			<-j.proc.done
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pidFile := filepath.Join(t.TempDir(), "pids")
			reapOnCleanup(t, pidFile)
			s := newShell(t, func(o *Options) { o.Env = []string{"PIDS=" + pidFile} })
			if s.exe == "" {
				t.Fatal("the test binary should supervise (TestMain calls MaybeSupervise)")
			}
			cmd := `set -- "$PIDS"; ` + escapes
			tc.run(t, s, cmd)
			pids := waitPids(t, pidFile, 3)
			assertDead(t, pids)
		})
	}
}

// TestCommandCannotSignalItsSupervisor: `kill 0` reaches the command's
// own group, not the supervisor, which reports the signal.
func TestKillZeroStaysInTheCommand(t *testing.T) {
	s := newShell(t)
	res := mustCall(t, s, m{"command": "kill 0"})
	if !strings.Contains(res.Content, "[signal: terminated") {
		t.Errorf("content = %q", res.Content)
	}
}

func TestTrackHearsEveryCommand(t *testing.T) {
	var mu sync.Mutex
	var got []string
	s := newShell(t, func(o *Options) {
		o.Track = func(_ context.Context, c Started) func(string) {
			// A command as quick as `exit 3` may be gone before its
			// identity is read (then there is nothing to end later);
			// one that runs on must be verified.
			if !c.Supervised || (!c.Verified() && c.Job != "") {
				t.Errorf("started %+v: want a supervised, verified leader", c)
			}
			return func(how string) {
				mu.Lock()
				defer mu.Unlock()
				got = append(got, c.Job+":"+c.Command+":"+how)
			}
		}
	})
	mustCall(t, s, m{"command": "exit 3"})
	mustCall(t, s, m{"command": "sleep 1000", "background": true})
	s.Close()
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(got) // a foreground command's supervisor may still be exiting when its result is back
	if strings.Join(got, ",") != ":exit 3:exit 3,j1:sleep 1000:killed" {
		t.Errorf("ended = %q", got)
	}
}

func TestUnsupervisedStillKillsItsGroup(t *testing.T) {
	s := newShell(t)
	s.exe = ""
	pidFile := filepath.Join(t.TempDir(), "pids")
	reapOnCleanup(t, pidFile)
	res := mustCall(t, s, m{"command": "sleep 1000 & echo $! > " + pidFile + "; echo done"})
	if !strings.Contains(res.Content, "killed the processes it left running") {
		t.Errorf("content = %q", res.Content)
	}
	assertDead(t, readPids(t, pidFile))
	if res := mustCall(t, s, m{"command": "kill -SEGV $$"}); !strings.Contains(res.Content, "[signal: segmentation fault") {
		t.Errorf("content = %q", res.Content)
	}
}

func TestIdentity(t *testing.T) {
	self := Self()
	if !self.Verified() || !self.Alive() || self.Boot == "" {
		t.Fatalf("Self() = %+v", self)
	}
	later := self
	later.Start++
	if later.Alive() {
		t.Error("a process started at another moment counts as this one")
	}
	other := self
	other.Boot = "another-boot"
	if other.Alive() {
		t.Error("a process of another boot counts as this one")
	}
	if EndOrphan(later, 0) {
		t.Error("EndOrphan signalled a process whose start does not match")
	}
}
