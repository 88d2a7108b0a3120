package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/trace"
	"github.com/godwit/godwit/internal/wiring"
)

// InspectOptions are the inputs of `godwit inspect trace`.
type InspectOptions struct {
	IO   *IOStreams
	Home string
	// Workdir is where godwit runs: "last" is the last session there.
	Workdir string
	Session string
	// At most one of Analyze, Transcript and Web; none shows the timeline.
	// JSON applies to the timeline and to Analyze.
	JSON       bool
	Analyze    bool
	Transcript bool
	Web        bool
	// Addr is where --web listens.
	Addr string
	// Ready, when set, is called with the page's URL once --web listens
	// (tests use it instead of reading the printed line).
	Ready func(url string)
}

// NewCmdInspect builds `godwit inspect`.
func NewCmdInspect(f *Factory, runF func(context.Context, *InspectOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "inspect",
		Short: "Look into recorded sessions",
	}
	opts := &InspectOptions{IO: f.IO}
	traceCmd := &cobra.Command{
		Use:   "trace SESSION|last",
		Short: "Show a session's timeline, summary, transcript or web page",
		Long: `Show what a recorded session did. SESSION is an id, a prefix of one, or
"last" (the last session of this workspace).

With no flag, the timeline. --json prints every recorded event, one per line;
--analyze sums the session up (add --json for the report as JSON);
--transcript prints it as plain text for a review or another agent;
--web serves a read-only page on 127.0.0.1 that follows a live session.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.check(cmd.Flags().Changed("addr")); err != nil {
				return err
			}
			opts.Session, opts.Workdir = args[0], f.Workdir
			return runWith(cmd, f, &opts.Home, opts, runF, runInspectTrace)
		},
	}
	fl := traceCmd.Flags()
	fl.BoolVar(&opts.JSON, "json", false, "the whole timeline, one event per line (with --analyze: the report as JSON)")
	fl.BoolVar(&opts.Analyze, "analyze", false, "summary: calls, tokens, re-reads, shell and test runs, phases, cost")
	fl.BoolVar(&opts.Transcript, "transcript", false, "the session as plain text")
	fl.BoolVar(&opts.Web, "web", false, "serve a read-only page of the session until Ctrl-C")
	fl.StringVar(&opts.Addr, "addr", "127.0.0.1:0", "address for --web (port 0 picks a free one)")
	cmd.AddCommand(traceCmd)
	return cmd
}

// check refuses flag combinations that mean nothing.
func (o *InspectOptions) check(addrSet bool) error {
	n := 0
	for _, b := range []bool{o.Analyze, o.Transcript, o.Web} {
		if b {
			n++
		}
	}
	switch {
	case n > 1:
		return usageErrorf("choose one of --analyze, --transcript and --web")
	case o.JSON && (o.Transcript || o.Web):
		return usageErrorf("--json goes with the timeline (no flag) or with --analyze, not with --transcript or --web")
	case addrSet && !o.Web:
		return usageErrorf("--addr is for --web")
	}
	return nil
}

// openStore opens the store under home, creating nothing where there was
// no database yet: the error then says so, and hint.
func openStore(ctx context.Context, home, hint string) (*store.Store, error) {
	if _, err := os.Stat(wiring.DBPath(home)); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no sessions recorded in %s yet (set GODWIT_HOME to look elsewhere); %s", home, hint)
	}
	return store.Open(ctx, wiring.DBPath(home))
}

// openSession opens the store and finds a session by id, prefix or
// "last", the last of workspace (see resolveSession).
func openSession(ctx context.Context, home, id, workspace string) (*store.Store, store.Session, error) {
	st, err := openStore(ctx, home, "try `godwit demo`")
	if err != nil {
		return nil, store.Session{}, err
	}
	sess, err := resolveSession(ctx, st, id, workspace)
	if err != nil {
		st.Close()
		return nil, store.Session{}, err
	}
	return st, sess, nil
}

func runInspectTrace(ctx context.Context, opts *InspectOptions) error {
	st, sess, err := openSession(ctx, opts.Home, opts.Session, workspaceRoot(opts.Workdir))
	if err != nil {
		return err
	}
	defer st.Close()
	if opts.Web {
		return serveTrace(ctx, opts, st, sess)
	}
	if !opts.Analyze && !opts.Transcript {
		return writeTimeline(ctx, opts, st, sess)
	}
	if opts.Transcript {
		t, err := trace.Load(ctx, st, sess.ID)
		if err != nil {
			return err
		}
		return trace.WriteTranscript(opts.IO.Out, t)
	}
	t, err := trace.LoadUnordered(ctx, st, sess.ID)
	if err != nil {
		return err
	}
	if opts.JSON {
		return trace.Analyze(t).WriteJSON(opts.IO.Out)
	}
	return trace.Analyze(t).WriteText(shown(opts.IO.Out, opts.IO.OutTTY))
}

func writeTimeline(ctx context.Context, opts *InspectOptions, st *store.Store, sess store.Session) error {
	events, err := st.Events(ctx, sess.ID)
	if err != nil {
		return err
	}
	if opts.JSON {
		for _, e := range events {
			if _, err := fmt.Fprintf(opts.IO.Out, "%s\n", e.Data); err != nil {
				return err
			}
		}
		return nil
	}
	fmt.Fprintf(shown(opts.IO.Out, opts.IO.OutTTY), "session %s  %s\n%s  %s\n\n", sess.ID, sess.Title, sess.Workspace, sess.Model)
	var start time.Time
	args := map[string]string{} // call id -> arguments, from tool.started
	for _, row := range events {
		var e agent.Event
		if err := json.Unmarshal(row.Data, &e); err != nil {
			return fmt.Errorf("event %d of session %s does not decode (%w); `--json` prints it as stored", row.ID, sess.ID, err)
		}
		if e.Time.IsZero() { // undo's event carries no time of its own
			e.Time = row.Time
		}
		if start.IsZero() {
			start = e.Time
		}
		if e.Type == agent.EventToolStarted && e.Tool != nil {
			args[e.Tool.CallID] = e.Tool.Args
		}
		if e.Type == agent.EventToolFinished && e.Tool != nil && e.Tool.Args == "" {
			e.Tool.Args = args[e.Tool.CallID]
		}
		if line := timelineLine(e); line != "" {
			fmt.Fprintf(shown(opts.IO.Out, opts.IO.OutTTY), "%8s  %s\n", e.Time.Sub(start).Round(time.Millisecond), line)
		}
	}
	return nil
}

// serveTrace serves the session's page until ctx ends (Ctrl-C).
func serveTrace(ctx context.Context, opts *InspectOptions, st *store.Store, sess store.Session) error {
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w; pick another --addr", opts.Addr, err)
	}
	h, path := trace.Handler(st, sess.ID)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	url := "http://" + ln.Addr().String() + path
	fmt.Fprintf(opts.IO.Out, "trace of session %s at %s\n", sess.ID, url)
	fmt.Fprintln(opts.IO.ErrOut, "serving until Ctrl-C")
	if host, _, _ := net.SplitHostPort(ln.Addr().String()); !net.ParseIP(host).IsLoopback() {
		fmt.Fprintf(opts.IO.ErrOut, "warning: %s is reachable from other machines; the page shows the whole session\n", ln.Addr())
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	if opts.Ready != nil {
		opts.Ready(url)
	}
	select {
	case err := <-done:
		return fmt.Errorf("serving the trace page: %w", err)
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		srv.Close()
	}
	return nil
}

// timelineLine renders one event as a line of the human timeline; ""
// skips it.
func timelineLine(e agent.Event) string {
	if line := mailLine(e) + noticeLine(e); line != "" {
		return "  " + line
	}
	switch e.Type {
	case agent.EventTurnStarted:
		if e.Prompt == "" {
			return fmt.Sprintf("turn %d: mail", e.Turn)
		}
		return fmt.Sprintf("turn %d: %s", e.Turn, firstLine(e.Prompt, 100))
	case agent.EventModelRequest:
		if e.Request == nil {
			return ""
		}
		s := fmt.Sprintf("  → model %s: %d messages, %d bytes", e.Request.Model, e.Request.Messages, e.Request.Bytes)
		if e.Request.Purpose != "" {
			s += " (" + e.Request.Purpose + ")"
		}
		return s
	case agent.EventModelResponse:
		r := e.Response
		if r == nil {
			return ""
		}
		s := fmt.Sprintf("  ← %d in (%d cached), %d out, %d tool calls, %dms, $%.4f", r.Usage.InputTokens, r.Usage.CacheReadTokens, r.Usage.OutputTokens, r.ToolCalls, r.LatencyMS, r.Cost)
		if r.Error != "" {
			s += ", error: " + cleanText(r.Error)
		}
		return s
	case agent.EventToolFinished:
		t := e.Tool
		if t == nil {
			return ""
		}
		status := "ok"
		if t.IsError {
			status = t.Code
		} else if t.ExitCode != nil {
			status = fmt.Sprintf("exit %d", *t.ExitCode)
		}
		what := t.Summary
		if what == "" {
			what = strings.Join(strings.Fields(t.Args), " ")
		}
		return fmt.Sprintf("    %s %s: %s (%dms)", t.Name, firstLine(what, 80), status, t.DurationMS)
	case agent.EventError:
		return "  error: " + firstLine(cleanText(e.Text), 160)
	case store.EventUndo:
		return "undo: " + firstLine(cleanText(e.Text), 160)
	case agent.EventTurnFinished:
		f := e.Finished
		if f == nil {
			return ""
		}
		steps := fmt.Sprintf("%d steps", f.Steps)
		if f.Steps == 1 {
			steps = "1 step"
		}
		s := fmt.Sprintf("turn %d %s: %s, %d in, %d out, $%.4f", e.Turn, f.Status, steps, f.Usage.InputTokens, f.Usage.OutputTokens, f.Cost)
		if f.Error != "" {
			s += "\n          " + cleanText(f.Error)
		}
		return s
	}
	return ""
}
