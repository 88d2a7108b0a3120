package shell

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/godwit/godwit/tool"
)

// drainWait bounds how long output is read after the group died: a
// process that escaped the group may still hold the pipe open.
const drainWait = time.Second

// runForeground runs line, waits for it (at most timeout), and returns
// its capped output with a trailer line.
func (s *Shell) runForeground(ctx context.Context, line string, timeout time.Duration) (tool.Result, error) {
	if s.opts.Terminal != nil {
		return s.runInTerminal(ctx, line, timeout)
	}
	// Our own pipe, not os/exec's: the child writes straight to it, and we
	// decide how long to read after the leader exits.
	r, w, err := os.Pipe()
	if err != nil {
		return tool.Result{}, fmt.Errorf("shell: output pipe: %w", err)
	}
	cmd := s.command(line)
	cmd.Stdout, cmd.Stderr = w, w
	s.mu.Lock()
	p, err := s.startLocked(ctx, cmd, line, "")
	s.mu.Unlock()
	w.Close() // the child holds its own copy
	if err != nil {
		r.Close()
		return tool.Result{}, err
	}
	defer func() {
		s.mu.Lock()
		delete(s.fgProcs, p)
		s.mu.Unlock()
	}()

	out := newCapture(s.opts.OutputLimit)
	live := &liveTail{}
	copied := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.MultiWriter(out, live), r)
		close(copied)
	}()
	go reportLive(ctx, live, copied)

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var timedOut, cancelled, leftovers bool
	select {
	case <-p.mainDone:
	case <-timer.C:
		timedOut = true
	case <-ctx.Done():
		cancelled = true
	}
	if !timedOut && !cancelled && p.leftovers() {
		// The command exited but left processes behind (`server &`): no
		// orphans outlive the call; background:true is the way to keep one.
		leftovers = true
	}
	p.stop(s.opts.KillGrace, s.log)
	select {
	case <-copied:
	case <-time.After(drainWait):
		s.log.Warn("shell: output pipe still open after the process group died", "pid", p.pid)
	}
	r.Close()
	<-copied
	if !p.exiting() {
		select {
		case <-p.done:
		case <-time.After(drainWait):
			// stop gave up on a leader it could not kill; say so rather than hang.
			return tool.Result{}, fmt.Errorf("shell: pid %d did not die after SIGKILL", p.pid)
		}
	}

	text := out.String()
	switch {
	case cancelled:
		why := "cancelled"
		if c := context.Cause(ctx); c != nil && c != ctx.Err() {
			why += " (" + c.Error() + ")" // godwit itself is stopping: "hangup signal received"
		}
		return tool.Result{}, &tool.ToolError{Code: tool.CodeCancelled,
			Message: why + "; the command and its processes were killed", Err: ctx.Err()}
	case timedOut:
		return tool.Result{}, s.timedOut(timeout, "the command and its processes were", text)
	}
	extra := ""
	if leftovers {
		extra = " · killed the processes it left running; use background:true for servers"
	}
	return tool.Result{Content: trailed(text, p.describe(), p.ended.Sub(p.started), extra), ExitCode: p.exitCode()}, nil
}

// timedOut is the error of a foreground command killed at its timeout.
func (s *Shell) timedOut(timeout time.Duration, killed, text string) error {
	msg := fmt.Sprintf("timed out after %ss; %s killed.", seconds(timeout), killed)
	if text != "" {
		msg += " Output so far:\n" + strings.TrimRight(text, "\n")
	}
	return tool.Errorf(tool.CodeTimeout,
		fmt.Sprintf("For servers, watchers and long jobs use background:true; otherwise raise timeout_s (max %s).",
			seconds(DefaultMaxTimeout)), "%s", msg)
}

// trailed is a foreground command's output with its trailer line:
// "[exit 0 · 0.42s]", "· no output" when there was none, then extra.
func trailed(text, status string, took time.Duration, extra string) string {
	var b strings.Builder
	b.WriteString(text)
	if text != "" && !strings.HasSuffix(text, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString("[" + status + " · " + elapsed(took))
	if text == "" {
		b.WriteString(" · no output")
	}
	b.WriteString(extra + "]")
	return b.String()
}

// seconds renders d as a plain number of seconds: "120", "0.5".
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}

// elapsed renders a duration briefly: "0.42s", "12.3s", "2m05s", "1h02m".
func elapsed(d time.Duration) string {
	switch {
	case d < 10*time.Second:
		return fmt.Sprintf("%.2fs", d.Seconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
}
