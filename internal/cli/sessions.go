package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/tool/workspace"
	"github.com/godwit/godwit/internal/wiring"
)

// Sessions belong to a workspace: the folder godwit was started in (or
// -C), symlinks resolved, not the git root. "last" means this
// workspace's; a session of another one is continued only there.

// workspaceRoot is dir as a session records its workspace; dir itself
// when it cannot be resolved (the command then fails on its own terms).
func workspaceRoot(dir string) string {
	if ws, err := workspace.New(dir); err == nil {
		return ws.Root()
	}
	return dir
}

// errNoSession: the reference names no session (of this workspace, for
// "last"); run adds how to start one.
var errNoSession = errors.New("no session")

// resolveSession finds a session by id, unique id prefix, or "last": the
// last session of workspace. When that workspace has none, the error
// names the last session elsewhere and how to continue it.
func resolveSession(ctx context.Context, st *store.Store, ref, workspace string) (store.Session, error) {
	if ref != "last" {
		sess, err := st.Session(ctx, ref)
		if errors.Is(err, store.ErrNotFound) {
			return sess, fmt.Errorf("%w %q; `godwit sessions --all` lists every workspace's", errNoSession, ref)
		}
		return sess, err
	}
	sess, err := st.LastSessionIn(ctx, workspace)
	if !errors.Is(err, store.ErrNotFound) {
		return sess, err
	}
	other, err := st.LastSession(ctx)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return store.Session{}, errors.New("no session recorded yet: start one without --session (or -c)")
	case err != nil:
		return store.Session{}, err
	}
	return store.Session{}, fmt.Errorf("%w in this workspace (%s) yet; the last one, %s, works in %s: continue it there with `godwit -C %s run -c -p ...`, or list every workspace's with `godwit sessions --all`",
		errNoSession, workspace, other.ID, other.Workspace, shellQuote(other.Workspace))
}

// SessionsOptions are the inputs of `godwit sessions`.
type SessionsOptions struct {
	IO      *IOStreams
	Home    string
	Workdir string
	Limit   int
	// All lists every workspace's sessions, not only this one's.
	All bool
}

// NewCmdSessions builds `godwit sessions`.
func NewCmdSessions(f *Factory) *cobra.Command {
	opts := &SessionsOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "sessions [--all]",
		Short: "List this workspace's recorded sessions, newest first",
		Long: `List the sessions recorded in this workspace (the folder godwit runs in, or
-C DIR), newest first; --all lists every workspace's, as codex resume --all
does. Continue one with godwit run --session ID (or -c for the last), in its
own workspace.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Limit < 0 {
				return usageErrorf("--limit must be 0 (every session) or more")
			}
			opts.Workdir = f.Workdir
			return runWith(cmd, f, &opts.Home, opts, nil, runSessions)
		},
	}
	cmd.Flags().IntVarP(&opts.Limit, "limit", "n", 20, "how many sessions (0: all)")
	cmd.Flags().BoolVarP(&opts.All, "all", "a", false, "list the sessions of every workspace")
	return cmd
}

func runSessions(ctx context.Context, opts *SessionsOptions) error {
	// Listing must not create a database where there was none.
	if _, err := os.Stat(wiring.DBPath(opts.Home)); errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintln(opts.IO.ErrOut, "no sessions yet; try `godwit demo`")
		return nil
	}
	st, err := store.Open(ctx, wiring.DBPath(opts.Home))
	if err != nil {
		return err
	}
	defer st.Close()
	ws := ""
	if !opts.All {
		ws = workspaceRoot(opts.Workdir)
	}
	list, err := st.ListSessionsIn(ctx, ws, opts.Limit)
	if err != nil {
		return err
	}
	if len(list) == 0 {
		msg := "no sessions yet; try `godwit demo`"
		if all, err := st.ListSessionsIn(ctx, "", 0); ws != "" && err == nil && len(all) > 0 {
			msg = fmt.Sprintf("no sessions in this workspace (%s) yet; `godwit sessions --all` lists %d of other workspaces", ws, len(all))
		}
		fmt.Fprintln(opts.IO.ErrOut, msg)
		return nil
	}
	home, _ := os.UserHomeDir()
	writeSessions(shown(opts.IO.Out, opts.IO.OutTTY), list, home)
	return nil
}

func writeSessions(w io.Writer, list []store.SessionSummary, home string) {
	fmt.Fprintf(w, "%-18s %-16s %5s %9s %9s %4s %-8s  %-24s  %s\n", "ID", "LAST ACTIVITY", "TURNS", "TOKENS", "COST", "MAIL", "RESIDENT", "WORKSPACE", "TITLE")
	for _, s := range list {
		tokens := s.Usage.InputTokens + s.Usage.OutputTokens
		title := strings.TrimSpace(firstLine(s.Title, 60))
		if s.ParentID != "" {
			// A sub-agent's session: its cost is its parent's too.
			title = "(sub-agent of " + s.ParentID + ") " + title
		}
		queued, resident := mailColumns(s)
		fmt.Fprintf(w, "%-18s %-16s %5d %9d %9s %4s %-8s  %-24s  %s\n", s.ID, s.LastActivity.Local().Format("2006-01-02 15:04"), s.Turns, tokens,
			fmt.Sprintf("$%.4f", s.Cost), queued, resident, shortPath(s.Workspace, home, 24), title)
	}
}

// shortPath writes a path for a column: ~ for the home folder, and the
// path's end when it is longer than n.
func shortPath(p, home string, n int) string {
	if home != "" && (p == home || strings.HasPrefix(p, home+string(filepath.Separator))) {
		p = "~" + p[len(home):]
	}
	if r := []rune(p); len(r) > n {
		p = "…" + string(r[len(r)-n+1:])
	}
	return p
}
