package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/demo"
	"github.com/godwit/godwit/internal/policy"
	"github.com/godwit/godwit/internal/wiring"
	"github.com/godwit/godwit/tool"
)

// DemoOptions are the inputs of `godwit demo`.
type DemoOptions struct {
	IO   *IOStreams
	JSON bool
	// Dir, when set, holds the demo (repo/ and home/) instead of a new
	// temporary folder, and is kept.
	Dir string
	// Keep keeps the temporary folder to look into afterwards.
	Keep bool
}

// NewCmdDemo builds `godwit demo`.
func NewCmdDemo(f *Factory) *cobra.Command {
	opts := &DemoOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Watch a real session fix a bug in a sample repository (no API key needed)",
		Long: `Copy a small Go repository with one bug into a temporary folder and run a
real session on it: real tools, real store, a scripted model. The session is
recorded like any other, in a store of the demo's own (nothing is written
under $GODWIT_HOME), and its timeline is printed at the end. The folder is
then removed; --keep keeps it, with the command to inspect the session.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runDemo(cmd.Context(), opts) },
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print events as JSON lines on stdout")
	cmd.Flags().BoolVar(&opts.Keep, "keep", false, "keep the demo's folder (the repository and the session's store) to look into")
	cmd.Flags().StringVar(&opts.Dir, "dir", "", "put the demo in this folder (kept) instead of a temporary one")
	return cmd
}

func runDemo(ctx context.Context, opts *DemoOptions) (err error) {
	if _, err := exec.LookPath("go"); err != nil {
		return errors.New("the demo runs `go test` on a sample Go repository, but there is no `go` command on PATH; install Go (https://go.dev/dl/) and run `godwit demo` again")
	}
	root, keep := opts.Dir, opts.Keep || opts.Dir != ""
	if root == "" {
		if root, err = os.MkdirTemp("", "godwit-demo-"); err != nil {
			return fmt.Errorf("creating the demo folder: %w", err)
		}
	}
	if !keep {
		defer func() {
			if rmErr := os.RemoveAll(root); rmErr != nil {
				err = errors.Join(err, fmt.Errorf("removing the demo folder: %w", rmErr))
			}
		}()
	}
	repo, home := filepath.Join(root, "repo"), filepath.Join(root, "home")
	for _, d := range []string{repo, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("creating the demo folder: %w", err)
		}
	}
	if err := demo.WriteSample(repo); err != nil {
		return err
	}
	sink := outputSink(opts.IO, opts.JSON)
	if !opts.JSON {
		fmt.Fprintf(opts.IO.ErrOut, "godwit demo: a scripted model fixes a bug in %s\n\n> %s\n\n", repo, demo.Prompt)
	}
	env, err := wiring.Build(ctx, wiring.Options{
		Home:      home,
		Workspace: repo,
		Model:     demo.Model,
		Provider:  demo.Provider(),
		// The sample lives in its own temporary folder: nothing else can
		// be touched, so the demo approves its own writes.
		Approval: wiring.Approval{Mode: policy.Auto, Approver: tool.AllowAll{}},
	})
	if err != nil {
		return err
	}
	defer env.Close()
	res, err := env.Runtime.Run(ctx, agent.RunInput{Prompt: demo.Prompt, Sink: sink})
	if err != nil {
		return err
	}
	if opts.JSON {
		return nil
	}
	w := opts.IO.ErrOut
	fmt.Fprintf(w, "\nsession %s: %d model calls, %d tokens in, %d out. Its record:\n\n", res.SessionID, res.Steps, res.Usage.InputTokens, res.Usage.OutputTokens)
	if sess, err := env.Store.Session(ctx, res.SessionID); err == nil {
		_ = writeTimeline(ctx, &InspectOptions{IO: &IOStreams{Out: w, ErrOut: w}}, env.Store, sess)
	}
	if keep {
		fmt.Fprintf(w, "\nkept in %s: the repository in repo/, the session's store in home/\ninspect it: GODWIT_HOME=%s godwit inspect trace %s\n",
			root, shellQuote(home), res.SessionID)
	} else {
		fmt.Fprintf(w, "\nthe demo's folder %s is removed; godwit demo --keep keeps it, to look into with godwit inspect trace\n", root)
	}
	return nil
}
