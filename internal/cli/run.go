package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/godwit/godwit/agent"
	"github.com/godwit/godwit/internal/wiring"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/mail"
	"github.com/godwit/godwit/policy"
)

// RunOptions are the inputs of `godwit run`.
type RunOptions struct {
	IO         *IOStreams
	Getenv     func(string) string
	Logger     *slog.Logger
	Home       string
	Workdir    string
	Prompt     string
	Model      string
	SessionID  string
	AllowWrite bool
	Yes        bool
	JSON       bool
	MaxSteps   int
	Reset      bool
	// ContextWindow overrides the model's window in tokens.
	ContextWindow int
	Verify        string
	// VerifyRounds is how often a failing verify sends the model back.
	VerifyRounds  int
	VerifyTimeout time.Duration
	// Provider replaces the configured one (tests).
	Provider llm.Provider
}

// NewCmdRun builds `godwit run`. runF replaces the real run in tests.
func NewCmdRun(f *Factory, runF func(context.Context, *RunOptions) error) *cobra.Command {
	opts := &RunOptions{IO: f.IO, Getenv: f.Getenv, Logger: f.Logger, Workdir: f.Workdir}
	cmd := &cobra.Command{
		Use:   "run [--prompt TEXT|-] [flags]",
		Short: "Run one turn and exit",
		Long: `Run one turn: send the prompt, let the model work with the tools until it
answers, print the answer and exit. Read-only unless --allow-write or --yes.

Exit status: 0 done, 1 the run failed, 2 bad usage.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Prompt == "" && len(args) > 0 {
				opts.Prompt = strings.Join(args, " ")
			}
			if opts.Prompt == "-" {
				b, err := io.ReadAll(opts.IO.In)
				if err != nil {
					return fmt.Errorf("reading the prompt from stdin: %w", err)
				}
				opts.Prompt = string(b)
			}
			if strings.TrimSpace(opts.Prompt) == "" {
				return usageErrorf("no prompt: pass --prompt TEXT, or --prompt - to read it from stdin")
			}
			home, err := f.Home()
			if err != nil {
				return fmt.Errorf("finding GODWIT_HOME: %w", err)
			}
			opts.Home = home
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&opts.Prompt, "prompt", "p", "", "the user message; - reads it from stdin")
	fl.StringVarP(&opts.Model, "model", "m", "", "provider/model (default: $GODWIT_MODEL, else chosen from the API keys set)")
	fl.StringVar(&opts.SessionID, "session", "", "continue a stored session (id, unique prefix, or last)")
	fl.BoolVar(&opts.Reset, "reset", false, "start the turn in a new context segment, with a handoff")
	fl.IntVar(&opts.ContextWindow, "context-window", 0, "the model's context window in tokens (default: config, then the model catalog)")
	fl.BoolVar(&opts.AllowWrite, "allow-write", false, "allow writes and commands, asking before each")
	fl.BoolVarP(&opts.Yes, "yes", "y", false, "approve every write and command without asking (CI, evals)")
	fl.BoolVar(&opts.JSON, "json", false, "print events as JSON lines on stdout")
	fl.IntVar(&opts.MaxSteps, "max-steps", 0, "most model calls in the turn (default 60)")
	fl.StringVar(&opts.Verify, "verify", "", "a command that proves the work (e.g. 'go test ./...'); on failure its output goes back to the model")
	fl.IntVar(&opts.VerifyRounds, "verify-rounds", agent.DefaultVerifyRounds, "how many times a failing --verify sends the model back")
	fl.DurationVar(&opts.VerifyTimeout, "verify-timeout", agent.DefaultVerifyTimeout, "time limit of one --verify run")
	return cmd
}

func runRun(ctx context.Context, opts *RunOptions) error {
	model := opts.Model
	if model == "" && opts.Provider == nil {
		var err error
		if model, err = defaultModel(opts.Getenv); err != nil {
			return &UsageError{Err: err}
		}
	}
	sink := outputSink(opts.IO, opts.JSON)
	env, err := wiring.Build(ctx, wiring.Options{
		Home:      opts.Home,
		Workspace: opts.Workdir,
		Model:     model,
		Provider:  opts.Provider,
		Mode:      policy.ModeFromFlags(opts.AllowWrite, opts.Yes),
		Prompter:  runPrompter(opts.IO),
		Sink:      sink,
		Getenv:    opts.Getenv,
		MaxSteps:  opts.MaxSteps,
		Logger:    opts.Logger,

		ContextWindow: opts.ContextWindow,
	})
	if err != nil {
		return err
	}
	defer env.Close()
	if opts.SessionID == "last" {
		last, err := env.Store.LastSession(ctx)
		if err != nil {
			return fmt.Errorf("no session to continue: %w", err)
		}
		opts.SessionID = last.ID
	}
	in := agent.RunInput{
		SessionID: opts.SessionID, Prompt: opts.Prompt, Reset: opts.Reset,
		Verify: opts.Verify, VerifyRounds: opts.VerifyRounds, VerifyTimeout: opts.VerifyTimeout,
	}
	var box *mail.Box
	if opts.SessionID != "" {
		// A resumed session's waiting mail is answered with the prompt.
		if box, in.Mail, err = openRunMail(ctx, env.Store, opts.SessionID); err != nil {
			return err
		}
		if box != nil {
			defer box.Close()
		}
	}
	res, err := env.Runtime.Run(ctx, in)
	if box != nil && res.Turn == 0 {
		box.Release(ctx, in.Mail, err)
	}
	if errors.Is(err, agent.ErrCancelled) {
		return fmt.Errorf("cancelled; the turn is recorded as cancelled")
	}
	return err
}

// runPrompter asks on the terminal when there is one (ask mode, and
// reads of secrets in any mode); without one, what needs asking is denied
// with a reason that says how to allow it.
func runPrompter(ios *IOStreams) policy.Prompter {
	if !ios.InTTY {
		return nil
	}
	return policy.NewLinePrompter(ios.In, ios.ErrOut)
}

// defaultModel picks the model: $GODWIT_MODEL, else one for the first API
// key found.
func defaultModel(getenv func(string) string) (string, error) {
	if m := getenv("GODWIT_MODEL"); m != "" {
		return m, nil
	}
	for _, c := range []struct{ env, model string }{
		{"ANTHROPIC_API_KEY", "anthropic/claude-sonnet-4-5"},
		{"OPENAI_API_KEY", "openai/gpt-5"},
		{"DEEPSEEK_API_KEY", "deepseek/deepseek-chat"},
		{"OPENROUTER_API_KEY", "openrouter/anthropic/claude-sonnet-4.5"},
	} {
		if getenv(c.env) != "" {
			return c.model, nil
		}
	}
	return "", errors.New("no model configured: set ANTHROPIC_API_KEY, OPENAI_API_KEY, DEEPSEEK_API_KEY or OPENROUTER_API_KEY, or name one with --model provider/model (GODWIT_MODEL sets the default; `godwit demo` needs no key)")
}
