package mail

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
)

// toolName is send_message's model-facing name.
const toolName = "send_message"

// Tool wait bounds.
const (
	DefaultToolWait = 10 * time.Minute
	MaxToolWait     = time.Hour
)

// The spec is model-facing: TestToolSpecSize pins its size.
var toolSpec = llm.ToolSpec{
	Name: toolName,
	Description: "Message another godwit session of this workspace; it answers in its own turn, under its own permissions. " +
		"Returns the message id; wait:true blocks for the answer. action wait, receipts or ack take an id (ack releases your later messages, held after a failed one).",
	Schema: json.RawMessage(`{"type":"object","properties":{` +
		`"to":{"type":"string","description":"Session id or unique prefix"},` +
		`"text":{"type":"string"},` +
		`"wait":{"type":"boolean"},` +
		`"action":{"type":"string","enum":["send","wait","receipts","ack"]},` +
		`"id":{"type":"string","description":"Message id, e.g. m12"},` +
		`"timeout_s":{"type":"integer"}}}`),
}

// ToolOptions configure the send_message tool.
type ToolOptions struct {
	Store *store.Store
	// Workspace is the sending engine's root: sessions of the same
	// workspace may be messaged.
	Workspace string
	// Allow lists more workspaces (absolute paths) whose sessions may be
	// messaged, or session ids; "*" allows every session (config
	// mail.allow).
	Allow []string
	// Poll is the wait's wake-up interval; 0 means DefaultPoll.
	Poll time.Duration
}

// Tool is send_message: the model's side of mail.
type Tool struct{ opts ToolOptions }

// NewTool returns send_message.
func NewTool(opts ToolOptions) *Tool { return &Tool{opts: opts} }

type toolArgs struct {
	To       string `json:"to"`
	Text     string `json:"text"`
	Wait     bool   `json:"wait"`
	Action   string `json:"action"`
	ID       string `json:"id"`
	TimeoutS int    `json:"timeout_s"`
}

func parseArgs(raw json.RawMessage) (toolArgs, error) {
	var a toolArgs
	if err := json.Unmarshal(llm.ArgsOrEmpty(raw), &a); err != nil {
		return a, tool.Errorf(tool.CodeBadArgs, `Send {"to": "<session id>", "text": "..."}, or {"action": "wait", "id": "m12"}.`, "send_message: %v", err)
	}
	a.Action = strings.ToLower(strings.TrimSpace(a.Action))
	if a.Action == "" {
		a.Action = "send"
	}
	switch a.Action {
	case "send":
		if strings.TrimSpace(a.To) == "" || strings.TrimSpace(a.Text) == "" {
			return a, tool.Errorf(tool.CodeBadArgs, `Send {"to": "<session id>", "text": "..."}; `+"`godwit sessions` lists the ids the user can give you.", "send_message needs to and text")
		}
	case "wait", "ack":
		if a.ID == "" {
			return a, tool.Errorf(tool.CodeBadArgs, `Pass the id send returned: {"action": "`+a.Action+`", "id": "m12"}.`, "send_message %s needs an id", a.Action)
		}
	case "receipts":
	default:
		return a, tool.Errorf(tool.CodeBadArgs, "Use action send, wait, receipts or ack.", "unknown action %q", a.Action)
	}
	return a, nil
}

// Name implements tool.Tool.
func (*Tool) Name() string { return toolName }

// Spec implements tool.Tool.
func (*Tool) Spec() llm.ToolSpec { return toolSpec }

// Access implements tool.Accessor. Sending makes another session work,
// so it is put to the sender's approval policy like a write: a read-only
// session cannot get a session allowed to write to do its writing.
// Waiting and reading receipts change nothing.
func (t *Tool) Access(raw json.RawMessage) (tool.Access, error) {
	a, err := parseArgs(raw)
	if err != nil {
		return tool.Access{}, err
	}
	if a.Action != "send" {
		return tool.Access{Summary: "mail " + a.Action + " " + a.ID}, nil
	}
	return tool.Access{Mutates: true, Summary: "message session " + a.To + ": " + firstLine(a.Text, 80), Preview: a.Text}, nil
}

