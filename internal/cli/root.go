package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// Exit codes.
const (
	ExitOK     = 0
	ExitFailed = 1
	ExitUsage  = 2
)

// UsageError marks bad command-line input (exit 2).
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usageErrorf(format string, a ...any) error {
	return &UsageError{Err: fmt.Errorf(format, a...)}
}

// errSilent is a failure already reported to the user (exit 1, nothing
// more printed).
var errSilent = errors.New("silent")

// NewRootCmd builds the command tree; godwit alone starts the chat on a
// terminal (rootflags.go).
func NewRootCmd(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:           "godwit",
		Short:         "A coding agent for long working sessions",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	root.AddCommand(
		NewCmdRun(f, nil),
		NewCmdChat(f, nil),
		NewCmdDemo(f),
		NewCmdInspect(f, nil),
		NewCmdSessions(f),
		peerInit(),
		NewCmdConfig(f),
		NewCmdModels(f),
		NewCmdACP(f, nil),
		NewCmdUndo(f),
		NewCmdRules(f),
		NewCmdEval(f),
		NewCmdSend(f),
		NewCmdMail(f),
		NewCmdServe(f),
		NewCmdVersion(f),
	)
	setupRoot(root, f)
	return root
}

// peerInit answers `godwit init`, which a user of Claude Code or Codex
// types for what their /init does: write the project's rules file.
// godwit's chat does that with /init; its own files are `config init`'s.
func peerInit() *cobra.Command {
	return &cobra.Command{
		Use:    "init",
		Hidden: true,
		RunE: func(*cobra.Command, []string) error {
			return usageErrorf("to write this project's AGENTS.md, type /init in the chat (godwit); `godwit config init` writes godwit's own config.yaml and .env")
		},
	}
}

// Main runs the command line and returns the process exit code.
func Main(ctx context.Context, f *Factory, args []string) int {
	root := NewRootCmd(f)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	if !errors.Is(err, errSilent) {
		fmt.Fprintln(f.IO.ErrOut, "godwit:", userMessage(err))
	}
	return exitCode(err)
}

// isCobraUsage recognises cobra's own argument errors, which it does not
// type.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires ", "invalid argument"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
