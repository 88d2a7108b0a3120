package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"

	"github.com/spf13/cobra"

	"github.com/godwit/godwit/agent"
	"github.com/godwit/godwit/internal/demo"
	"github.com/godwit/godwit/internal/wiring"
	"github.com/godwit/godwit/policy"
	"github.com/godwit/godwit/tool"
)

// DemoOptions are the inputs of `godwit demo`.
type DemoOptions struct {
	IO   *IOStreams
	Home string
	JSON bool
	// Dir, when set, is used instead of a new temporary directory.
	Dir string
}

// NewCmdDemo builds `godwit demo`.
func NewCmdDemo(f *Factory, runF func(context.Context, *DemoOptions) error) *cobra.Command {
	opts := &DemoOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Watch a real session fix a bug in a sample repository (no API key needed)",
		Long: `Copy a small Go repository with one bug into a temporary directory and run a
real session on it: real tools, real store, a scripted model. The session is
recorded like any other; the command to inspect it is printed at the end.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			home, err := f.Home()
			if err != nil {
				return fmt.Errorf("finding GODWIT_HOME: %w", err)
			}
			opts.Home = home
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runDemo(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print events as JSON lines on stdout")
	cmd.Flags().StringVar(&opts.Dir, "dir", "", "put the sample repository here instead of a new temporary directory")
	return cmd
}

func runDemo(ctx context.Context, opts *DemoOptions) error {
	if _, err := exec.LookPath("go"); err != nil {
		return errors.New("the demo runs `go test` on a sample Go repository, but there is no `go` command on PATH; install Go (https://go.dev/dl/) and run `godwit demo` again")
	}
	dir := opts.Dir
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "godwit-demo-"); err != nil {
			return fmt.Errorf("creating the demo directory: %w", err)
		}
	}
	if err := demo.WriteSample(dir); err != nil {
		return err
	}
	sink := outputSink(opts.IO, opts.JSON)
	if !opts.JSON {
		fmt.Fprintf(opts.IO.ErrOut, "godwit demo: a scripted model fixes a bug in %s\n\n> %s\n\n", dir, demo.Prompt)
	}
	env, err := wiring.Build(ctx, wiring.Options{
		Home:      opts.Home,
		Workspace: dir,
		Model:     demo.Model,
		Provider:  demo.Provider(),
		// The sample lives in its own temporary directory: nothing else
		// can be touched, so the demo approves its own writes.
		Approver: tool.AllowAll{},
		Mode:     policy.Auto,
		Sink:     sink,
	})
	if err != nil {
		return err
	}
	defer env.Close()
	res, err := env.Runtime.Run(ctx, agent.RunInput{Prompt: demo.Prompt})
	if err != nil {
		return err
	}
	if !opts.JSON {
		fmt.Fprintf(opts.IO.ErrOut, "\nsession %s: %d model calls, %d tokens in, %d out\n", res.SessionID, res.Steps, res.Usage.InputTokens, res.Usage.OutputTokens)
		fmt.Fprintf(opts.IO.ErrOut, "the repository is in %s\n", dir)
		fmt.Fprintf(opts.IO.ErrOut, "inspect the session: godwit inspect trace %s\n", res.SessionID)
	}
	return nil
}
