//go:build unix

package shell

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// MaybeSupervise, called first thing in main (or TestMain), runs the
// command and exits when the process was started as a supervisor;
// otherwise it records that this executable can supervise and returns.
func MaybeSupervise() {
	if len(os.Args) < 2 || os.Args[1] != supervisorArg {
		supervisorReady.Store(true)
		return
	}
	os.Exit(supervise(os.Args[2:]))
}

// supervisorPayload is the supervisor's settings.
type supervisorPayload struct {
	GraceMS int64 `json:"grace_ms"`
	// Watch is godwit's identity when it is not the parent (an editor's
	// terminal): the tree ends when that process does.
	Watch *Identity `json:"watch,omitempty"`
	// NS are the namespaces the sandbox set on the command, which an
	// editor cannot give: the terminal's supervisor starts the second
	// one in them.
	NS *nsSpec `json:"ns,omitempty"`
	// Terminal marks the supervisor an editor's terminal runs.
	Terminal bool `json:"terminal,omitempty"`
	// HoldOutput keeps the output open until the tree is gone: an
	// editor's terminal reads its end as the command's end.
	HoldOutput bool `json:"hold_output,omitempty"`
	// Keep names the variables godwit gave the command: the terminal's
	// supervisor drops the rest of the editor's environment (which may
	// hold provider keys).
	Keep []string `json:"keep,omitempty"`
}

// keepOnly is env without the variables whose names are not in names,
// each name once, its last value winning (the editor appends godwit's
// variables to its own).
func keepOnly(env, names []string) []string {
	set := make(map[string]bool, len(names))
	for _, n := range names {
		set[n] = true
	}
	last := map[string]int{}
	for i, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); set[name] {
			last[name] = i
		}
	}
	out := env[:0:0]
	for i, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); set[name] && last[name] == i {
			out = append(out, kv)
		}
	}
	return out
}

// superviseCmd rewrites cmd so that it starts under a supervisor:
// `exe __godwit_supervise PATH ARGV...`, with the lifeline and the write
// end of a fresh status pipe as descriptors 3 and 4. It returns the read
// end of the status pipe and the write end the caller closes once cmd
// has started.
func superviseCmd(cmd *exec.Cmd, exe string, lifeline *os.File, grace time.Duration) (status, statusW *os.File, err error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("shell: supervisor status pipe: %w", err)
	}
	b, _ := json.Marshal(supervisorPayload{GraceMS: grace.Milliseconds()})
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(env[:len(env):len(env)], supervisorEnv+"="+string(b))
	cmd.ExtraFiles = []*os.File{lifeline, w}
	cmd.Args = append([]string{exe, supervisorArg, cmd.Path}, cmd.Args...)
	cmd.Path = exe
	return r, w, nil
}

// terminalCmd rewrites cmd, already sandboxed, so that the editor's
// terminal runs it under a supervisor that ends its tree when godwit
// (self) exits, when the terminal is killed or released, or when the
// command itself exits: `exe __godwit_supervise PATH ARGV...`.
func terminalCmd(cmd *exec.Cmd, exe string, self Identity, grace time.Duration) {
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	keep := make([]string, 0, len(env))
	for _, kv := range env {
		if name, _, ok := strings.Cut(kv, "="); ok && name != "" {
			keep = append(keep, name)
		}
	}
	b, _ := json.Marshal(supervisorPayload{GraceMS: grace.Milliseconds(), Watch: &self, Terminal: true, Keep: keep, NS: nsOf(cmd.SysProcAttr)})
	cmd.Env = append(env[:len(env):len(env)], supervisorEnv+"="+string(b))
	cmd.Args = append([]string{exe, supervisorArg, cmd.Path}, cmd.Args...)
	cmd.Path = exe
}

