package shell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/godwit/godwit/tool"
)

// Lines of log shown by default, and the most one call may ask for.
const (
	defaultStatusLines = 10
	defaultLogLines    = 50
	maxLogLines        = 500
)

// job is a background command the model started. Its fields are set once
// at start; the process state lives in proc.
type job struct {
	id      string
	command string
	logRel  string // as shown to the model: workspace-relative
	proc    *proc
	log     *jobLog
	out     *os.File      // the read end of the job's output pipe
	copied  chan struct{} // closed once the output is all in the log
}

// settle waits, when the job has ended with nothing left running, until
// its output is all in the log, so that status and logs show it whole.
func (j *job) settle() {
	if j.proc.mainExited() && !j.proc.leftovers() && j.proc.waitGone(drainWait) {
		j.drain()
	}
}

// drain waits (at most drainWait) until the job's output is all in its
// log; past that, a process that escaped the tree holds the pipe, and
// the copy ends here.
func (j *job) drain() {
	select {
	case <-j.copied:
	case <-time.After(drainWait):
		j.out.Close()
		<-j.copied
	}
}

// startJob starts line in the background with its output going to a log
// file, and returns its id at once.
func (s *Shell) startJob(ctx context.Context, line string) (tool.Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return tool.Result{}, ErrClosed
	}
	// Every step to the jobs folder resolves inside the workspace, so a
	// .godwit/run shipped as a link to ~/.ssh carries no write out.
	root, err := os.OpenRoot(s.opts.Workdir)
	if err != nil {
		return tool.Result{}, fmt.Errorf("shell: jobs dir: %w", err)
	}
	defer root.Close()
	rel := filepath.Join(".godwit", "run")
	if !s.madeDirs {
		if err := root.MkdirAll(rel, 0o755); err != nil {
			return tool.Result{}, fmt.Errorf("shell: jobs dir: %w", err)
		}
		// Keep job logs out of `git status`.
		ignore := filepath.Join(rel, ".gitignore")
		if _, err := root.Stat(ignore); errors.Is(err, fs.ErrNotExist) {
			_ = root.WriteFile(ignore, []byte("*\n"), 0o644)
		}
		s.madeDirs = true
	}
	id, f, err := s.openLogLocked(root, rel)
	if err != nil {
		return tool.Result{}, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		f.Close()
		return tool.Result{}, fmt.Errorf("shell: job output pipe: %w", err)
	}
	cmd := s.command(line)
	cmd.Stdout, cmd.Stderr = w, w
	p, err := s.startLocked(ctx, cmd, line, id)
	w.Close() // the child holds its own copy
	if err != nil {
		r.Close()
		f.Close()
		return tool.Result{}, err
	}
	j := &job{id: id, command: line, logRel: filepath.ToSlash(filepath.Join(rel, id+".log")), proc: p,
		log: &jobLog{f: f, limit: s.opts.LogLimit}, out: r, copied: make(chan struct{})}
	go func() {
		defer close(j.copied)
		_, _ = io.CopyBuffer(j.log, r, make([]byte, 64<<10))
	}()
	s.jobs[id] = j
	s.order = append(s.order, id)
	s.log.Debug("shell: job started", "id", id, "pid", p.pid, "command", line)
	return tool.Result{Content: fmt.Sprintf("started job %s (pid %d); log: %s", id, p.pid, j.logRel)}, nil
}

// jobList returns the jobs in start order.
func (s *Shell) jobList() []*job {
	s.mu.Lock()
	defer s.mu.Unlock()
	jobs := make([]*job, 0, len(s.order))
	for _, id := range s.order {
		jobs = append(jobs, s.jobs[id])
	}
	return jobs
}

// JobsRunning reports whether a background job (or a process one
// started) still runs.
func (s *Shell) JobsRunning() bool {
	jobs := s.jobList()
	for _, j := range jobs {
		if j.proc.running() {
			return true
		}
	}
	return false
}

// openLogLocked creates the next job id's log that does not exist yet
// (another session in the workspace may own j1.log).
func (s *Shell) openLogLocked(root *os.Root, rel string) (string, *os.File, error) {
	for range 10000 {
		s.nextJob++
		id := "j" + strconv.Itoa(s.nextJob)
		f, err := root.OpenFile(filepath.Join(rel, id+".log"), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", nil, fmt.Errorf("shell: job log: %w", err)
		}
		return id, f, nil
	}
	return "", nil, fmt.Errorf("shell: no free job log name in %s; clear old logs there", s.jobsDir)
}

