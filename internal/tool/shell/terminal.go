package shell

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/godwit/godwit/tool"
)

// Terminal runs foreground commands somewhere other than a local process
// group: an editor that offers terminals (ACP terminal/*) shows the
// output live and owns the process. Background jobs always run locally,
// since they must outlive the call and answer status, logs and stop.
type Terminal interface {
	// Run starts cmd (Path, Args, Dir and Env are set, and Options.Wrap
	// has been applied, so a sandbox still holds; where commands are
	// supervised, cmd starts a supervisor that ends the command's whole
	// tree when godwit exits, when the terminal is killed or released,
	// and when the command exits), waits until it exits
	// or ctx ends, and returns its output, stdout and stderr merged,
	// keeping at most limit bytes (the end). When ctx ends first, Run
	// must kill the command and still return the output it has. An error
	// means the terminal itself failed, not the command.
	Run(ctx context.Context, cmd *exec.Cmd, limit int) (TerminalResult, error)
}

// TerminalResult is what a Terminal reports of one command.
type TerminalResult struct {
	Output string
	// Truncated is set when the start of the output was dropped.
	Truncated bool
	// ExitCode is nil when the command did not exit on its own (a
	// signal, a kill).
	ExitCode *int
	// Signal names the signal that ended the command, if any.
	Signal string
}

// runInTerminal is runForeground through Options.Terminal: the same
// timeout, cancellation and trailer, the output as the terminal kept it.
func (s *Shell) runInTerminal(ctx context.Context, line string, timeout time.Duration) (tool.Result, error) {
	cmd := s.command(line)
	if wrap := s.wrapFor(ctx); wrap != nil {
		if err := wrap(cmd); err != nil {
			return tool.Result{}, tool.Errorf(tool.CodeDenied, "Do not retry; tell the user the sandbox refused the command.",
				"the command could not be sandboxed: %v", err)
		}
	}
	if s.exe != "" {
		// The editor starts the command; the supervisor it starts holds
		// the command's tree and ends it with godwit.
		terminalCmd(cmd, s.exe, Self(), s.opts.KillGrace)
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return tool.Result{}, ErrClosed
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := s.opts.Now()
	res, err := s.opts.Terminal.Run(tctx, cmd, s.opts.OutputLimit)
	took := s.opts.Now().Sub(start)
	text := res.Output
	if res.Truncated {
		text = "[… earlier output cut]\n" + text
	}
	switch {
	case ctx.Err() != nil:
		return tool.Result{}, &tool.ToolError{Code: tool.CodeCancelled,
			Message: "cancelled; the command was killed", Err: ctx.Err()}
	case errors.Is(tctx.Err(), context.DeadlineExceeded):
		msg := fmt.Sprintf("timed out after %ss; the command was killed.", seconds(timeout))
		if text != "" {
			msg += " Output so far:\n" + strings.TrimRight(text, "\n")
		}
		return tool.Result{}, tool.Errorf(tool.CodeTimeout,
			fmt.Sprintf("For servers, watchers and long jobs use background:true; otherwise raise timeout_s (max %s).",
				seconds(s.opts.MaxTimeout)), "%s", msg)
	case err != nil:
		return tool.Result{}, tool.Errorf(tool.CodeFailed, "Tell the user: the editor's terminal failed.",
			"the command could not run in the editor's terminal: %v", err)
	}
	var b strings.Builder
	b.WriteString(text)
	if text != "" && !strings.HasSuffix(text, "\n") {
		b.WriteByte('\n')
	}
	status := "killed"
	switch {
	case res.ExitCode != nil:
		status = "exit " + strconv.Itoa(*res.ExitCode)
	case res.Signal != "":
		status = "killed by " + res.Signal
	}
	b.WriteString("[" + status + " · " + elapsed(took))
	if text == "" {
		b.WriteString(" · no output")
	}
	b.WriteString("]")
	return tool.Result{Content: b.String(), ExitCode: res.ExitCode}, nil
}
