package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/godwit/godwit/internal/mail"
	"github.com/godwit/godwit/internal/store"
)

// SendOptions are the inputs of `godwit send`.
type SendOptions struct {
	IO      *IOStreams
	Home    string
	Session string
	// Workspace is where "last" looks (this workspace's last session).
	Workspace string
	Text      string
	// From names the sending program; "" sends as the user.
	From    string
	Wait    bool
	Timeout time.Duration
	JSON    bool
	// Ack acknowledges the failure of this message instead of sending.
	Ack string
}

// NewCmdSend builds `godwit send`.
func NewCmdSend(f *Factory) *cobra.Command {
	opts := &SendOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "send SESSION TEXT|- [--from NAME] [--wait [--timeout D]] [--json]\n  godwit send --ack ID",
		Short: "Send a message to a session; with --wait, print its answer",
		Long: `Queue a message for a session (an id, a unique prefix, or last: this
workspace's last) and print its id. The session answers in its own turn: at once when a process keeps it open
(godwit serve, a chat, an editor), else at its next run or chat. Messages that
arrive during a turn are answered together in the next one.

--from NAME sends as a named program rather than as you. --wait blocks until
the answer (printed, exit 0) or the failure (printed, exit 1); --timeout D
gives up after D, and a message still queued then expires, so it never runs
after nobody waits for it. --json prints the message and its receipts.

When a message's turn fails, the same sender's later messages to that session
wait until the failure is acknowledged: godwit send --ack ID.

Exit status: 0 sent (or answered), 1 failed, expired or timed out, 2 bad usage.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Ack != "" {
				if len(args) > 0 || opts.Wait || opts.From != "" {
					return usageErrorf("--ack ID takes no session, text, --wait or --from: godwit send --ack m12")
				}
				return runWith(cmd, f, &opts.Home, opts, nil, runAck)
			}
			if len(args) < 2 {
				return usageErrorf("usage: godwit send SESSION TEXT (or - to read the text from stdin); `godwit sessions` lists the sessions")
			}
			if opts.Timeout != 0 && !opts.Wait {
				return usageErrorf("--timeout goes with --wait")
			}
			if opts.Timeout < 0 {
				return usageErrorf("--timeout must be positive, e.g. 5m")
			}
			opts.Session, opts.Text, opts.Workspace = args[0], strings.Join(args[1:], " "), f.Workdir
			if opts.Text == "-" {
				b, err := io.ReadAll(opts.IO.In)
				if err != nil {
					return fmt.Errorf("reading the message from stdin: %w", err)
				}
				opts.Text = string(b)
			}
			if strings.TrimSpace(opts.Text) == "" {
				return usageErrorf("empty message: say what the session should do")
			}
			return runWith(cmd, f, &opts.Home, opts, nil, runSend)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.From, "from", "", "send as the named program (letters, digits, - _ .), not as you")
	fl.BoolVar(&opts.Wait, "wait", false, "wait for the answer and print it")
	fl.DurationVar(&opts.Timeout, "timeout", 0, "with --wait: give up after this long (e.g. 10m); a message still queued expires")
	fl.BoolVar(&opts.JSON, "json", false, "print the message and its receipts as JSON")
	fl.StringVar(&opts.Ack, "ack", "", "acknowledge the failure of message ID, releasing the sender's later messages")
	return cmd
}

func runSend(ctx context.Context, opts *SendOptions) error {
	st, err := openStore(ctx, opts.Home, "start one with `godwit serve --new`")
	if err != nil {
		return err
	}
	defer st.Close()
	from := mail.User()
	if opts.From != "" {
		from = mail.Program(opts.From)
	}
	to := opts.Session
	if to == "last" {
		// This workspace's, as -c and undo last mean it.
		sess, err := resolveSession(ctx, st, to, workspaceRoot(opts.Workspace))
		if err != nil {
			return err
		}
		to = sess.ID
	}
	p, err := mail.Post(ctx, st, from, to, opts.Text)
	if err != nil {
		return err
	}
	id := mail.ID(p.Mail.ID)
	switch {
	case p.HeldBy != nil:
		fmt.Fprintf(opts.IO.ErrOut, "%s is held: %s from %s to this session failed and is not acknowledged (%s); `godwit send --ack %s` lets it run\n",
			id, mail.ID(p.HeldBy.ID), mail.Label(from.Kind, from.Name), firstLine(p.HeldBy.Error, 160), mail.ID(p.HeldBy.ID))
	case !residentAlive(ctx, st, p.Mail.To):
		fmt.Fprintf(opts.IO.ErrOut, "no process keeps session %s open now: it answers at its next run or chat, or when `godwit serve %s` runs\n", p.Mail.To, p.Mail.To)
	}
	if !opts.Wait {
		if opts.JSON {
			return writeMailJSON(ctx, opts.IO.Out, st, p.Mail)
		}
		fmt.Fprintln(opts.IO.Out, id)
		return nil
	}
	if !opts.JSON {
		fmt.Fprintf(opts.IO.ErrOut, "%s queued for %s; waiting for the answer (Ctrl-C stops waiting; the message stays)\n", id, p.Mail.To)
	}
	m, err := mail.Await(ctx, st, p.Mail.ID, mail.AwaitOptions{Timeout: opts.Timeout, Expire: true, OnReceipt: func(r store.Receipt) {
		if !opts.JSON && r.State != string(store.MailQueued) && !store.MailState(r.State).Final() {
			fmt.Fprintf(opts.IO.ErrOut, "%s %s%s%s\n", id, r.State, turnOf(r.Turn), noteOf(r.Note))
		}
	}})
	if opts.JSON {
		if jerr := writeMailJSON(context.WithoutCancel(ctx), opts.IO.Out, st, m); jerr != nil {
			return jerr
		}
		if err != nil {
			fmt.Fprintln(opts.IO.ErrOut, "godwit:", userMessage(err))
			return errSilent
		}
		return nil
	}
	switch {
	case err == nil:
		fmt.Fprintln(shown(opts.IO.Out, opts.IO.OutTTY), strings.TrimRight(m.Answer, "\n"))
		return nil
	case ctx.Err() != nil:
		fmt.Fprintf(opts.IO.ErrOut, "stopped waiting; %s is %s: `godwit mail %s` shows its answer when it comes\n", id, m.State, id)
		return errSilent
	}
	return err
}

func runAck(ctx context.Context, opts *SendOptions) error {
	id, err := mail.ParseID(opts.Ack)
	if err != nil {
		return &UsageError{Err: err}
	}
	st, err := openStore(ctx, opts.Home, "start one with `godwit serve --new`")
	if err != nil {
		return err
	}
	defer st.Close()
	m, err := mail.Ack(ctx, st, id, "user")
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeMailJSON(ctx, opts.IO.Out, st, m)
	}
	fmt.Fprintf(opts.IO.Out, "%s acknowledged: later messages from %s to %s may be delivered now\n", mail.ID(id), mail.Label(m.FromKind, m.From), m.To)
	return nil
}

// mailJSON is a message as `send --json` and `mail --json` print it.
type mailJSON struct {
	ID        string        `json:"id"`
	To        string        `json:"to"`
	FromKind  string        `json:"from_kind"`
	From      string        `json:"from"`
	State     string        `json:"state"`
	Turn      int           `json:"turn,omitempty"`
	Text      string        `json:"text"`
	Answer    string        `json:"answer,omitempty"`
	Error     string        `json:"error,omitempty"`
	Created   time.Time     `json:"created"`
	Acked     bool          `json:"acknowledged,omitempty"`
	Receipts  []receiptJSON `json:"receipts,omitempty"`
	HeldBy    string        `json:"held_by,omitempty"`
	ClaimedBy string        `json:"claimed_by,omitempty"`
}

type receiptJSON struct {
	State string    `json:"state"`
	At    time.Time `json:"at"`
	Turn  int       `json:"turn,omitempty"`
	Note  string    `json:"note,omitempty"`
}

func toJSON(ctx context.Context, st *store.Store, m store.Mail) (mailJSON, error) {
	out := mailJSON{ID: mail.ID(m.ID), To: m.To, FromKind: string(m.FromKind), From: m.From, State: string(m.State), Turn: m.Turn,
		Text: m.Body, Answer: m.Answer, Error: m.Error, Created: m.CreatedAt, Acked: !m.AckedAt.IsZero(), ClaimedBy: m.ClaimedBy}
	rs, err := st.Receipts(ctx, m.ID)
	if err != nil {
		return out, err
	}
	for _, r := range rs {
		out.Receipts = append(out.Receipts, receiptJSON{State: r.State, At: r.At, Turn: r.Turn, Note: r.Note})
	}
	if h, ok, err := st.HeldBy(ctx, m); err == nil && ok && m.State == store.MailQueued {
		out.HeldBy = mail.ID(h.ID)
	}
	return out, nil
}

func writeMailJSON(ctx context.Context, w io.Writer, st *store.Store, m store.Mail) error {
	j, err := toJSON(ctx, st, m)
	if err != nil {
		return err
	}
	return json.NewEncoder(w).Encode(j)
}

func turnOf(turn int) string {
	if turn == 0 {
		return ""
	}
	return fmt.Sprintf(" (turn %d)", turn)
}

func noteOf(n string) string {
	if n == "" {
		return ""
	}
	return ": " + firstLine(n, 200)
}