// supervise runs args[0] with argv args[1:] and holds its tree; it
// returns the exit status for os.Exit.
func supervise(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "godwit supervisor: no command to run")
		return 126
	}
	var p supervisorPayload
	_ = json.Unmarshal([]byte(os.Getenv(supervisorEnv)), &p)
	os.Unsetenv(supervisorEnv)
	grace := time.Duration(p.GraceMS) * time.Millisecond
	if grace <= 0 {
		grace = DefaultKillGrace
	}
	if p.Terminal {
		return superviseTerminal(args, p)
	}
	// Neither descriptor may reach the command: a copy of the status pipe
	// there would keep godwit waiting for an end of file.
	syscall.CloseOnExec(lifelineFD)
	syscall.CloseOnExec(statusFD)
	status := os.NewFile(statusFD, "status")
	becomeSubreaper()

	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	// Caught rather than ignored: an ignored SIGPIPE would be inherited by
	// the command; caught, a write to a closed pipe only fails.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)

	pid, err := syscall.ForkExec(args[0], args[1:], &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{0, 1, 2},
		Sys:   &syscall.SysProcAttr{Setpgid: true},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "godwit supervisor: cannot start %s: %v\n", args[0], err)
		fmt.Fprintln(status, exitInfo{code: 127})
		return 127
	}
	// The command's output ends with its tree, not with this process,
	// whose exit may wait on the kernel (namespaces torn down).
	if null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0); err == nil && !p.HoldOutput {
		_ = unix.Dup2(int(null.Fd()), 1)
		_ = unix.Dup2(int(null.Fd()), 2)
		null.Close()
	}

	mainExit := make(chan syscall.WaitStatus, 1)
	reaped := make(chan struct{}) // closed when no child is left
	var childless atomic.Bool
	go reap(pid, mainExit, reaped, &childless)
	// The tree is gone when no child is left, and (where orphans go to
	// init) no process of the command's group either.
	gone := func() bool { return childless.Load() && !treeLeft(pid) }

	lifeEOF := make(chan struct{})
	if watchLifeline() {
		go func() {
			_, _ = io.Copy(io.Discard, os.NewFile(lifelineFD, "lifeline"))
			close(lifeEOF)
		}()
	}
	var godwitGone <-chan struct{}
	if p.Watch != nil {
		godwitGone = watchExit(*p.Watch)
	}

	var main *exitInfo
	var tick <-chan time.Time // set once no child is left but the group may still run
	for {
		select {
		case ws := <-mainExit:
			e := waitInfo(ws)
			main = &e
			line := e.String()
			if hasChildren(pid) {
				line += " left"
			}
			fmt.Fprintln(status, line)
			continue
		case <-reaped:
			reaped = nil
		case <-tick:
		case <-sigs:
			endTree(pid, grace, gone)
		case <-lifeEOF:
			// godwit is gone: nobody will read the output or stop the
			// command; end it now.
			endTree(pid, grace, gone)
		case <-godwitGone:
			godwitGone = nil
			endTree(pid, grace, gone)
		}
		if gone() {
			// The command's exit may still sit in the channel when the
			// last child was reaped just after it.
			select {
			case ws := <-mainExit:
				e := waitInfo(ws)
				main = &e
				fmt.Fprintln(status, e.String())
			default:
			}
			return exitCode(main)
		}
		if reaped == nil {
			tick = time.After(maxPoll)
		}
	}
}

// watchLifeline reports whether descriptor 3 is a pipe (the lifeline):
// a supervisor started by hand has none, and must not end its command
// for that.
func watchLifeline() bool {
	var st syscall.Stat_t
	return syscall.Fstat(lifelineFD, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFIFO
}

// reap waits for every child: the command (reported on mainExit) and
// the orphans re-parented here. When no child is left it sets childless
// and closes reaped.
func reap(mainPid int, mainExit chan<- syscall.WaitStatus, reaped chan<- struct{}, childless *atomic.Bool) {
	defer close(reaped)
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil: // ECHILD: nothing left
			childless.Store(true)
			return
		case pid == mainPid && (ws.Exited() || ws.Signaled()):
			mainExit <- ws
		}
	}
}

// endTree ends the command's tree: SIGTERM (and SIGCONT, so a stopped
// process sees it) to every descendant, then, after grace, SIGKILL to
// every descendant until none is left. It returns when the tree is gone,
// or after a bounded wait.
func endTree(mainPid int, grace time.Duration, gone func() bool) {
	signalTree(mainPid, syscall.SIGTERM)
	signalTree(mainPid, syscall.SIGCONT)
	if waitUntil(gone, grace) {
		return
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		signalTree(mainPid, syscall.SIGKILL)
		if waitUntil(gone, poll) {
			return
		}
	}
}

// waitUntil polls cond until it holds or d has passed.
func waitUntil(cond func() bool, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for !cond() {
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		time.Sleep(min(poll, left))
	}
	return true
}