// lookup returns the job, or a BAD_ARGS error listing the known ids.
func (s *Shell) lookup(id string) (*job, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if j, ok := s.jobs[id]; ok {
		return j, nil
	}
	remedy := "No job runs here: jobs end with the godwit process that started them (each `run` is one). Start one with background:true."
	if len(s.order) > 0 {
		remedy = "Known jobs: " + strings.Join(s.order, ", ") + "."
	}
	return nil, tool.Errorf(tool.CodeBadArgs, remedy, "no job %q", id)
}

// state renders a job's status: "running", "exit 1", "killed", with a
// note when its leader exited but processes it started still run.
func (s *Shell) state(j *job) string {
	st := j.proc.describe()
	if st != "running" && j.proc.leftovers() {
		st += " (its child processes still run; stop kills them)"
	}
	return st
}

func (s *Shell) age(j *job) string {
	end := time.Now()
	if j.proc.mainExited() {
		end = j.proc.ended
	}
	return elapsed(end.Sub(j.proc.started))
}

func (s *Shell) listJobs() tool.Result {
	jobs := s.jobList()
	if len(jobs) == 0 {
		return tool.Result{Content: "no background jobs"}
	}
	var b strings.Builder
	for _, j := range jobs {
		fmt.Fprintf(&b, "%s  %s  %s  %s\n", j.id, s.state(j), s.age(j), oneLine(j.command, 60))
	}
	return tool.Result{Content: strings.TrimSuffix(b.String(), "\n")}
}

func (s *Shell) jobStatus(id string, lines *int) (tool.Result, error) {
	j, err := s.lookup(id)
	if err != nil {
		return tool.Result{}, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s · pid %d · %s · log %s\n$ %s\n", j.id, s.state(j), j.proc.pid, s.age(j), j.logRel, oneLine(j.command, 200))
	tail, err := s.tail(j, lines, defaultStatusLines)
	if err != nil {
		return tool.Result{}, err
	}
	b.WriteString(tail)
	return tool.Result{Content: strings.TrimSuffix(b.String(), "\n"), ExitCode: j.proc.exitCode()}, nil
}

func (s *Shell) jobLogs(id string, lines *int) (tool.Result, error) {
	j, err := s.lookup(id)
	if err != nil {
		return tool.Result{}, err
	}
	tail, err := s.tail(j, lines, defaultLogLines)
	if err != nil {
		return tool.Result{}, err
	}
	return tool.Result{Content: strings.TrimSuffix(tail, "\n")}, nil
}

// tail renders the last lines of a job's log, with a note when earlier
// output exists or the request was capped.
func (s *Shell) tail(j *job, lines *int, def int) (string, error) {
	n := def
	if lines != nil {
		n = *lines
	}
	var notes []string
	if n > maxLogLines {
		n = maxLogLines
		notes = append(notes, fmt.Sprintf("lines is capped at %d", maxLogLines))
	}
	j.settle()
	text, got, more, err := j.log.lastLines(n, s.opts.OutputLimit)
	if err != nil {
		return "", fmt.Errorf("shell: reading %s: %w", j.logRel, err)
	}
	if got == 0 {
		return "(no output yet)\n", nil
	}
	if more {
		notes = append(notes, fmt.Sprintf("last %d lines; the full log is %s", got, j.logRel))
	}
	if len(notes) > 0 {
		text = "[" + strings.Join(notes, "; ") + "]\n" + text
	}
	return text, nil
}

func (s *Shell) stopJob(id string) (tool.Result, error) {
	j, err := s.lookup(id)
	if err != nil {
		return tool.Result{}, err
	}
	wasRunning := !j.proc.mainExited()
	hadChildren := j.proc.leftovers()
	j.proc.stop(s.opts.KillGrace, s.log)
	j.drain()
	var msg string
	switch {
	case wasRunning:
		msg = fmt.Sprintf("%s stopped after %s: %s", j.id, s.age(j), j.proc.describe())
	case hadChildren:
		msg = fmt.Sprintf("%s had already ended (%s); killed the processes it left running", j.id, j.proc.describe())
	default:
		msg = fmt.Sprintf("%s had already ended (%s); nothing to stop", j.id, j.proc.describe())
	}
	return tool.Result{Content: msg}, nil
}
