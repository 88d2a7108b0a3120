package shell

import (
	"bufio"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// proc is one started command: the leader of its own process group,
// which is either the shell itself or, where commands are supervised,
// the supervisor that holds the shell's whole tree (supervise.go).
type proc struct {
	cmd        *exec.Cmd
	pid        int // also the process group id
	supervised bool
	started    time.Time
	done       chan struct{} // closed once the leader is reaped
	// mainDone is closed once the shell itself has exited: with the
	// leader when unsupervised, on the supervisor's status line when
	// supervised (its descendants may still run).
	mainDone chan struct{}
	mainOnce sync.Once

	// Set before mainDone is closed; read after <-mainDone.
	main  exitInfo
	left  bool      // supervised: processes the shell started were still running when it exited
	ended time.Time // when the shell exited; set with main

	mu     sync.Mutex // guards killed
	killed bool       // we signalled the shell while it still ran
}

// startProc starts cmd. status, when set, is the read end of a
// supervisor's status pipe; statusW, its write end, is closed here once
// the supervisor holds its copy.
func startProc(cmd *exec.Cmd, status, statusW *os.File) (*proc, error) {
	err := cmd.Start()
	if statusW != nil {
		statusW.Close()
	}
	if err != nil {
		if status != nil {
			status.Close()
		}
		return nil, err
	}
	p := &proc{cmd: cmd, pid: cmd.Process.Pid, supervised: status != nil, started: time.Now(),
		done: make(chan struct{}), mainDone: make(chan struct{})}
	var lines chan struct{}
	if status != nil {
		lines = make(chan struct{})
		go func() {
			defer close(lines)
			defer status.Close()
			sc := bufio.NewScanner(status)
			for sc.Scan() {
				if e, left, ok := parseStatusLine(sc.Text()); ok {
					p.finishMain(e, left)
				}
			}
		}()
	}
	go func() {
		_ = cmd.Wait() // the exit status is in ProcessState
		if lines != nil {
			<-lines // the supervisor has written all it will
		}
		p.finishMain(stateInfo(cmd.ProcessState), false)
		close(p.done)
	}()
	return p, nil
}

// finishMain records how the shell ended, once.
func (p *proc) finishMain(e exitInfo, left bool) {
	p.mainOnce.Do(func() {
		p.main, p.left, p.ended = e, left, time.Now()
		close(p.mainDone)
	})
}

// stateInfo reads an exitInfo from a reaped process.
func stateInfo(ps *os.ProcessState) exitInfo {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return exitInfo{sig: ws.Signal()}
	}
	return exitInfo{code: ps.ExitCode()}
}

// exited reports whether the leader has been reaped.
func (p *proc) exited() bool { return closed(p.done) }

// mainExited reports whether the shell itself has exited.
func (p *proc) mainExited() bool { return closed(p.mainDone) }

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// running reports whether any process of the command is still alive
// (zombies do not count): a supervisor lives exactly as long as its tree.
func (p *proc) running() bool {
	if p.supervised {
		return !p.exited()
	}
	return !p.exited() || groupAlive(p.pid)
}

// leftovers reports whether the shell has exited but processes it
// started still run.
func (p *proc) leftovers() bool {
	if !p.mainExited() {
		return false
	}
	if p.supervised {
		return p.left && !p.exited()
	}
	return groupAlive(p.pid)
}

// exiting reports whether a supervised command's shell has exited
// leaving nothing behind: its supervisor then exits on its own, maybe
// slowly (namespaces torn down), and nobody need wait for it.
func (p *proc) exiting() bool {
	return p.supervised && p.mainExited() && !p.left
}

func (p *proc) wasKilled() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.killed
}

// stop polls for the group's death every poll, backing off to maxPoll
// (a look can scan /proc).
const (
	poll    = 10 * time.Millisecond
	maxPoll = 100 * time.Millisecond
)

// supervisorSlack is how long past its grace a supervisor gets to end
// its tree before godwit kills the supervisor itself.
const supervisorSlack = 5 * time.Second

// stop kills the whole command: SIGTERM to the group (or the supervisor,
// which ends the tree), SIGKILL after grace. It returns when the command
// is gone, or after a bounded wait that is logged. Safe to call
// concurrently and repeatedly.
func (p *proc) stop(grace time.Duration, log *slog.Logger) {
	if p.exiting() || !p.running() {
		return
	}
	p.mu.Lock()
	if !p.mainExited() {
		p.killed = true
	}
	p.mu.Unlock()
	if p.supervised {
		_ = termLeader(p.pid)
		if p.waitGone(grace + supervisorSlack) {
			return
		}
		log.Warn("shell: the supervisor did not end its command's processes; killing it", "pid", p.pid)
	} else {
		_ = termGroup(p.pid)
		if p.waitGone(grace) {
			return
		}
		log.Debug("shell: process group ignored SIGTERM; killing", "pid", p.pid, "grace", grace)
	}
	_ = killGroup(p.pid)
	if !p.waitGone(5 * time.Second) {
		log.Warn("shell: process group still alive after SIGKILL", "pid", p.pid)
	}
}

// waitGone waits until the command has died or d has passed: for a
// supervisor, until it is reaped; otherwise by polling the group.
func (p *proc) waitGone(d time.Duration) bool {
	if p.supervised {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-p.done:
			return true
		case <-t.C:
			return false
		}
	}
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

// describe renders how the shell ended: "exit 0", "exit 2", "killed",
// or "signal: segmentation fault" for a signal we did not send.
func (p *proc) describe() string {
	if !p.mainExited() {
		return "running"
	}
	if p.wasKilled() {
		return "killed"
	}
	if p.main.sig != 0 {
		return "signal: " + p.main.sig.String()
	}
	return "exit " + strconv.Itoa(p.main.code)
}

// exitCode is the shell's exit status, nil while it runs or when a
// signal ended it.
func (p *proc) exitCode() *int {
	if !p.mainExited() || p.main.sig != 0 {
		return nil
	}
	c := p.main.code
	return &c
}
