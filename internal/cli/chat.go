package cli

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/config"
	"github.com/godwit/godwit/internal/mail"
	"github.com/godwit/godwit/internal/policy"
	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/termsafe"
	"github.com/godwit/godwit/internal/tui"
	"github.com/godwit/godwit/internal/wiring"
	"github.com/godwit/godwit/llm"
)

// ChatOptions are the inputs of `godwit chat`.
type ChatOptions struct {
	engineOptions
	// Session continues a stored session: id, unique prefix, or last.
	Session string
	// ModelNamed and ModeNamed: --model, --allow-write or --yes was
	// given; else a resumed session keeps its own model and mode.
	ModelNamed, ModeNamed bool
}

// NewCmdChat builds `godwit chat`. runF replaces the real chat in tests.
func NewCmdChat(f *Factory, runF func(context.Context, *ChatOptions) error) *cobra.Command {
	opts := &ChatOptions{engineOptions: newEngineOptions(f)}
	var engineFlags func() error
	cmd := &cobra.Command{
		Use:   "chat [flags]",
		Short: "Work with godwit in the terminal",
		Long: `Chat with godwit: each message is a turn; the session, its context segments
and its cost carry over from turn to turn. /help lists the commands (/context,
/reset, /clear, /undo, /model, /mode, /cost, /sessions, /resume, /plan,
/export, /init, /quit); :help works too. An unknown /command is not sent to the
model; //text sends "/text", and a first word that is a path (/etc/hosts
explain) is sent as written. !CMD runs a command (its output goes with your
next message); @path attaches a file.

Read-only unless --allow-write (ask before each write or command) or --yes;
/mode or Shift-Tab switches the mode from the next call on.
When stdin or stdout is not a terminal, each input line is a message or a
command, and answers are printed as plain text.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := engineFlags(); err != nil {
				return err
			}
			opts.Workspace = f.Workdir
			fl := cmd.Flags()
			opts.ModelNamed, opts.ModeNamed = fl.Changed("model"), fl.Changed("allow-write") || fl.Changed("yes")
			return runWith(cmd, f, &opts.Home, opts, runF, runChat)
		},
	}
	engineFlags = opts.addFlags(cmd.Flags(), &opts.Session)
	return cmd
}

func runChat(ctx context.Context, opts *ChatOptions) error {
	m, err := opts.model()
	if err != nil && opts.Session != "" {
		if sm := sessionModel(ctx, opts); sm != "" {
			m, err = sm, nil // a resumed session runs on its own model
		}
	}
	if err != nil {
		return err
	}
	opts.Model = m
	if opts.IO.InTTY && opts.IO.OutTTY {
		return chatTerminal(ctx, opts)
	}
	return chatLines(ctx, opts)
}

// sessionModel is the model the session being resumed last ran on; ""
// when it cannot be told.
func sessionModel(ctx context.Context, opts *ChatOptions) string {
	st, sess, err := openSession(ctx, opts.Home, opts.Session, workspaceRoot(opts.Workspace))
	if err != nil {
		return ""
	}
	defer st.Close()
	if model, _ := tui.LastSettings(ctx, st, sess.ID); model != "" {
		return model
	}
	return sess.Model
}

// chatTerminal runs the full-screen chat.
func chatTerminal(ctx context.Context, opts *ChatOptions) error {
	// Log lines written to the terminal would tear the screen: they go to
	// a file instead. Retries and fallbacks show in the transcript anyway.
	logf, err := openChatLog(opts.Home)
	if err != nil {
		return err
	}
	defer logf.Close()
	opts.Logger = slog.New(slog.NewTextHandler(logf, &slog.HandlerOptions{Level: slog.LevelInfo}))

	b := tui.NewBridge()
	mode := tui.NewModeSwitch(policy.ModeFromFlags(opts.AllowWrite, opts.Yes))
	cm, err := openChatMail(ctx, opts)
	if err != nil {
		return err
	}
	defer cm.Close()
	ctl, err := tui.NewController(ctx, tui.Options{Build: chatBuilder(opts, b, b, mode, true), Sink: b, Model: opts.Model, Session: opts.Session, Mode: mode, Mail: cm, Models: chatModels(opts), KeepModel: !opts.ModelNamed, KeepMode: !opts.ModeNamed})
	if err != nil {
		return err
	}
	go cm.watch(ctx, ctl.SessionID, b.Mail)
	hist, err := tui.LoadHistory(filepath.Join(opts.Home, tui.HistoryFile))
	if err != nil {
		opts.Logger.Warn("chat: input history", "err", err)
	}
	runErr := tui.Run(ctx, ctl, b, tui.RunOptions{In: opts.IO.In, Out: opts.IO.Out, History: hist, Version: opts.Version})
	id := ctl.SessionID()
	closeErr := ctl.Close()
	if id != "" {
		fmt.Fprintf(opts.IO.ErrOut, "session %s; go on with: godwit chat --session %s\n", id, id)
	}
	return errors.Join(runErr, closeErr)
}

// ChatLog is the chat's log file under GODWIT_HOME.
const ChatLog = "chat.log"

func openChatLog(home string) (*os.File, error) {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, fmt.Errorf("creating GODWIT_HOME: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(home, ChatLog), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening the chat log: %w", err)
	}
	return f, nil
}

// chatLines reads one message or command a line and prints plain text:
// for pipes, scripts and terminals that are not one.
func chatLines(ctx context.Context, opts *ChatOptions) error {
	lines := readLines(ctx, opts.IO.In)
	var ctl *tui.Controller // set before the first turn; the turns' sink reads it
	out, errOut := shown(opts.IO.Out, opts.IO.OutTTY), safeWriter{opts.IO.ErrOut}
	shown := agent.Sinks(newPlainSink(out, errOut), &mailLog{w: errOut})
	turns := agent.Sinks(shown, agent.SinkFunc(func(e agent.Event) { ctl.Observe(e) }))
	var (
		aheadMu sync.Mutex // the prompter asks on the turn's goroutine
		ahead   []string   // typed while a question came; sent after the turn
	)
	prompter := &linePrompter{lines: func() <-chan line { return lines }, out: opts.IO.ErrOut}
	mode := tui.NewModeSwitch(policy.ModeFromFlags(opts.AllowWrite, opts.Yes))
	if opts.IO.InTTY {
		prompter.typedAhead = func(s string) { aheadMu.Lock(); ahead = append(ahead, s); aheadMu.Unlock() }
		prompter.quiet = policy.AnswerDelay
		prompter.toAsk = func() {
			mode.Set(policy.Ask)
			fmt.Fprintln(opts.IO.ErrOut, "mode: read-only → ask, from this call on")
		}
	}
	next := func() (string, bool) {
		aheadMu.Lock()
		defer aheadMu.Unlock()
		if len(ahead) == 0 {
			return "", false
		}
		s := ahead[0]
		ahead = ahead[1:]
		return s, true
	}
	cm, err := openChatMail(ctx, opts)
	if err != nil {
		return err
	}
	defer cm.Close()
	ctl, err = tui.NewController(ctx, tui.Options{Build: chatBuilder(opts, prompter, shown, mode, opts.IO.InTTY), Sink: turns, Model: opts.Model, Session: opts.Session, Mode: mode, Mail: cm, Models: chatModels(opts), KeepModel: !opts.ModelNamed, KeepMode: !opts.ModeNamed})
	if err != nil {
		return err
	}
	defer ctl.Close()
	if opts.IO.InTTY {
		fmt.Fprintln(opts.IO.ErrOut, ctl.Banner(opts.Version)+"; /help lists the commands")
	}
	for _, n := range ctl.Notices() {
		fmt.Fprintln(opts.IO.ErrOut, "godwit:", n)
	}
	if r := ctl.Resumed(); r != "" {
		fmt.Fprintln(opts.IO.ErrOut, "godwit:", r)
	}
	arrived := make(chan store.Mail, 64)
	go cm.watch(ctx, ctl.SessionID, func(m store.Mail) {
		select {
		case arrived <- m:
		default: // the next mail turn takes it anyway
		}
	})
	for {
		if opts.IO.InTTY {
			fmt.Fprint(opts.IO.ErrOut, "› ")
		}
		var line string
		if l, ok := next(); ok {
			line = strings.TrimSpace(l)
			fmt.Fprintln(opts.IO.ErrOut, termsafe.ExactLine(line))
		} else {
			select {
			case <-ctx.Done():
				return nil
			case l, ok := <-lines:
				if !ok {
					return nil
				}
				line = strings.TrimSpace(l.text)
			case m := <-arrived:
				fmt.Fprintf(errOut, "✉ m%d from %s: %s\n", m.ID, mail.Label(m.FromKind, m.From), firstLine(m.Body, 100))
				if _, err := ctl.Run(ctx, ""); err != nil && ctx.Err() == nil {
					fmt.Fprintln(errOut, "godwit:", err)
				}
				continue
			}
		}
		switch {
		case line == "":
			continue
		case tui.IsCommand(line):
			r, err := ctl.Exec(ctx, line)
			if err != nil {
				fmt.Fprintln(errOut, strings.TrimPrefix(err.Error(), "tui: "))
				continue
			}
			if r.Text != "" {
				fmt.Fprintln(out, r.Text)
			}
			if r.Quit {
				return nil
			}
			continue
		}
		if cmd, ok := strings.CutPrefix(line, "!"); ok && !strings.HasPrefix(cmd, "!") && strings.TrimSpace(cmd) != "" {
			r, err := ctl.Shell(ctx, strings.TrimSpace(cmd))
			if err != nil {
				fmt.Fprintln(errOut, "godwit:", err)
				continue
			}
			fmt.Fprintln(out, strings.TrimRight(r.Output, "\n"))
			continue
		}
		prompt := tui.Unescape(line)
		atts, problems := ctl.Attach(ctx, prompt)
		for _, a := range atts {
			fmt.Fprintln(errOut, "⊕", a.Label)
		}
		for _, p := range problems {
			fmt.Fprintln(errOut, "godwit:", p)
		}
		_, err := ctl.Run(ctx, prompt, atts...)
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil:
			fmt.Fprintln(errOut, "godwit:", err)
		}
	}
}

// chatBuilder builds the chat's engines: their own events go to sink,
// p answers the policy's questions (offer: also a call read-only mode
// refuses), and mode is read at every call (/mode switches it).
func chatBuilder(opts *ChatOptions, p policy.Prompter, sink agent.Sink, mode *tui.ModeSwitch, offer bool) tui.Builder {
	return func(ctx context.Context, model string) (*tui.Engine, error) {
		env, err := wiring.Build(ctx, opts.wiring(cmp.Or(model, opts.Model), wiring.Approval{Live: mode.Get, Prompter: p, Offer: offer}, sink))
		if err != nil {
			return nil, err
		}
		return &tui.Engine{
			Runtime: env.Runtime, Store: env.Store, Model: env.Model, Workspace: env.Workspace,
			ContextWindow: env.Window.Budget().Window, Plan: env.Plan.Steps, SetPlan: env.Plan.Set, Close: env.Close,
			Notices: env.Notices, Exec: userExec(env), Skills: func(ctx context.Context) []tui.Choice {
				var out []tui.Choice
				for _, s := range env.Memory.Skills() {
					out = append(out, tui.Choice{Name: s.Name, Detail: s.Description})
				}
				return out
			},
		}, nil
	}
}

// userExec runs a call the user makes in the chat (!CMD, @path) through
// the session's guard (wiring.Env.RunUserCall).
func userExec(env *wiring.Env) func(context.Context, llm.ToolCall, agent.Sink) (tui.ToolRun, error) {
	return func(ctx context.Context, call llm.ToolCall, sink agent.Sink) (tui.ToolRun, error) {
		o, err := env.RunUserCall(ctx, call, sink)
		r := o.Result
		return tui.ToolRun{Output: r.Content, IsError: r.IsError, Code: r.Code, ExitCode: r.ExitCode}, err
	}
}

// chatModels lists the models of the catalog whose provider's key is set
// (or needs none), for /model to offer.
func chatModels(opts *ChatOptions) func() []tui.Choice {
	return func() []tui.Choice {
		cfg, err := config.Load(opts.Home, opts.Getenv)
		if err != nil {
			return nil
		}
		cat, err := cfg.Catalog()
		if err != nil {
			return nil
		}
		var out []tui.Choice
		for _, m := range cat.Models() {
			p, _ := cat.Provider(m.Provider)
			if m.ID == "" || (keyState(p, opts.Getenv) != "set" && !p.NoKey) {
				continue
			}
			detail := ""
			if m.ContextWindow > 0 {
				detail = "window " + fmtTokens(m.ContextWindow)
			}
			if m.Price.Input > 0 {
				detail += fmt.Sprintf(" · $%g/$%g per M tokens in/out", m.Price.Input, m.Price.Output)
			}
			out = append(out, tui.Choice{Name: m.Provider + "/" + m.ID, Detail: strings.TrimPrefix(detail, " · ")})
		}
		return out
	}
}

// readLines reads r line by line into a channel, closed at EOF: the
// prompts and the approval answers share it. Each line carries when it
// was read, which tells the prompter a line typed before its question.
func readLines(ctx context.Context, r io.Reader) <-chan line {
	ch := make(chan line, 256)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			select {
			case ch <- line{text: sc.Text(), at: time.Now()}:
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch
}

// userHome is the user's home folder, where other agents keep the user's
// skills: $HOME (%USERPROFILE% on Windows); "" when neither is set.
func userHome(getenv func(string) string) string {
	if h := getenv("HOME"); h != "" {
		return h
	}
	return getenv("USERPROFILE")
}
