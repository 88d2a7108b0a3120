package tui

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/goldentest"
	"github.com/godwit/godwit/internal/policy"
	"github.com/godwit/godwit/internal/wiring"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/fake"
)

// clock is a settable clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// harness drives a Model as bubbletea would: commands run in goroutines
// and their messages come back to Update; the bridge is drained whenever
// nothing else is waiting.
type harness struct {
	t     *testing.T
	m     *Model
	b     *Bridge
	ctl   *Controller
	clock *clock
	msgs  chan tea.Msg
	ws    string
	home  string
	prov  *fake.Provider
	mode  *ModeSwitch
	quit  bool
	// skills are what the engine says it has.
	skills []Choice
}

// newHarness builds a real engine (wiring, store, tools, policy in ask
// mode) over a scripted model.
func newHarness(t *testing.T, steps ...fake.Step) *harness {
	t.Helper()
	h := &harness{t: t, b: NewBridge(), clock: newClock(), msgs: make(chan tea.Msg, 64),
		ws: t.TempDir(), home: t.TempDir(), prov: fake.New(steps...), mode: NewModeSwitch(policy.Ask)}
	build := func(ctx context.Context, model string) (*Engine, error) {
		if model == "" {
			model = "fake/m"
		}
		env, err := wiring.Build(ctx, wiring.Options{Home: h.home, Workspace: h.ws, Model: model, Provider: h.prov,
			Approval: wiring.Approval{Live: h.mode.Get, Prompter: h.b}, EngineEvents: h.b, ContextWindow: 128_000})
		if err != nil {
			return nil, err
		}
		return &Engine{Runtime: env.Runtime, Store: env.Store, Model: env.Model, Workspace: env.Workspace, ContextWindow: 128_000,
			Plan: env.Plan.Steps, SetPlan: env.Plan.Set, Close: env.Close,
			Exec: func(ctx context.Context, call llm.ToolCall, sink agent.Sink) (ToolRun, error) {
				o, err := env.RunUserCall(ctx, call, sink)
				return ToolRun{Output: o.Result.Content, IsError: o.Result.IsError, Code: o.Result.Code, ExitCode: o.Result.ExitCode}, err
			},
			Skills: func(context.Context) []Choice { return h.skills },
		}, nil
	}
	ctl, err := NewController(context.Background(), Options{Build: build, Sink: h.b, Mode: h.mode})
	if err != nil {
		t.Fatal(err)
	}
	h.ctl = ctl
	h.m = NewModel(context.Background(), ctl, ModelOptions{Theme: PlainTheme(), Now: h.clock.Now, Width: 80, Height: 24})
	t.Cleanup(func() {
		h.b.Close()
		if h.m.cancel != nil {
			h.m.cancel()
		}
		if err := ctl.Close(); err != nil {
			t.Error(err)
		}
	})
	return h
}

func (h *harness) update(msg tea.Msg) {
	_, cmd := h.m.Update(msg)
	h.spawn(cmd)
}

func (h *harness) spawn(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() { h.msgs <- cmd() }()
}

// handle processes a message a command returned.
func (h *harness) handle(msg tea.Msg) {
	if msg == tea.RequestCursorPosition() {
		// The terminal answers the probes of drawnGuard.
		h.update(tea.CursorPositionMsg{})
		return
	}
	switch msg := msg.(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			h.spawn(c)
		}
	case tea.QuitMsg:
		h.quit = true
	case tickMsg:
		// The clock is the test's; a tick only redraws.
	case nil:
	default:
		h.update(msg)
	}
}

// until processes messages until cond holds (a hang fails the test).
func (h *harness) until(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.After(20 * time.Second)
	for !cond() {
		select {
		case msg := <-h.msgs:
			h.handle(msg)
		case <-time.After(time.Millisecond):
			if q := h.b.drain(); len(q) > 0 {
				h.update(eventsMsg(q))
			}
		case <-deadline:
			h.t.Fatalf("waited in vain for %s; screen:\n%s", what, h.screen())
		}
	}
}