// Run implements tool.Tool.
func (t *Tool) Run(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	a, err := parseArgs(raw)
	if err != nil {
		return tool.Result{}, err
	}
	sess, ok := tool.SessionFrom(ctx)
	if !ok || sess.ID == "" {
		return tool.Result{}, tool.Fatal(errors.New("send_message: no session in the call's context"))
	}
	st := t.opts.Store
	switch a.Action {
	case "receipts":
		return t.receipts(ctx, sess.ID, a.ID)
	case "ack":
		m, err := t.own(ctx, sess.ID, a.ID)
		if err != nil {
			return tool.Result{}, err
		}
		if _, err := Ack(ctx, st, m.ID, "session "+sess.ID); err != nil {
			return tool.Result{}, tool.Errorf(tool.CodeFailed, "Check its state with action receipts.", "%v", err)
		}
		return tool.Result{Content: fmt.Sprintf("%s acknowledged: your later messages to %s may be delivered now.", ID(m.ID), m.To)}, nil
	case "wait":
		m, err := t.own(ctx, sess.ID, a.ID)
		if err != nil {
			return tool.Result{}, err
		}
		if w, ok := t.answering(ctx, sess, m.To); ok {
			return tool.Result{Content: deadlock(ID(m.ID), m.To, w)}, nil
		}
		return t.wait(ctx, m.ID, a.TimeoutS)
	}
	// Resolve looks in every workspace: what "last" or a prefix finds in
	// another, and the ids an ambiguous prefix lists, are not the model's
	// to learn; an id it typed whole it knows already.
	target, err := resolve(ctx, st, a.To)
	if err == nil && !t.allowed(target) && target.ID == strings.TrimSpace(a.To) {
		return tool.Result{}, tool.Errorf(tool.CodeDenied, "Message sessions of this workspace only; the user can allow others with mail.allow in config.yaml.",
			"session %s works in another workspace", target.ID) // whose path is not the model's to learn
	}
	if err != nil || !t.allowed(target) {
		return tool.Result{}, tool.Errorf(tool.CodeNotFound, "Ask the user for the session's whole id (`godwit sessions` lists them).",
			"no session %q that this session may message", a.To)
	}
	p, err := Post(ctx, st, FromSession(sess.ID), target.ID, a.Text)
	if err != nil {
		return tool.Result{}, tool.Errorf(tool.CodeFailed, "", "%s", strings.TrimPrefix(err.Error(), "mail: "))
	}
	id := ID(p.Mail.ID)
	if p.HeldBy != nil {
		return tool.Result{Content: fmt.Sprintf("%s is queued for %s but held: your %s to it failed (%s). Acknowledge that with {\"action\": \"ack\", \"id\": %q} to let %s run.",
			id, target.ID, ID(p.HeldBy.ID), firstLine(p.HeldBy.Error, 200), ID(p.HeldBy.ID), id)}, nil
	}
	if w, ok := t.answering(ctx, sess, target.ID); ok && a.Wait {
		return tool.Result{Content: id + " queued. " + deadlock(id, target.ID, w)}, nil
	}
	if !a.Wait {
		note := ""
		if r, ok, _ := st.ResidentOf(ctx, target.ID); !ok || !Alive(r.Owner) {
			note = " No process keeps that session open now: it answers at its next run, chat or serve."
		}
		return tool.Result{Content: fmt.Sprintf("%s queued for session %s.%s Get the answer with {\"action\": \"wait\", \"id\": %q}.", id, target.ID, note, id)}, nil
	}
	return t.wait(ctx, p.Mail.ID, a.TimeoutS)
}

// wait blocks for the answer of one of the session's messages.
func (t *Tool) wait(ctx context.Context, id int64, timeoutS int) (tool.Result, error) {
	d := time.Duration(timeoutS) * time.Second
	switch {
	case d <= 0:
		d = DefaultToolWait
	case d > MaxToolWait:
		d = MaxToolWait
	}
	m, err := Await(ctx, t.opts.Store, id, AwaitOptions{FollowOptions: FollowOptions{Poll: t.opts.Poll}, Timeout: d})
	switch {
	case err == nil:
		return tool.Result{Content: fmt.Sprintf("%s answered by session %s (its turn %d):\n%s", ID(id), m.To, m.Turn, m.Answer)}, nil
	case errors.Is(err, ErrTimeout):
		return tool.Result{Content: fmt.Sprintf("%s is still %s after %s; wait again later with the same id.", ID(id), m.State, d)}, nil
	case m.State == store.MailFailed:
		return tool.Result{Content: fmt.Sprintf("%s failed in session %s: %s\nYour later messages to it are held until you acknowledge: {\"action\": \"ack\", \"id\": %q}.", ID(id), m.To, m.Error, ID(id))}, nil
	case errors.Is(err, ErrHeld), m.State == store.MailExpired:
		return tool.Result{Content: strings.TrimPrefix(err.Error(), "mail: ")}, nil
	}
	return tool.Result{}, err
}

