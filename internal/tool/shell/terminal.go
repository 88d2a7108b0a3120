package shell

import (
	"context"
	"errors"
	"os/exec"
	"strconv"
	"time"

	"github.com/godwit/godwit/tool"
)

// Terminal runs foreground commands in an editor's terminal (ACP
// terminal/*), which shows the output live and owns the process.
type Terminal interface {
	// Run starts cmd (already wrapped, and under a supervisor where
	// commands are supervised), waits until it exits or ctx ends, and
	// returns its output, stdout and stderr merged, keeping at most limit
	// bytes (the end). When ctx ends first, Run must kill the command and
	// still return the output it has. An error means the terminal itself
	// failed, not the command.
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
	if err := s.wrap(ctx, cmd); err != nil {
		return tool.Result{}, err
	}
	if s.exe != "" {
		// The editor starts the command, and with it the supervisor.
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
	start := time.Now()
	res, err := s.opts.Terminal.Run(tctx, cmd, s.opts.OutputLimit)
	took := time.Since(start)
	text := res.Output
	if res.Truncated {
		text = "[… earlier output cut]\n" + text
	}
	switch {
	case ctx.Err() != nil:
		return tool.Result{}, &tool.ToolError{Code: tool.CodeCancelled,
			Message: "cancelled; the command was killed", Err: ctx.Err()}
	case errors.Is(tctx.Err(), context.DeadlineExceeded):
		return tool.Result{}, s.timedOut(timeout, "the command was", text)
	case err != nil:
		return tool.Result{}, tool.Errorf(tool.CodeFailed, "Tell the user: the editor's terminal failed.",
			"the command could not run in the editor's terminal: %v", err)
	}
	status := "killed"
	switch {
	case res.ExitCode != nil:
		status = "exit " + strconv.Itoa(*res.ExitCode)
	case res.Signal != "":
		status = "killed by " + res.Signal
	}
	return tool.Result{Content: trailed(text, status, took, ""), ExitCode: res.ExitCode}, nil
}
