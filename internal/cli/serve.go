package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sync/atomic"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/config"
	"github.com/godwit/godwit/internal/mail"
	"github.com/godwit/godwit/internal/policy"
	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/wiring"
)

// ServeOptions are the inputs of `godwit serve`.
type ServeOptions struct {
	engineOptions
	Session string
	New     bool
	JSON    bool
}

// NewCmdServe builds `godwit serve`.
func NewCmdServe(f *Factory) *cobra.Command {
	opts := &ServeOptions{engineOptions: newEngineOptions(f)}
	cmd := &cobra.Command{
		Use:   "serve SESSION|--new [--model M] [--allow-write|--yes]",
		Short: "Keep a session open without a terminal, answering its mail",
		Long: `Keep a session open and answer the messages sent to it (godwit send, other
sessions' send_message tool, programs) until SIGTERM or Ctrl-C. Messages that
arrive during a turn are answered together in the next turn. SESSION is an
id, a unique prefix, or last; --new starts a new session and prints its id.

Nobody is at a terminal to approve anything: read-only by default;
--allow-write allows what your rules files allow and refuses what would need
asking; --yes allows every write and command.

The first Ctrl-C (or SIGTERM) lets the running turn finish and stops; a
second cancels it. Either way the turn is recorded, and its messages get its
answer or its error.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case opts.New && len(args) > 0:
				return usageErrorf("give SESSION or --new, not both")
			case !opts.New && len(args) == 0:
				return usageErrorf("name the session to serve (an id, a prefix, or last), or start one with --new")
			case cmd.Flags().Changed("context-window") && opts.ContextWindow < config.MinContextWindow:
				return opts.contextWindowError()
			}
			if len(args) == 1 {
				opts.Session = args[0]
			}
			opts.Workspace = f.Workdir // after -C
			return runWith(cmd, f, &opts.Home, opts, nil, runServe)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&opts.New, "new", false, "start a new session and serve it")
	fl.StringVarP(&opts.Model, "model", "m", "", modelHelp)
	fl.BoolVar(&opts.AllowWrite, "allow-write", false, "allow the writes and commands your rules allow; refuse what would need asking")
	fl.BoolVarP(&opts.Yes, "yes", "y", false, "approve every write and command")
	fl.BoolVar(&opts.JSON, "json", false, "print events as JSON lines on stdout")
	fl.IntVar(&opts.ContextWindow, "context-window", 0, fmt.Sprintf("the model's context window in tokens, %d or more (default: config, then the model catalog)", config.MinContextWindow))
	return cmd
}

func runServe(ctx context.Context, opts *ServeOptions) error {
	model, err := opts.model()
	if err != nil {
		return err
	}
	sink := agent.Sinks(outputSink(opts.IO, opts.JSON), &mailLog{w: safeWriter{opts.IO.ErrOut}})
	w := opts.wiring(model, wiring.Approval{Mode: policy.ModeFromFlags(opts.AllowWrite, opts.Yes)}, sink)
	w.Mail = true
	env, err := wiring.Build(ctx, w)
	if err != nil {
		return err
	}
	defer env.Close()
	st := env.Store
	id, err := serveSession(ctx, opts, env)
	if err != nil {
		return err
	}
	box, err := mail.Open(ctx, st, id, mail.Options{Command: "serve"})
	if err != nil {
		return err
	}
	defer box.Close()
	fmt.Fprintf(opts.IO.ErrOut, "serving session %s (pid %d); send it mail with: godwit send %s TEXT\n", id, os.Getpid(), id)

	// The first signal ends ctx: no more mail is taken, and the running
	// turn goes on; a second one cancels the turn.
	turnCtx, cancelTurn := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelTurn()
	var busy atomic.Bool
	stopped := make(chan struct{})
	defer close(stopped)
	go func() {
		select {
		case <-ctx.Done():
		case <-stopped:
			return
		}
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(sig)
		if busy.Load() {
			fmt.Fprintln(opts.IO.ErrOut, "stopping after the running turn; Ctrl-C again cancels it")
		}
		select {
		case <-sig:
			cancelTurn()
		case <-stopped:
		}
	}()
	run := func(_ context.Context, ms []store.Mail) (agent.Result, error) {
		busy.Store(true)
		defer busy.Store(false)
		return env.Runtime.Run(turnCtx, agent.RunInput{SessionID: id, Mail: ms, Sink: sink})
	}
	err = mail.Serve(ctx, box, run, mail.ServeOptions{TurnContext: turnCtx, OnTurn: func(ms []store.Mail, res agent.Result, err error) {
		if err != nil {
			fmt.Fprintf(opts.IO.ErrOut, "turn %d failed: %s\n", res.Turn, userMessage(err))
		}
	}})
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.ErrOut, "stopped serving session %s\n", id)
	return nil
}

// serveSession finds the session to serve, or creates it with --new; a
// session of another workspace is refused, since the tools here see
// other files.
func serveSession(ctx context.Context, opts *ServeOptions, env *wiring.Env) (string, error) {
	st := env.Store
	if opts.New {
		id, err := mail.NewSession(ctx, st, env.Workspace, env.Model)
		if err != nil {
			return "", err
		}
		fmt.Fprintln(opts.IO.ErrOut, "new session", id)
		return id, nil
	}
	sess, err := resolveSession(ctx, st, opts.Session, env.Workspace)
	if err != nil {
		return "", err
	}
	if sess.Workspace != "" && filepath.Clean(sess.Workspace) != filepath.Clean(env.Workspace) {
		return "", fmt.Errorf("session %s works in %s, not here (%s): run godwit serve there", sess.ID, sess.Workspace, env.Workspace)
	}
	return sess.ID, nil
}
