package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/config"
	"github.com/godwit/godwit/internal/mail"
	"github.com/godwit/godwit/internal/policy"
	"github.com/godwit/godwit/internal/tui"
	"github.com/godwit/godwit/internal/wiring"
	"github.com/godwit/godwit/llm"
)

// engineOptions are the inputs every command that builds an engine
// shares (run, chat, serve, acp): what wiring builds from, filled from
// the Factory and the flags, and the flags of the mode.
type engineOptions struct {
	wiring.Options
	IO         *IOStreams
	AllowWrite bool
	Yes        bool
}

func newEngineOptions(f *Factory) engineOptions {
	return engineOptions{IO: f.IO, Options: wiring.Options{Getenv: f.Getenv, ProjectKey: f.ProjectKey, Logger: f.Logger, Version: f.Version}}
}

// model is --model, else the default (defaultModel); "" when a Provider
// replaces the configured one.
func (o *engineOptions) model() (string, error) {
	if o.Model != "" || o.Provider != nil {
		return o.Model, nil
	}
	m, err := defaultModel(o.Home, o.Getenv)
	if err != nil {
		return "", &UsageError{Err: err}
	}
	return m, nil
}

// wiring is what builds the engine: model, approved by a, its own events
// to sink.
func (o *engineOptions) wiring(model string, a wiring.Approval, sink agent.Sink) wiring.Options {
	w := o.Options
	w.UserHome, w.Model, w.Approval, w.EngineEvents = userHome(o.Getenv), model, a, sink
	return w
}

// RunOptions are the inputs of `godwit run`.
type RunOptions struct {
	engineOptions
	Prompt    string
	SessionID string
	JSON      bool
	Reset     bool
	Verify    string
	// Images are image files to attach to the prompt (--image).
	Images []string
	// VerifyRounds is how often a failing verify sends the model back.
	VerifyRounds  int
	VerifyTimeout time.Duration
	// Now is the clock of the events the command writes itself; nil is
	// time.Now.
	Now func() time.Time
}

// stdinNotice is how long run waits for piped input before saying that
// it is waiting: a pipe nobody closes would otherwise hang it silently.
const stdinNotice = 2 * time.Second

// NewCmdRun builds `godwit run`. runF replaces the real run in tests.
func NewCmdRun(f *Factory, runF func(context.Context, *RunOptions) error) *cobra.Command {
	opts := &RunOptions{engineOptions: newEngineOptions(f), Now: f.Now}
	var engineFlags func() error
	cmd := &cobra.Command{
		Use:   "run [PROMPT] [flags]",
		Short: "Run one turn and exit",
		Long: `Run one turn: send the prompt, let the model work with the tools until it
answers, print the answer and exit. Read-only unless --allow-write or --yes.

The prompt is the words after run, or --prompt/-p TEXT (- reads it from
stdin). Text piped in is added after it, as a <stdin> block:
  git diff | godwit run "review this change"

Only the answer goes to stdout; what the model says between tool calls, the
tool lines and every notice go to stderr. --json prints every event as a
JSON line instead (docs/json-events.md).

--session ID (or -c, the last session of this workspace) continues a
session, in the workspace it belongs to.

Exit status: 0 done, 1 the run failed, 2 bad usage.`,
		Example: `  godwit run "why does TestParse fail?"
  godwit run --allow-write -p "fix TestParse"
  godwit run -c "now add a test for it"
  godwit run -i screenshot.png "why is this button grey?"
  echo "$LOG" | godwit run -p "what went wrong?"`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := engineFlags(); err != nil {
				return err
			}
			if err := opts.checkFlags(cmd.Flags().Changed, len(args) > 0); err != nil {
				return err
			}
			opts.Workspace = f.Workdir
			if opts.Prompt == "" && len(args) > 0 {
				opts.Prompt = strings.Join(args, " ")
			}
			if err := opts.readStdin(); err != nil {
				return err
			}
			if strings.TrimSpace(opts.Prompt) == "" {
				return usageErrorf("no prompt: give it after run (godwit run \"fix the test\"), with -p TEXT, or pipe it in")
			}
			return runWith(cmd, f, &opts.Home, opts, runF, runRun)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&opts.Prompt, "prompt", "p", "", "the user message (or give it after run); - reads it from stdin")
	engineFlags = opts.addFlags(fl, &opts.SessionID)
	fl.BoolVar(&opts.Reset, "reset", false, "start the turn in a new context segment, with a handoff")
	fl.BoolVar(&opts.JSON, "json", false, "print every event as a JSON line on stdout (docs/json-events.md)")
	fl.IntVar(&opts.MaxSteps, "max-steps", 0, "most model calls in the turn, 1 or more (default 60)")
	fl.StringArrayVarP(&opts.Images, "image", "i", nil, "attach an image to the prompt: PNG, JPEG, GIF or WebP (repeatable)")
	fl.StringVar(&opts.Verify, "verify", "", "a command that proves the work (e.g. 'go test ./...'); on failure its output goes back to the model")
	fl.IntVar(&opts.VerifyRounds, "verify-rounds", agent.DefaultVerifyRounds, "how many times a failing --verify sends the model back, 1 or more")
	fl.DurationVar(&opts.VerifyTimeout, "verify-timeout", agent.DefaultVerifyTimeout, "time limit of one --verify run")
	return cmd
}