// idle waits until no turn or command runs and the bridge is empty.
func (h *harness) idle() {
	h.t.Helper()
	h.until("the turn to end", func() bool {
		if h.m.running || h.m.commanding {
			return false
		}
		q := h.b.drain()
		if len(q) > 0 {
			h.update(eventsMsg(q))
			return false
		}
		return true
	})
}

func (h *harness) typ(s string) {
	for _, r := range s {
		h.update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

var keys = map[string]tea.KeyPressMsg{
	"enter":     {Code: tea.KeyEnter},
	"esc":       {Code: tea.KeyEscape},
	"up":        {Code: tea.KeyUp},
	"down":      {Code: tea.KeyDown},
	"pgup":      {Code: tea.KeyPgUp},
	"pgdown":    {Code: tea.KeyPgDown},
	"alt+up":    {Code: tea.KeyUp, Mod: tea.ModAlt},
	"alt+down":  {Code: tea.KeyDown, Mod: tea.ModAlt},
	"ctrl+c":    {Code: 'c', Mod: tea.ModCtrl},
	"ctrl+d":    {Code: 'd', Mod: tea.ModCtrl},
	"ctrl+o":    {Code: 'o', Mod: tea.ModCtrl},
	"shift+tab": {Code: tea.KeyTab, Mod: tea.ModShift},
	"alt+enter": {Code: tea.KeyEnter, Mod: tea.ModAlt},
	"tab":       {Code: tea.KeyTab},
}

func (h *harness) press(name string) {
	h.t.Helper()
	k, ok := keys[name]
	if !ok {
		h.t.Fatalf("no key %q in the test's table", name)
	}
	if k.String() != name {
		h.t.Fatalf("key %q prints as %q", name, k.String())
	}
	h.update(k)
}

// send types a line and presses Enter.
func (h *harness) send(line string) {
	h.typ(line)
	h.press("enter")
}

func (h *harness) screen() string { return plainScreen(h.m) }

// plainScreen is the model's view without escape sequences or trailing
// blanks.
func plainScreen(m *Model) string {
	content, _ := m.render()
	lines := strings.Split(ansi.Strip(content), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// golden compares got with testdata/name.golden (-update rewrites it).
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldentest.Check(t, name+".golden", []byte(got))
}

// staticModel is a model over an engine that never runs a turn: for
// rendering scripted events.
func staticModel(t testing.TB, width, height int) *Model {
	t.Helper()
	build := func(context.Context, string) (*Engine, error) {
		return &Engine{Model: "local/m", ContextWindow: 128_000}, nil
	}
	ctl, err := NewController(context.Background(), Options{Build: build})
	if err != nil {
		t.Fatal(err)
	}
	c := newClock()
	return NewModel(context.Background(), ctl, ModelOptions{Theme: PlainTheme(), Now: c.Now, Width: width, Height: height})
}

// feedEvents applies events as if the bridge delivered them.
func feedEvents(m *Model, evs ...agent.Event) {
	msgs := make(eventsMsg, len(evs))
	for i, e := range evs {
		msgs[i] = eventMsg(e)
	}
	m.Update(msgs)
}

func teaSize(w, h int) tea.WindowSizeMsg { return tea.WindowSizeMsg{Width: w, Height: h} }

// answer answers the open question with key once the terminal has
// drawn it (drawnGuard) and it has stood answerDelay, as a person would.
func (h *harness) answer(key string) {
	h.t.Helper()
	h.until("the question on the screen", h.m.asking)
	h.clock.Advance(answerDelay)
	h.typ(key)
}

// PlainTheme has no colour and renders markdown with ASCII only, so
// golden views hold no escape sequences.
func PlainTheme() Theme {
	return Theme{Markdown: MarkdownStyle{ASCII: true}}
}
