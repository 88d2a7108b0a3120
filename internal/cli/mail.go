package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/godwit/godwit/internal/acp"
	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/mail"
	"github.com/godwit/godwit/internal/store"
)

// MailOptions are the inputs of `godwit mail`.
type MailOptions struct {
	IO   *IOStreams
	Home string
	// Ref is a session (id, prefix, last), a message id (m12), or "".
	Ref   string
	Limit int
	JSON  bool
}

// NewCmdMail builds `godwit mail`.
func NewCmdMail(f *Factory) *cobra.Command {
	opts := &MailOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "mail [SESSION|ID]",
		Short: "List messages between sessions, with their state and receipts",
		Long: `List messages, newest first: those to or from SESSION (an id, a prefix, or
last), or every session's. Given a message id (m12), show that message whole:
its text, its answer or error, and every receipt.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Ref = args[0]
			}
			return runWith(cmd, f, &opts.Home, opts, nil, runMail)
		},
	}
	cmd.Flags().IntVarP(&opts.Limit, "limit", "n", 30, "how many messages")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "one JSON object per message, with its receipts")
	return cmd
}

func runMail(ctx context.Context, opts *MailOptions) error {
	st, err := openStore(ctx, opts.Home, "start one with `godwit serve --new`")
	if err != nil {
		return err
	}
	defer st.Close()
	// Session ids never start with m (they start with the creation time).
	if id, err := mail.ParseID(opts.Ref); err == nil && strings.HasPrefix(strings.ToLower(opts.Ref), "m") {
		m, err := st.MailByID(ctx, id)
		if err != nil {
			return err
		}
		if opts.JSON {
			return writeMailJSON(ctx, opts.IO.Out, st, m)
		}
		return writeMessage(ctx, shown(opts.IO.Out, opts.IO.OutTTY), st, m)
	}
	session := ""
	if opts.Ref != "" {
		s, err := resolveSession(ctx, st, opts.Ref, "")
		if err != nil {
			return err
		}
		session = s.ID
	}
	ms, err := st.Mailbox(ctx, session, opts.Limit)
	if err != nil {
		return err
	}
	if opts.JSON {
		for _, m := range ms {
			if err := writeMailJSON(ctx, opts.IO.Out, st, m); err != nil {
				return err
			}
		}
		return nil
	}
	if len(ms) == 0 {
		fmt.Fprintln(opts.IO.ErrOut, "no messages yet; send one with `godwit send SESSION TEXT`")
		return nil
	}
	w := shown(opts.IO.Out, opts.IO.OutTTY) // bodies and answers are other sessions' and models' words
	fmt.Fprintf(w, "%-7s %-26s %-20s %-10s %5s %-8s %s\n", "ID", "FROM", "TO", "STATE", "TURN", "AT", "TEXT")
	for _, m := range ms {
		state := string(m.State)
		if m.State == store.MailFailed && !m.AckedAt.IsZero() {
			state += "*" // acknowledged
		}
		if h, ok, _ := st.HeldBy(ctx, m); ok && m.State == store.MailQueued {
			state = "held:" + mail.ID(h.ID)
		}
		turn := "-"
		if m.Turn > 0 {
			turn = fmt.Sprint(m.Turn)
		}
		fmt.Fprintf(w, "%-7s %-26s %-20s %-10s %5s %-8s %s\n", mail.ID(m.ID), firstLine(mail.Label(m.FromKind, m.From), 26),
			m.To, state, turn, m.CreatedAt.Local().Format(time.TimeOnly), firstLine(m.Body, 60))
	}
	return nil
}

// writeMessage shows one message whole.
func writeMessage(ctx context.Context, w io.Writer, st *store.Store, m store.Mail) error {
	fmt.Fprintf(w, "%s from %s to session %s: %s%s\n", mail.ID(m.ID), mail.Label(m.FromKind, m.From), m.To, m.State, turnOf(m.Turn))
	if m.State == store.MailQueued {
		if h, ok, _ := st.HeldBy(ctx, m); ok {
			fmt.Fprintf(w, "held until %s's failure is acknowledged: godwit send --ack %s\n", mail.ID(h.ID), mail.ID(h.ID))
		}
	}
	fmt.Fprintf(w, "\n%s\n", strings.TrimRight(m.Body, "\n"))
	if m.Answer != "" {
		fmt.Fprintf(w, "\nanswer:\n%s\n", strings.TrimRight(m.Answer, "\n"))
	}
	if m.Error != "" {
		fmt.Fprintf(w, "\nerror: %s\n", m.Error)
	}
	rs, err := st.Receipts(ctx, m.ID)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "\nreceipts:")
	for _, r := range rs {
		fmt.Fprintf(w, "  %s  %s%s%s\n", r.At.Local().Format("2006-01-02 15:04:05.000"), r.State, turnOf(r.Turn), noteOf(r.Note))
	}
	return nil
}

// residentAlive reports whether a live process keeps the session open.
func residentAlive(ctx context.Context, st *store.Store, session string) bool {
	r, ok, err := st.ResidentOf(ctx, session)
	return err == nil && ok && mail.Alive(r.Owner)
}

// openRunMail holds a resumed session (its full id) for one `godwit run`
// and claims the mail waiting for it, which the turn answers with the
// prompt. It refuses a session another live process keeps open.
func openRunMail(ctx context.Context, st *store.Store, session string) (*mail.Box, []store.Mail, error) {
	box, err := mail.Open(ctx, st, session, mail.Options{Command: "run"})
	if err != nil {
		return nil, nil, err
	}
	if ok, err := st.Claimable(ctx, session); err != nil || !ok {
		return box, nil, err
	}
	ms, err := box.Claim(ctx)
	return box, ms, err
}

// mailLine renders a mail event as one line of a timeline or a log; ""
// for other events.
func mailLine(e agent.Event) string {
	m := e.Mail
	if m == nil || !strings.HasPrefix(e.Type, "mail.") {
		return ""
	}
	id := mail.ID(m.ID)
	from := mail.Label(store.SenderKind(m.FromKind), m.From)
	outgoing := m.FromKind == string(store.FromSession) && m.From == e.SessionID
	switch e.Type {
	case agent.EventMailSent:
		if outgoing {
			return fmt.Sprintf("✉ sent %s to session %s: %s", id, m.To, firstLine(m.Text, 80))
		}
		return fmt.Sprintf("✉ %s queued from %s: %s", id, from, firstLine(m.Text, 80))
	case agent.EventMailDelivered:
		if outgoing {
			return fmt.Sprintf("✉ %s delivered to session %s (its turn %d)", id, m.To, m.Turn)
		}
		return fmt.Sprintf("✉ %s from %s, in turn %d: %s", id, from, m.Turn, firstLine(m.Text, 80))
	case agent.EventMailAnswered:
		if outgoing {
			return fmt.Sprintf("✉ %s answered by session %s: %s", id, m.To, firstLine(m.Answer, 80))
		}
		return fmt.Sprintf("✉ %s answered to %s (turn %d)", id, from, m.Turn)
	case agent.EventMailFailed:
		return fmt.Sprintf("✉ %s failed: %s", id, firstLine(m.Error, 120))
	case agent.EventMailExpired:
		return fmt.Sprintf("✉ %s expired: %s", id, firstLine(m.Error, 120))
	case agent.EventMailRequeued:
		return fmt.Sprintf("✉ %s queued again: its claimer ended before the turn", id)
	case agent.EventMailAcked:
		return fmt.Sprintf("✉ %s's failure acknowledged; %s's later messages may run", id, from)
	}
	return ""
}

// mailLog writes mail events as lines (serve's log, the plain chat).
type mailLog struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *mailLog) Emit(e agent.Event) {
	if line := mailLine(e); line != "" {
		l.mu.Lock()
		defer l.mu.Unlock()
		fmt.Fprintln(l.w, line)
	}
}

// mailColumns are the sessions list's MAIL (messages queued) and
// RESIDENT (what keeps the session open, if it still runs) columns.
func mailColumns(s store.SessionSummary) (queued, resident string) {
	queued, resident = "-", "-"
	if s.Queued > 0 {
		queued = fmt.Sprint(s.Queued)
	}
	if s.ResidentOwner != "" && mail.Alive(s.ResidentOwner) {
		resident = s.ResidentCommand
	}
	return queued, resident
}

// openACPMail makes an editor's session its resident.
func openACPMail(ctx context.Context, st *store.Store, id string) (acp.Mailbox, error) {
	b, err := mail.Open(ctx, st, id, mail.Options{Command: "acp"})
	if err != nil {
		return nil, err
	}
	return b, nil
}
