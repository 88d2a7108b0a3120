package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/godwit/godwit/internal/snapshot"
	"github.com/godwit/godwit/internal/store"
)

// UndoOptions are the inputs of `godwit undo`.
type UndoOptions struct {
	IO   *IOStreams
	Home string
	// Workdir is where godwit runs: "last" is the last session there.
	Workdir string
	Session string
	// Turn is the first turn to undo; 0 means the last turn that changed
	// files.
	Turn int
}

// NewCmdUndo builds `godwit undo SESSION|last [--turn N]`.
func NewCmdUndo(f *Factory) *cobra.Command {
	opts := &UndoOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "undo SESSION|last",
		Short: "Restore the files a session's agent changed, from a turn on",
		Long: `Restore, byte for byte, every file the agent wrote with its file tools in
turn N and later, and delete the files it created. Without --turn, the last
turn that changed files is undone. Files changed by shell commands are
listed, not rolled back. SESSION is an id, a prefix of one, or "last" (the
last session of this workspace); the files restored are in the session's
own workspace, which undo names.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Session, opts.Workdir = args[0], f.Workdir
			if opts.Turn < 0 {
				return usageErrorf("--turn must be a turn number, 1 or more")
			}
			return runWith(cmd, f, &opts.Home, opts, nil, runUndo)
		},
	}
	cmd.Flags().IntVar(&opts.Turn, "turn", 0, "undo this turn and every later one (default: the last turn that changed files)")
	return cmd
}

func runUndo(ctx context.Context, opts *UndoOptions) error {
	st, sess, err := openSession(ctx, opts.Home, opts.Session, workspaceRoot(opts.Workdir))
	if err != nil {
		return err
	}
	defer st.Close()
	turns, err := st.Turns(ctx, sess.ID)
	if err != nil {
		return err
	}
	from := opts.Turn
	if from == 0 {
		if from, err = snapshot.LatestChange(ctx, st, sess.ID); err != nil {
			return err
		}
		if from == 0 {
			fmt.Fprintf(opts.IO.ErrOut, "nothing to undo: session %s changed no files\n", sess.ID)
			return nil
		}
	}
	if from > len(turns) {
		return usageErrorf("session %s has %d turns; --turn must be between 1 and %d", sess.ID, len(turns), len(turns))
	}
	for _, t := range turns {
		if t.Seq >= from && t.Status == store.TurnRunning {
			fmt.Fprintf(opts.IO.ErrOut, "warning: turn %d is still marked running; if godwit is still working on it, its next writes are not undone\n", t.Seq)
		}
	}
	rep, err := snapshot.Undo(ctx, st, sess.ID, from)
	if err != nil {
		return err
	}
	writeUndoReport(opts.IO.Out, sess, len(turns), rep)
	if n := len(rep.Failed); n > 0 {
		return fmt.Errorf("%d file(s) could not be restored; see above", n)
	}
	return nil
}

func writeUndoReport(w io.Writer, sess store.Session, turns int, rep snapshot.Report) {
	span := fmt.Sprintf("turn %d", rep.FromTurn)
	if turns > rep.FromTurn {
		span = fmt.Sprintf("turns %d-%d", rep.FromTurn, turns)
	}
	fmt.Fprintf(w, "undo %s of session %s in %s\n", span, sess.ID, sess.Workspace)
	rel := func(p string) string {
		if r, err := filepath.Rel(sess.Workspace, p); err == nil && filepath.IsLocal(r) {
			return filepath.ToSlash(r)
		}
		return p
	}
	for _, p := range rep.Restored {
		fmt.Fprintf(w, "  restored   %s\n", rel(p))
	}
	for _, p := range rep.Removed {
		fmt.Fprintf(w, "  removed    %s (created by the agent)\n", rel(p))
	}
	for _, f := range rep.Failed {
		fmt.Fprintf(w, "  FAILED     %s: %v\n", rel(f.Path), f.Err)
	}
	if n := len(rep.Unchanged); n > 0 {
		fmt.Fprintf(w, "  %d file(s) were already as before\n", n)
	}
	if len(rep.Restored)+len(rep.Removed)+len(rep.Failed)+len(rep.Unchanged) == 0 {
		fmt.Fprintln(w, "  the file tools changed no files in these turns")
	}
	if len(rep.ShellChanged) > 0 {
		fmt.Fprintln(w, "Not rolled back: shell commands changed these files, and undo cannot restore them:")
		for _, p := range rep.ShellChanged {
			fmt.Fprintf(w, "  %s\n", rel(p))
		}
	}
	if len(rep.Background) > 0 {
		fmt.Fprintln(w, "Not tracked: these background jobs ran; whatever they changed is not listed or rolled back:")
		for _, c := range rep.Background {
			fmt.Fprintf(w, "  %s\n", firstLine(c, 100))
		}
	}
	if len(rep.Restored)+len(rep.Removed) > 0 {
		fmt.Fprintf(w, "The model is told at the session's next turn (godwit run --session %s).\n", sess.ID)
	}
}