// answering returns the message from session target that this turn is
// answering, if there is one: target may be blocked waiting for this
// turn's answer, so waiting on target now would deadlock both.
func (t *Tool) answering(ctx context.Context, sess tool.Session, target string) (store.Mail, bool) {
	if sess.TurnID == 0 {
		return store.Mail{}, false
	}
	ms, err := t.opts.Store.MailOfTurn(ctx, sess.TurnID)
	if err != nil {
		return store.Mail{}, false
	}
	for _, m := range ms {
		if m.FromKind == store.FromSession && m.From == target {
			return m, true
		}
	}
	return store.Mail{}, false
}

func deadlock(id, target string, w store.Mail) string {
	return fmt.Sprintf("Not waiting: this turn answers %s from session %s, which may be waiting for that answer, so waiting on it would deadlock. "+
		"Put what you need in your reply; %s answers %s in its next turn, and you can wait for it in a later turn.", ID(w.ID), target, target, id)
}

// own finds one of the session's sent messages.
func (t *Tool) own(ctx context.Context, session, ref string) (store.Mail, error) {
	id, err := ParseID(ref)
	if err != nil {
		return store.Mail{}, tool.Errorf(tool.CodeBadArgs, "Pass the id send returned, e.g. m12.", "%s", strings.TrimPrefix(err.Error(), "mail: "))
	}
	m, err := t.opts.Store.MailByID(ctx, id)
	if err != nil || m.FromKind != store.FromSession || m.From != session {
		return store.Mail{}, tool.Errorf(tool.CodeNotFound, `List yours with {"action": "receipts"}.`, "no message %s sent by this session", ID(id))
	}
	return m, nil
}

// receipts lists the session's recent messages, or one message's
// receipts.
func (t *Tool) receipts(ctx context.Context, session, ref string) (tool.Result, error) {
	var b strings.Builder
	if ref != "" {
		m, err := t.own(ctx, session, ref)
		if err != nil {
			return tool.Result{}, err
		}
		rs, err := t.opts.Store.Receipts(ctx, m.ID)
		if err != nil {
			return tool.Result{}, err
		}
		fmt.Fprintf(&b, "%s to %s: %s\n", ID(m.ID), m.To, m.State)
		for _, r := range rs {
			fmt.Fprintf(&b, "- %s %s%s%s\n", r.At.Format(time.TimeOnly), r.State, turnNote(r.Turn), noteText(r.Note))
		}
		return tool.Result{Content: strings.TrimRight(b.String(), "\n")}, nil
	}
	ms, err := t.opts.Store.Mailbox(ctx, session, 40)
	if err != nil {
		return tool.Result{}, err
	}
	for _, m := range ms {
		if m.FromKind != store.FromSession || m.From != session {
			continue
		}
		fmt.Fprintf(&b, "%s to %s: %s%s: %s\n", ID(m.ID), m.To, m.State, turnNote(m.Turn), firstLine(m.Body, 60))
	}
	if b.Len() == 0 {
		return tool.Result{Content: "This session has sent no messages."}, nil
	}
	return tool.Result{Content: strings.TrimRight(b.String(), "\n")}, nil
}

// allowed reports whether the tool may message target.
func (t *Tool) allowed(target store.Session) bool {
	if samePath(target.Workspace, t.opts.Workspace) {
		return true
	}
	for _, a := range t.opts.Allow {
		if a == "*" || a == target.ID || samePath(a, target.Workspace) {
			return true
		}
	}
	return false
}

func samePath(a, b string) bool {
	return a != "" && b != "" && filepath.Clean(a) == filepath.Clean(b)
}

func turnNote(turn int) string {
	if turn == 0 {
		return ""
	}
	return fmt.Sprintf(" (turn %d)", turn)
}

func noteText(n string) string {
	if n == "" {
		return ""
	}
	return ": " + firstLine(n, 200)
}

func firstLine(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if len(s) > n {
		s = strings.ToValidUTF8(s[:n], "") + "…"
	}
	return s
}
