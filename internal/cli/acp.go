package cli

import (
	"context"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/godwit/godwit/internal/acp"
	"github.com/godwit/godwit/internal/wiring"
)

// ACPOptions are the inputs of `godwit acp`; each session's workspace
// and mode are the editor's.
type ACPOptions struct {
	engineOptions
	Mode string
}

// NewCmdACP builds `godwit acp`. runF replaces the real server in tests.
func NewCmdACP(f *Factory, runF func(context.Context, *ACPOptions) error) *cobra.Command {
	opts := &ACPOptions{engineOptions: newEngineOptions(f)}
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
			return runWith(cmd, f, &opts.Home, opts, runF, runACP)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&opts.Model, "model", "m", "", modelHelp)
	fl.StringVar(&opts.Mode, "mode", string(acp.ModeAsk), "the mode sessions start in: read-only, ask or auto")
	return cmd
}

func runACP(ctx context.Context, opts *ACPOptions) error {
	// No model is not fatal here: session/new says what to do, in the
	// editor.
	model, _ := opts.model()
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
		w := opts.wiring(model, wiring.Approval{Live: req.Mode, Prompter: req.Prompter, Gate: req.Gate}, nil)
		w.Workspace, w.Files, w.Terminal = req.Workspace, req.Files, req.Terminal
		env, err := wiring.Build(ctx, w)
		if err != nil {
			return nil, userError{err} // the editor shows it as it is
		}
		for _, n := range env.Notices {
			opts.Logger.Warn(n) // the editor's log: ACP has no notice to show it by
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
		Logger:   opts.Logger,
		OpenMail: openACPMail,
		Explain:  userMessage,
	})
}
