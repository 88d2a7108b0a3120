package cli

import (
	"context"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/godwit/godwit/internal/acp"
	"github.com/godwit/godwit/internal/wiring"
	"github.com/godwit/godwit/llm"
)

// ACPOptions are the inputs of `godwit acp`.
type ACPOptions struct {
	IO     *IOStreams
	Getenv func(string) string
	// ProjectKey reads a provider key of the workspace's .env (Factory).
	ProjectKey func(string) (string, bool)
	Home       string
	Model      string
	Mode       string
	Version    string
	// Provider replaces the configured one (tests).
	Provider llm.Provider
}

// NewCmdACP builds `godwit acp`. runF replaces the real server in tests.
func NewCmdACP(f *Factory, runF func(context.Context, *ACPOptions) error) *cobra.Command {
	opts := &ACPOptions{IO: f.IO, Getenv: f.Getenv, ProjectKey: f.ProjectKey, Version: f.Version}
	cmd := &cobra.Command{
		Use:   "acp [--model M]",
		Short: "Serve editors over the Agent Client Protocol on stdio",
		Long: `Serve editors (Zed, and any client of the Agent Client Protocol) on stdin and
stdout. Each editor session works in the folder the editor names, with its
own mode, which the editor can switch: read-only, ask (the default: the
editor asks before each write and command that does not only read) or auto.
The same rules, secrets screen and sandbox as godwit run apply in each.
Sessions are stored like any other and can be loaded again.

stdout carries only protocol messages; diagnostics go to stderr.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.setHome(&opts.Home); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runACP(cmd.Context(), opts, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&opts.Model, "model", "m", "", "provider/model (default: $GODWIT_MODEL, then config.yaml's model, then one for the API keys set)")
	fl.StringVar(&opts.Mode, "mode", string(acp.ModeAsk), "the mode sessions start in: read-only, ask or auto")
	return cmd
}

func runACP(ctx context.Context, opts *ACPOptions, f *Factory) error {
	model := opts.Model
	if model == "" && opts.Provider == nil {
		// No model is not fatal here: config.yaml may name one, and
		// otherwise session/new says what to do, in the editor.
		model, _ = defaultModel(opts.Home, opts.Getenv)
	}
	mode := acp.Mode(opts.Mode)
	switch mode {
	case acp.ModeReadOnly, acp.ModeAsk, acp.ModeAuto:
	default:
		return usageErrorf("unknown --mode %q: use read-only, ask or auto", opts.Mode)
	}
	var out io.Writer = opts.IO.Out
	if real, ok := out.(*os.File); ok && real == os.Stdout {
		// The protocol keeps the real stdout; anything else that prints
		// to os.Stdout lands on stderr instead of corrupting the stream.
		os.Stdout = os.Stderr
		defer func() { os.Stdout = real }()
	}
	build := func(ctx context.Context, req acp.EngineRequest) (*acp.Engine, error) {
		env, err := wiring.Build(ctx, wiring.Options{
			Home:       opts.Home,
			Workspace:  req.Workspace,
			UserHome:   userHome(opts.Getenv),
			Model:      model,
			Provider:   opts.Provider,
			Approval:   wiring.Approval{Live: req.Mode, Prompter: req.Prompter, Gate: req.Gate},
			Getenv:     opts.Getenv,
			ProjectKey: opts.ProjectKey,
			Logger:     f.Logger,
			Files:      req.Files,
			Terminal:   req.Terminal,
		})
		if err != nil {
			return nil, userError{err} // the editor shows it as it is
		}
		for _, n := range env.Notices {
			f.Logger.Warn(n) // the editor's log: ACP has no notice to show it by
		}
		return &acp.Engine{
			Runtime: env.Runtime, Store: env.Store, Workspace: env.Workspace, Model: env.Model,
			Plan: env.Plan, ContextWindow: env.Window.Budget().Window, Close: env.Close,
		}, nil
	}
	return acp.Serve(ctx, opts.IO.In, out, acp.Options{
		Build:    build,
		Version:  opts.Version,
		Mode:     mode,
		Logger:   f.Logger,
		OpenMail: openACPMail,
		Explain:  userMessage,
	})
}
