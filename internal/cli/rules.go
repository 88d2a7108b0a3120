package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/godwit/godwit/internal/agent"
)

// RulesOptions are the inputs of `godwit rules`.
type RulesOptions struct {
	IO      *IOStreams
	Home    string
	Workdir string
	Session string
	// Pin and Unpin name an entry ("D12") to keep as a rule, or not.
	Pin, Unpin string
}

// NewCmdRules builds `godwit rules SESSION|last [--pin Dn] [--unpin Dn]`.
func NewCmdRules(f *Factory) *cobra.Command {
	opts := &RulesOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "rules SESSION|last",
		Short: "List the standing instructions a session keeps; pin or unpin one",
		Long: `List what a session keeps as your standing instructions (rules), what was
superseded and by what, and the newest requests. Every message's words are
kept while the ledger has room; rules shrink last. --pin D12 keeps a message
as a rule, --unpin D7 makes one a request again (what it replaced stands
again). SESSION is an id, a prefix of one, or "last".`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Session, opts.Workdir = args[0], f.Workdir
			return runWith(cmd, f, &opts.Home, opts, nil, runRules)
		},
	}
	cmd.Flags().StringVar(&opts.Pin, "pin", "", "keep entry Dn as a rule")
	cmd.Flags().StringVar(&opts.Unpin, "unpin", "", "make entry Dn a request, not a rule")
	return cmd
}

func runRules(ctx context.Context, opts *RulesOptions) error {
	st, sess, err := openSession(ctx, opts.Home, opts.Session, workspaceRoot(opts.Workdir))
	if err != nil {
		return err
	}
	defer st.Close()
	for _, p := range []struct {
		ref string
		pin bool
	}{{opts.Pin, true}, {opts.Unpin, false}} {
		if p.ref == "" {
			continue
		}
		msg, err := agent.Pin(ctx, st, sess.ID, p.ref, p.pin)
		if errors.Is(err, agent.ErrBadRef) {
			return &UsageError{Err: err}
		}
		if err != nil {
			return err
		}
		fmt.Fprintln(opts.IO.ErrOut, msg)
	}
	cmd := "godwit rules " + sess.ID
	text, err := agent.Rules(ctx, st, sess.ID, cmd+" --pin Dn", cmd+" --unpin Dn")
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "session %s\n%s\n", sess.ID, text)
	return nil
}