// checkFlags refuses values that cannot mean what was asked, before
// anything runs. changed says whether a flag was given.
func (o *RunOptions) checkFlags(changed func(string) bool, positional bool) error {
	switch {
	case positional && changed("prompt"):
		return usageErrorf("give the prompt once: after run, or with -p, not both")
	case changed("max-steps") && config.MaxStepsProblem(o.MaxSteps) != "":
		return usageErrorf("--max-steps %s (%d)", config.MaxStepsProblem(o.MaxSteps), agent.DefaultMaxSteps)
	case changed("verify-rounds") && o.VerifyRounds < 1:
		return usageErrorf("--verify-rounds %d: give 1 or more (how many times a failing --verify sends the model back)", o.VerifyRounds)
	case changed("verify-rounds") && o.Verify == "":
		return usageErrorf("--verify-rounds goes with --verify COMMAND")
	case o.VerifyTimeout <= 0:
		return usageErrorf("--verify-timeout %s: give a positive duration, e.g. 5m", o.VerifyTimeout)
	}
	return nil
}

// modelHelp is --model's help.
const modelHelp = "provider/model (default: $GODWIT_MODEL, then config.yaml's model, then one for the API keys set)"

// addFlags adds the flags run and chat share to fl, -c and --session
// into *session. What it returns checks them once they are parsed.
func (o *engineOptions) addFlags(fl *pflag.FlagSet, session *string) func() error {
	var cont bool
	fl.StringVarP(&o.Model, "model", "m", "", modelHelp)
	fl.StringVar(session, "session", "", "continue a stored session of this workspace (id, unique prefix, or last)")
	fl.BoolVarP(&cont, "continue", "c", false, "continue the last session of this workspace (--session last)")
	fl.BoolVar(&o.AllowWrite, "allow-write", false, "allow writes and commands, asking before each")
	fl.BoolVarP(&o.Yes, "yes", "y", false, "approve every write and command without asking")
	fl.IntVar(&o.ContextWindow, "context-window", 0, fmt.Sprintf("the model's context window in tokens, %d or more (default: config, then the model catalog)", config.MinContextWindow))
	ws := fl.Int("working-set", 0, "how much tool output of earlier turns stays whole in view, in tokens, whatever the window (default: config, then 0: paged at the next turn's second request)")
	return func() error {
		switch {
		case cont && fl.Changed("session"):
			return usageErrorf("give --session ID or -c (the last session), not both")
		case fl.Changed("context-window") && o.ContextWindow < config.MinContextWindow:
			return o.contextWindowError()
		case fl.Changed("working-set") && *ws < 0:
			return usageErrorf("--working-set %d: give 0 or more tokens", *ws)
		}
		if fl.Changed("working-set") {
			o.WorkingSet = ws
		}
		if cont {
			*session = "last"
		}
		return nil
	}
}

// contextWindowError refuses a --context-window godwit cannot work in.
func (o *engineOptions) contextWindowError() error {
	return usageErrorf("--context-window %d: godwit needs at least %d tokens (its system prompt and tools take about 2k); give the model's real window", o.ContextWindow, config.MinContextWindow)
}

// readStdin takes the prompt from stdin (-p -), or adds piped input to
// it as a <stdin> block, as codex exec does; piped input alone is the
// prompt.
func (o *RunOptions) readStdin() error {
	if o.Prompt != "-" && !o.IO.InPiped {
		return nil
	}
	b, err := readNoticed(o.IO.In, o.IO.ErrOut, stdinNotice)
	if err != nil {
		return fmt.Errorf("reading stdin: %w", err)
	}
	in := string(b)
	switch {
	case o.Prompt == "-":
		o.Prompt = in
	case strings.TrimSpace(in) == "":
	case strings.TrimSpace(o.Prompt) == "":
		o.Prompt = in
	default:
		o.Prompt = joinStdin(o.Prompt, in)
	}
	return nil
}

