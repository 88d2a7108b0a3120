package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/atomicfile"
	"github.com/godwit/godwit/internal/policy"
	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/termsafe"
)

// Model is the chat's bubbletea model. Its methods run on bubbletea's
// goroutine only; turns and commands run in commands (tea.Cmd) and report
// back with messages.
type Model struct {
	ctx context.Context // parent of turns and commands
	ctl *Controller
	now func() time.Time

	rc    *renderCtx
	t     *transcript
	feed  *feed
	input textarea.Model

	inputKey   inputKey // what inputCache was drawn for
	inputCache string

	width, height int

	running    bool
	cancel     context.CancelFunc // cancels the running turn
	turnStart  time.Time
	cancelling bool
	commanding bool // a command is running

	questions  []*entry // approval questions not yet answered, oldest first
	byQuestion map[int]*entry
	guard      drawnGuard // whether keys may answer questions[0]
	askedAt    time.Time  // when questions[0] became the one y and a answer
	lastKey    time.Time  // the last key pressed (answerDelay)

	history []string // submitted input, oldest first
	saved   *History // where history outlives the run
	saveErr bool     // saving failed once and the user was told
	histIdx int      // == len(history) when not browsing
	draft   string   // the input typed before browsing history
	// pastes are the long pastes of this chat, shown in the input as
	// markers (pasteMarker) and expanded when sent.
	pastes []string

	lastCtrlC time.Time
	escs      int      // Esc presses in a row: the second clears the input
	queued    []string // prompts sent during a turn, for when it ends
	menu      *menu    // completions or the model picker, over the input
	skills    []Choice // for completing /names: read at the first one
	hint      string   // shown under the status line until the next key
	quitting  bool

	version    string
	bannerItem *noticeItem // the transcript's first item
	heading    int         // items at the transcript's top: the banner and the notices
	// mailWaiting: mail arrived while the chat was busy (tui/mail.go).
	mailWaiting bool
}

// ModelOptions configure a Model.
type ModelOptions struct {
	Theme Theme
	// Now is the clock (the double Ctrl-C, turn timers); nil is time.Now.
	Now func() time.Time
	// Width and Height are the first size, before the terminal reports
	// one (tests).
	Width, Height int
	// History holds the inputs of earlier chats and keeps this one's;
	// nil keeps them for this run only.
	History *History
	// Version is godwit's, shown in the banner.
	Version string
}

// NewModel returns the chat model over a controller. ctx is the parent
// of every turn. The model receives the engine's events and questions as
// messages from a Bridge (Run connects them).
func NewModel(ctx context.Context, ctl *Controller, opts ModelOptions) *Model {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	rc := &renderCtx{th: opts.Theme, ink: newInks(opts.Theme), md: newMarkdown(opts.Theme)}
	t := newTranscript(rc)
	m := &Model{
		ctx: ctx, ctl: ctl, now: opts.Now,
		rc: rc, t: t, feed: newFeed(t),
		input:      newInput(),
		byQuestion: map[int]*entry{},
		width:      max(opts.Width, 20), height: max(opts.Height, 6),
		saved: opts.History, history: opts.History.Lines(),
		version: opts.Version,
	}
	m.histIdx = len(m.history)
	m.bannerItem = m.banner()
	m.t.add(m.bannerItem)
	m.input.SetWidth(m.width)
	m.addNotices()
	return m
}

func newInput() textarea.Model {
	ta := textarea.New()
	ta.Prompt = "› "
	ta.Placeholder = "Ask godwit; /help lists the commands"
	ta.ShowLineNumbers = false
	ta.DynamicHeight = true
	ta.MinHeight = 1
	// The textarea's line-wrap cache is as large as MaxHeight: a small one
	// rewraps a long input on every key (BenchmarkKeyAfterBigPaste), so
	// fitInput caps the rows shown instead.
	ta.MaxHeight = 10000
	ta.MaxContentHeight = 10000
	ta.SetVirtualCursor(false)
	km := textarea.DefaultKeyMap()
	// Enter sends; these add a line. PgUp/PgDn scroll the transcript,
	// Ctrl-P/Ctrl-N move the selection.
	km.InsertNewline = key.NewBinding(key.WithKeys("alt+enter", "ctrl+j", "shift+enter"))
	km.PageUp, km.PageDown = key.NewBinding(), key.NewBinding()
	km.LinePrevious = key.NewBinding(key.WithKeys("up"))
	km.LineNext = key.NewBinding(key.WithKeys("down"))
	ta.KeyMap = km
	s := ta.Styles()
	s.Focused.CursorLine = s.Focused.Text
	ta.SetStyles(s)
	ta.Focus()
	return ta
}

