package shell

import (
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"
)

// proc is one started command: the leader of its own process group.
type proc struct {
	cmd     *exec.Cmd
	pid     int // also the process group id
	started time.Time
	done    chan struct{} // closed once the leader is reaped

	// Set by the wait goroutine before done is closed; read after <-done.
	state *os.ProcessState
	ended time.Time

	mu     sync.Mutex // guards killed
	killed bool       // we signalled the leader while it still ran
}

func startProc(cmd *exec.Cmd, now func() time.Time) (*proc, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{cmd: cmd, pid: cmd.Process.Pid, started: now(), done: make(chan struct{})}
	go func() {
		_ = cmd.Wait() // the exit status is in ProcessState
		p.state = cmd.ProcessState
		p.ended = now()
		close(p.done)
	}()
	return p, nil
}

// exited reports whether the leader has been reaped.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// running reports whether the leader or any process of its group is
// still alive (zombies do not count).
func (p *proc) running() bool {
	return !p.exited() || groupAlive(p.pid)
}

func (p *proc) wasKilled() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.killed
}

// stop looks whether the group has died every poll at first, backing off
// to maxPoll: on Linux a look can mean a scan of /proc.
const (
	poll    = 10 * time.Millisecond
	maxPoll = 100 * time.Millisecond
)

// stop kills the whole group: SIGTERM, then SIGKILL once grace has
// passed with any process of the group still alive (a child that ignores
// SIGTERM must still die). It returns when the group is gone, or after a
// bounded wait that is logged. Safe to call concurrently and repeatedly.
func (p *proc) stop(grace time.Duration, log *slog.Logger) {
	if !p.running() {
		return
	}
	p.mu.Lock()
	if !p.exited() {
		p.killed = true
	}
	p.mu.Unlock()
	_ = termGroup(p.pid)
	if p.waitGone(grace) {
		return
	}
	log.Debug("shell: process group ignored SIGTERM; killing", "pid", p.pid, "grace", grace)
	_ = killGroup(p.pid)
	if !p.waitGone(5 * time.Second) {
		log.Warn("shell: process group still alive after SIGKILL", "pid", p.pid)
	}
}

// waitGone polls until the group has died or d has passed.
func (p *proc) waitGone(d time.Duration) bool {
	deadline := time.Now().Add(d)
	wait := poll
	for p.running() {
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		time.Sleep(min(wait, left))
		wait = min(2*wait, maxPoll)
	}
	return true
}

// describe renders how the leader ended: "exit 0", "exit 2", "killed",
// or "signal: segmentation fault" for a signal we did not send.
func (p *proc) describe() string {
	if !p.exited() {
		return "running"
	}
	if p.wasKilled() {
		return "killed"
	}
	if c := p.state.ExitCode(); c >= 0 {
		return "exit " + strconv.Itoa(c)
	}
	return p.state.String()
}

// exitCode is the leader's exit status, nil while it runs or when a
// signal ended it.
func (p *proc) exitCode() *int {
	if !p.exited() {
		return nil
	}
	c := p.state.ExitCode()
	if c < 0 {
		return nil
	}
	return &c
}