// waitInfo turns a wait status into an exitInfo.
func waitInfo(ws syscall.WaitStatus) exitInfo {
	if ws.Signaled() {
		return exitInfo{sig: ws.Signal()}
	}
	return exitInfo{code: ws.ExitStatus()}
}

// exitCode is the supervisor's own exit status: the command's, as a
// shell reports it (128+n for a signal); godwit reads the exact one on
// the status pipe.
func exitCode(e *exitInfo) int {
	switch {
	case e == nil:
		return 128 + int(syscall.SIGKILL)
	case e.sig != 0:
		return 128 + int(e.sig)
	default:
		return e.code
	}
}

// superviseTerminal is the supervisor an editor's terminal starts. The
// editor may SIGKILL it, so it runs a second supervisor under itself and
// holds that one's lifeline, which closes however this process ends. It
// tells the second to end the tree when godwit exits (Watch), on SIGTERM,
// SIGINT or SIGHUP, and once the command has exited. It exits with the
// command's status.
func superviseTerminal(args []string, p supervisorPayload) int {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(os.Stderr, "godwit supervisor: cannot find its own executable: %v\n", err)
		return 126
	}
	lifeR, lifeW, err := os.Pipe()
	if err != nil {
		fmt.Fprintf(os.Stderr, "godwit supervisor: lifeline: %v\n", err)
		return 126
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		fmt.Fprintf(os.Stderr, "godwit supervisor: status pipe: %v\n", err)
		return 126
	}
	inner := p
	// This supervisor watches godwit: the second may sit in a PID
	// namespace where godwit's pid means nothing.
	inner.Terminal, inner.Keep, inner.Watch, inner.NS, inner.HoldOutput = false, nil, nil, nil, true
	b, _ := json.Marshal(inner)
	env := os.Environ()
	if p.Keep != nil {
		env = keepOnly(env, p.Keep)
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	// Its own group: an editor that kills this process's group must not
	// take the second supervisor with it.
	sys := &syscall.SysProcAttr{Setpgid: true}
	p.NS.apply(sys)
	pid, err := syscall.ForkExec(exe, append([]string{exe, supervisorArg}, args...), &syscall.ProcAttr{
		Env:   append(env, supervisorEnv+"="+string(b)),
		Files: []uintptr{0, 1, 2, lifeR.Fd(), statusW.Fd()},
		Sys:   sys,
	})
	lifeR.Close()
	statusW.Close()
	if err != nil {
		fmt.Fprintf(os.Stderr, "godwit supervisor: cannot start %s: %v\n", exe, err)
		return 126
	}
	defer lifeW.Close() // held until here; the kernel closes it however this process ends

	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(statusR)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	var godwitGone <-chan struct{}
	if p.Watch != nil {
		godwitGone = watchExit(*p.Watch)
	}
	exited := make(chan syscall.WaitStatus, 1)
	go func() {
		var ws syscall.WaitStatus
		for {
			if _, err := syscall.Wait4(pid, &ws, 0, nil); err != syscall.EINTR {
				break
			}
		}
		exited <- ws
	}()
	var main *exitInfo
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				lines = nil
				continue
			}
			if e, _, ok := parseStatusLine(line); ok && main == nil {
				main = &e
				// The command has exited: what it left running goes too.
				_ = syscall.Kill(pid, syscall.SIGTERM)
			}
		case <-sigs:
			_ = syscall.Kill(pid, syscall.SIGTERM)
		case <-godwitGone:
			godwitGone = nil
			_ = syscall.Kill(pid, syscall.SIGTERM)
		case ws := <-exited:
			if main == nil && lines != nil {
				for line := range lines { // what it wrote before it exited
					if e, _, ok := parseStatusLine(line); ok && main == nil {
						main = &e
					}
				}
			}
			if main == nil {
				e := waitInfo(ws)
				main = &e
			}
			return exitCode(main)
		}
	}
}

// watchPoll is how often pollExit looks.
const watchPoll = 250 * time.Millisecond

// pollExit is watchExit by looking every watchPoll.
func pollExit(id Identity) <-chan struct{} {
	gone := make(chan struct{})
	go func() {
		defer close(gone)
		for id.Alive() {
			time.Sleep(watchPoll)
		}
	}()
	return gone
}