// Messages of the model's own commands.
type (
	turnDoneMsg struct {
		res  agent.Result
		err  error
		note string // said after it (a !command's)
	}
	commandDoneMsg struct {
		line  string
		reply Reply
		err   error
	}
	historyMsg struct {
		events []agent.Event
		err    error
	}
	attachedMsg struct {
		ctx      context.Context // the turn's
		prompt   string
		atts     []Attachment
		problems []string
	}
	fullOutputMsg struct {
		callID string
		out    string
		err    error
	}
	tickMsg struct{}
)

// Init draws a resumed session, and probes the terminal once: whether it
// answers decides how questions are guarded (drawnGuard).
func (m *Model) Init() tea.Cmd {
	probe := m.guard.probe(m.now())
	if m.ctl.SessionID() != "" {
		return tea.Batch(probe, m.loadHistory())
	}
	return probe
}

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	// A question that became current this update is drawn when Update
	// returns: the probes that arm it go out after that.
	var cur *entry
	if len(m.questions) > 0 {
		cur = m.questions[0]
	}
	probe := m.guard.question(cur, m.now())
	if cur != nil {
		if a, armed := cur.it.(*approvalItem), m.guard.armed(m.now()); a.armed != armed {
			a.armed = armed
			if armed {
				m.askedAt = m.now() // on the screen from now
			}
			cur.touch()
		}
	}
	return m, tea.Batch(cmd, probe)
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.CursorPositionMsg:
		return m.guard.reply(m.now())
	case tea.WindowSizeMsg:
		m.width, m.height = max(msg.Width, 20), max(msg.Height, 6)
		m.input.SetWidth(m.width)
		return nil
	case eventsMsg:
		var cmds []tea.Cmd
		for _, x := range msg {
			cmds = append(cmds, m.handleBridge(x))
		}
		return tea.Batch(cmds...)
	case turnDoneMsg:
		return m.turnDone(msg)
	case attachedMsg:
		return m.attached(msg)
	case commandDoneMsg:
		return m.commandDone(msg)
	case historyMsg:
		m.showHistory(msg)
		return nil
	case fullOutputMsg:
		if en, ok := m.feed.tools[msg.callID]; ok {
			en.it.(*toolItem).setFull(msg.out, msg.err)
			en.touch()
		}
		return nil
	case tickMsg:
		if m.running {
			return tick()
		}
		return nil
	case tea.PasteMsg:
		if m.asking() {
			return nil
		}
		// Terminals send a pasted line break as CR.
		long := strings.ReplaceAll(strings.ReplaceAll(msg.Content, "\r\n", "\n"), "\r", "\n")
		if strings.Count(long, "\n") >= pasteInlineLines || len(long) > pasteInlineBytes {
			// Not drawn in the input, and sent as the user pasted it; the
			// transcript cleans it when it draws it.
			m.pastes = append(m.pastes, long)
			m.input.InsertString(pasteMarker(len(m.pastes), long))
			return nil
		}
		// Pasted text is drawn in the input: what a terminal would obey
		// goes, as it does from the model's text.
		msg.Content = termsafe.Text(long)
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		return cmd
	case tea.KeyPressMsg:
		return m.key(msg)
	}
	return nil
}

// handleBridge applies one message from the engine's side.
func (m *Model) handleBridge(x tea.Msg) tea.Cmd {
	switch x := x.(type) {
	case mailArrivedMsg:
		return m.mailArrived(x)
	case eventMsg:
		e := agent.Event(x)
		m.ctl.Observe(e)
		m.feed.apply(e, true)
	case approvalRequestMsg:
		m.feed.close()
		en := m.t.add(&approvalItem{id: x.id, q: x.q, reply: x.reply, armed: m.guard.mute(m.now())})
		m.questions = append(m.questions, en)
		if len(m.questions) == 1 {
			m.askedAt = m.now()
		}
		m.byQuestion[x.id] = en
		m.t.toEnd()
	case approvalGoneMsg:
		if en, ok := m.byQuestion[x.id]; ok {
			a := en.it.(*approvalItem)
			if !a.answered {
				a.gone = true
				en.touch()
			}
			m.dropQuestion(en)
		}
	}
	return nil
}