// joinStdin is the prompt followed by the piped input.
func joinStdin(prompt, in string) string {
	return prompt + "\n\n<stdin>\n" + strings.TrimRight(in, "\n") + "\n</stdin>"
}

// readNoticed reads r to its end; if nothing has come after wait, it
// says on log what it is waiting for.
func readNoticed(r io.Reader, log io.Writer, wait time.Duration) ([]byte, error) {
	t := time.AfterFunc(wait, func() {
		fmt.Fprintln(log, "godwit: waiting for the input on stdin to end (Ctrl-D on a terminal; run with </dev/null to give none)")
	})
	br := bufio.NewReader(r)
	_, _ = br.Peek(1) // its error, if any, comes again from ReadAll
	t.Stop()
	return io.ReadAll(br)
}

func runRun(ctx context.Context, opts *RunOptions) (err error) {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	sink := outputSink(opts.IO, opts.JSON)
	if js, ok := sink.(*jsonSink); ok {
		// Whatever stops the run, the stream ends with why.
		defer func() {
			if err != nil {
				js.fail(err, now())
			}
		}()
	}
	var images []llm.Part
	for _, path := range opts.Images {
		if !filepath.IsAbs(path) {
			path = filepath.Join(opts.Workspace, path)
		}
		p, err := llm.ReadImage(path)
		if err != nil {
			return &UsageError{Err: fmt.Errorf("--image: %w", err)}
		}
		images = append(images, p)
	}
	model, err := opts.model()
	if err != nil {
		return err
	}
	env, err := wiring.Build(ctx, opts.wiring(model, wiring.Approval{Mode: policy.ModeFromFlags(opts.AllowWrite, opts.Yes), Prompter: runPrompter(opts.IO)}, sink))
	if err != nil {
		return err
	}
	defer env.Close()
	for _, n := range env.Notices {
		sink.Emit(agent.Event{Type: agent.EventNotice, Text: n, Time: time.Now()})
	}
	if opts.SessionID != "" {
		sess, err := resolveSession(ctx, env.Store, opts.SessionID, env.Workspace)
		if errors.Is(err, errNoSession) {
			return fmt.Errorf("%w; or leave out --session (or -c) to start a new one here", err)
		}
		if err != nil {
			return err
		}
		opts.SessionID = sess.ID
		// The default model (no --model) may not be the one the session
		// ran on: its window, and so its resets, change with it.
		if last, _ := tui.LastSettings(ctx, env.Store, sess.ID); last != "" && opts.Model == "" && model != "" && last != model {
			sink.Emit(agent.Event{Type: agent.EventNotice, Time: time.Now(),
				Text: fmt.Sprintf("session %s last ran on %s; this turn runs on %s (--model %s keeps it)", sess.ID, last, model, last)})
		}
	}
	in := agent.RunInput{
		SessionID: opts.SessionID, Prompt: opts.Prompt, Reset: opts.Reset, Sink: sink,
		Verify: opts.Verify, VerifyRounds: opts.VerifyRounds, VerifyTimeout: opts.VerifyTimeout,
		Attach: images,
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
	return newTerminalPrompter(ios.In, ios.ErrOut)
}

// defaultModel picks the model where --model names none: $GODWIT_MODEL,
// else config.yaml's model, else one for the first API key found. A
// config.yaml that does not load is the error: its model: may be the one
// meant, and "no model configured" would hide the line to fix.
func defaultModel(home string, getenv func(string) string) (string, error) {
	if m := getenv("GODWIT_MODEL"); m != "" {
		return m, nil
	}
	c, err := config.Load(home, getenv)
	if err != nil {
		return "", err
	}
	if c.Model != "" {
		return c.Model, nil
	}
	if m := keyModel(getenv); m != "" {
		return m, nil
	}
	return "", errors.New("no model configured: set ANTHROPIC_API_KEY, OPENAI_API_KEY, DEEPSEEK_API_KEY or OPENROUTER_API_KEY, or name one with --model provider/model (GODWIT_MODEL or model: in config.yaml sets the default; `godwit demo` needs no key)")
}

// keyModel is the model for the first provider key set; "" when none is.
func keyModel(getenv func(string) string) string {
	for _, c := range []struct{ env, model string }{
		{"ANTHROPIC_API_KEY", "anthropic/claude-sonnet-4-5"},
		{"OPENAI_API_KEY", "openai/gpt-5"},
		{"DEEPSEEK_API_KEY", "deepseek/deepseek-chat"},
		{"OPENROUTER_API_KEY", "openrouter/anthropic/claude-sonnet-4.5"},
	} {
		if strings.TrimSpace(getenv(c.env)) != "" {
			return c.model
		}
	}
	return ""
}