// asking reports whether a question waits for its answer and keys may
// give it (drawnGuard); before that, keys go to the input.
func (m *Model) asking() bool { return len(m.questions) > 0 && m.guard.armed(m.now()) }

// answer replies to the oldest open question.
func (m *Model) answer(c policy.Choice) {
	if len(m.questions) == 0 {
		return
	}
	en := m.questions[0]
	a := en.it.(*approvalItem)
	if c == policy.Always && len(a.q.Always) == 0 {
		m.hint = "always is not offered for this call: y or n"
		return
	}
	a.answered, a.answer = true, c
	a.reply <- policy.Answer{Choice: c} // buffered: never blocks
	en.touch()
	m.dropQuestion(en)
}

func (m *Model) dropQuestion(en *entry) {
	for i, q := range m.questions {
		if q == en {
			m.questions = append(m.questions[:i], m.questions[i+1:]...)
			if i == 0 {
				m.askedAt = m.now() // the next question is new to the person
			}
			break
		}
	}
	delete(m.byQuestion, en.it.(*approvalItem).id)
}

// submit sends the input: a command, or a prompt that starts a turn.
func (m *Model) submit() tea.Cmd {
	text := strings.TrimSpace(m.input.Value())
	if text == "" {
		return nil
	}
	if line, ok := strings.CutPrefix(text, "!"); ok && !strings.HasPrefix(line, "!") && strings.TrimSpace(line) != "" {
		if m.running || m.commanding {
			m.hint = "!commands run when the chat is idle: wait for the turn, or Esc to cancel it"
			return nil
		}
		m.remember(text)
		m.input.Reset()
		return m.startShell(strings.TrimSpace(line))
	}
	if IsCommand(text) {
		if m.commanding {
			m.hint = "a command is still running"
			return nil
		}
		m.remember(text)
		m.input.Reset()
		m.commanding = true
		ctx, ctl := m.ctx, m.ctl
		return func() tea.Msg {
			r, err := ctl.Exec(ctx, text)
			return commandDoneMsg{line: text, reply: r, err: err}
		}
	}
	full := m.expandPastes(text)
	m.rememberAs(text, full)
	m.input.Reset()
	prompt := Unescape(full)
	if m.running {
		// Queued, as Claude Code and Codex do: sent when the turn ends.
		m.queued = append(m.queued, prompt)
		return nil
	}
	return m.startTurn(prompt)
}

// startTurn shows prompt and runs a turn of it.
func (m *Model) startTurn(prompt string) tea.Cmd {
	m.t.add(&userItem{text: prompt})
	m.t.selected = -1
	ctl := m.ctl
	return m.begin(func(ctx context.Context) tea.Msg {
		if !strings.Contains(prompt, "@") {
			res, err := ctl.Run(ctx, prompt)
			return turnDoneMsg{res: res, err: err}
		}
		atts, problems := ctl.Attach(ctx, prompt)
		return attachedMsg{ctx: ctx, prompt: prompt, atts: atts, problems: problems}
	})
}

// startShell runs a !command as a turn runs: Esc cancels it, messages
// sent meanwhile wait for it.
func (m *Model) startShell(line string) tea.Cmd {
	m.t.add(&userItem{text: "!" + line})
	ctl := m.ctl
	return m.begin(func(ctx context.Context) tea.Msg {
		r, err := ctl.Shell(ctx, line)
		note := "↳ the model reads this with your next message"
		if err != nil || r.Code == "DENIED" {
			note = ""
		}
		return turnDoneMsg{err: err, note: note}
	})
}

// begin marks the chat running, cancellable, and runs run in a command
// with a context of its own; run reports back with turnDoneMsg.
func (m *Model) begin(run func(ctx context.Context) tea.Msg) tea.Cmd {
	m.t.toEnd()
	ctx, cancel := context.WithCancel(m.ctx)
	m.running, m.cancel, m.turnStart, m.cancelling = true, cancel, m.now(), false
	return tea.Batch(func() tea.Msg { return run(ctx) }, tick())
}

// attached shows what a message attaches, then sends it.
func (m *Model) attached(msg attachedMsg) tea.Cmd {
	m.feed.close()
	for _, a := range msg.atts {
		m.t.add(&noticeItem{text: "⊕ " + a.Label, style: m.rc.th.Dim})
	}
	for _, p := range msg.problems {
		m.t.add(&noticeItem{text: "⚠ " + p, style: m.rc.th.Warn})
	}
	ctl := m.ctl
	return func() tea.Msg {
		res, err := ctl.Run(msg.ctx, msg.prompt, msg.atts...)
		return turnDoneMsg{res: res, err: err}
	}
}

func (m *Model) turnDone(msg turnDoneMsg) tea.Cmd {
	if m.cancel != nil {
		m.cancel()
	}
	m.running, m.cancel, m.cancelling = false, nil, false
	if m.hint == cancellingHint {
		m.hint = "" // the turn has ended: its line in the transcript says so
	}
	// A turn that started reports its end in the transcript (turn.finished);
	// one that never started did not, so say why here.
	if msg.err != nil && msg.res.Turn == 0 {
		m.feed.close()
		m.t.add(&noticeItem{text: "✗ " + strings.TrimPrefix(msg.err.Error(), "tui: "), style: m.rc.th.Error})
	}
	if msg.note != "" {
		m.feed.close()
		m.t.add(&noticeItem{text: msg.note, style: m.rc.th.Dim})
	}
	if m.quitting {
		return tea.Quit
	}
	if len(m.queued) > 0 {
		q := strings.Join(m.queued, "\n\n")
		m.queued = nil
		if msg.res.Status == store.TurnCancelled || (msg.err != nil && msg.res.Turn == 0) {
			// Stopped: what was queued is the person's to send again.
			m.input.SetValue(strings.TrimSpace(q + "\n" + m.input.Value()))
			m.hint = "the turn ended early: your queued message is back in the input"
			return nil
		}
		return m.startTurn(q)
	}
	if m.mailWaiting && !m.busy() {
		return m.startMailTurn()
	}
	return nil
}

func (m *Model) commandDone(msg commandDoneMsg) tea.Cmd {
	m.commanding = false
	m.feed.close()
	text, style := msg.reply.Text, m.rc.th.Dim
	if msg.err != nil {
		text, style = strings.TrimPrefix(msg.err.Error(), "tui: "), m.rc.th.Error
	}
	if msg.reply.Send == "" || text != "" { // a message sent shows as one
		m.t.add(&noticeItem{text: msg.line + "\n" + text, style: style, table: msg.err == nil})
	}
	m.t.toEnd()
	switch r := msg.reply; {
	case r.Quit:
		return m.quit()
	case r.Reload:
		return m.loadHistory()
	case len(r.Pick) > 0:
		m.openPicker(r.Pick)
	case r.Send != "":
		return m.startTurn(r.Send)
	case r.Export != "":
		m.export(r.Export)
	case m.mailWaiting && !m.busy():
		return m.startMailTurn()
	}
	return nil
}

// export writes the transcript, as shown, to path.
func (m *Model) export(path string) {
	text := ansi.Strip(strings.Join(m.t.printed(100), "\n")) + "\n"
	note := &noticeItem{text: "wrote the transcript to " + homeRel(path), style: m.rc.th.Dim}
	err := os.MkdirAll(filepath.Dir(path), 0o755)
	if err == nil {
		err = atomicfile.WriteFile(path, []byte(text), 0o644)
	}
	if err != nil {
		note = &noticeItem{text: "✗ " + err.Error(), style: m.rc.th.Error}
	}
	m.t.add(note)
}

// quit leaves the chat, cancelling a running turn first.
func (m *Model) quit() tea.Cmd {
	m.quitting = true
	if m.running {
		m.cancel()
		return nil // turnDone quits
	}
	return tea.Quit
}

func (m *Model) loadHistory() tea.Cmd {
	ctx, ctl := m.ctx, m.ctl
	return func() tea.Msg {
		evs, err := ctl.History(ctx)
		return historyMsg{events: evs, err: err}
	}
}

// showHistory redraws the transcript from a stored session.
func (m *Model) showHistory(msg historyMsg) {
	if msg.err != nil {
		m.t.add(&noticeItem{text: "✗ the session's history could not be read: " + msg.err.Error(), style: m.rc.th.Error})
		return
	}
	old, oldHeading := m.t.entries, m.heading
	m.t = newTranscript(m.rc)
	m.feed = newFeed(m.t)
	m.bannerItem = m.banner()
	m.t.add(m.bannerItem)
	m.addNotices()
	m.questions, m.byQuestion = nil, map[int]*entry{}
	for _, e := range msg.events {
		m.feed.apply(e, false)
		if e.Type == agent.EventTurnStarted && e.Prompt != "" {
			// A mail turn's prompt is another session's words: Up draws
			// it in the input.
			m.remember(termsafe.Text(e.Prompt))
		}
	}
	m.feed.close()
	// Keep what was said before the resume (the :resume reply) at the end.
	if n := len(old); n > oldHeading {
		if last, ok := old[n-1].it.(*noticeItem); ok {
			m.t.add(last)
		}
	}
	m.t.toEnd()
}

// banner is the transcript's first item (Controller.Banner).
func (m *Model) banner() *noticeItem {
	return &noticeItem{text: m.ctl.Banner(m.version) + "\n/help lists the commands · Shift-Tab switches the mode · Ctrl-C twice leaves", style: m.rc.th.Dim}
}

// addNotices shows what the user must hear once (a repository's MCP
// servers not started) under the banner.
func (m *Model) addNotices() {
	for _, n := range m.ctl.Notices() {
		m.t.add(&noticeItem{text: "⚠ " + n, style: m.rc.th.Warn})
	}
	if r := m.ctl.Resumed(); r != "" {
		m.t.add(&noticeItem{text: "↺ " + r, style: m.rc.th.Accent})
	}
	m.heading = len(m.t.entries)
}

// homeRel writes a path under the home folder as ~/..., as shells do.
func homeRel(p string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || home == "/" {
		return p
	}
	if rel, err := filepath.Rel(home, p); err == nil && filepath.IsLocal(rel) {
		return filepath.Join("~", rel)
	}
	if p == home {
		return "~"
	}
	return p
}

func tick() tea.Cmd {
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return tickMsg{} })
}

// remember adds a line to the input history.
func (m *Model) remember(line string) { m.rememberAs(line, line) }

// rememberAs keeps line for Up in this chat and full (its pastes
// expanded: a marker means nothing to another process) in the saved
// history.
func (m *Model) rememberAs(line, full string) {
	if n := len(m.history); n == 0 || m.history[n-1] != line {
		m.history = append(m.history, line)
	}
	m.histIdx, m.draft = len(m.history), ""
	if err := m.saved.Add(full); err != nil && !m.saveErr {
		m.saveErr = true
		m.t.add(&noticeItem{text: "✗ " + err.Error() + " (this chat's input is still recalled with Up)", style: m.rc.th.Warn})
	}
}

// A paste of more lines or bytes than these enters the input as a marker
// ("[pasted text #1: 1,400 lines, 35,290 bytes]"), expanded when the
// prompt is sent: the textarea draws every line of its text on each key.
const (
	pasteInlineLines = 40
	pasteInlineBytes = 4096
)

func pasteMarker(n int, text string) string {
	lines := strings.Count(text, "\n")
	if !strings.HasSuffix(text, "\n") {
		lines++
	}
	return fmt.Sprintf("[pasted text #%d: %s lines, %s bytes]", n, thousands(lines), thousands(len(text)))
}

// expandPastes puts back the pastes whose markers are in text. A marker
// the user edited is no longer one, and is sent as typed.
func (m *Model) expandPastes(text string) string {
	for i := len(m.pastes) - 1; i >= 0; i-- {
		text = strings.ReplaceAll(text, pasteMarker(i+1, m.pastes[i]), m.pastes[i])
	}
	return text
}
