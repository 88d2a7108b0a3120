package eval

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/godwit/godwit/internal/handoff"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/fake"
)

// handoffMarker starts the engine's handoff instruction.
var handoffMarker = strings.SplitN(handoff.Instruction(""), ".", 2)[0]

// errNoRef: {{ref}} found no standing ledger entry.
var errNoRef = errors.New("no standing ledger entry contains the text")

// Brain is one run's scripted model, compiled from a Script. Its Step
// answers requests one at a time (the engine asks once per step).
type Brain struct {
	task  string
	rules []rule

	mu    sync.Mutex // guards the fields below
	turn  int
	calls int
	cur   *view // the request being answered, for template functions
}

// NewBrain compiles s for one run of task.
func NewBrain(task string, s *Script) (*Brain, error) {
	b := &Brain{task: task}
	funcs := tfuncs{ref: b.ref}
	var errs []error
	for i, r := range s.Rules {
		cr, err := compileRule(r, funcs)
		if err != nil {
			errs = append(errs, fmt.Errorf("model rule %d: %w", i+1, err))
			continue
		}
		if r.When.empty() && r.Unless == nil && i < len(s.Rules)-1 {
			errs = append(errs, fmt.Errorf("model rule %d has no when, so it answers every request and rules %d.. never do: move it last", i+1, i+2))
		}
		b.rules = append(b.rules, cr)
	}
	if len(s.Rules) == 0 {
		errs = append(errs, errors.New("model: no rules; give at least one under model.rules"))
	}
	return b, errors.Join(errs...)
}

// SetTurn tells the brain which of the task's turns is running.
func (b *Brain) SetTurn(n int) {
	b.mu.Lock()
	b.turn = n
	b.mu.Unlock()
}

// Provider returns a provider answering with this brain.
func (b *Brain) Provider() *fake.Provider { return fake.NewFunc(b.Step) }

// Step answers one request.
func (b *Brain) Step(req llm.Request) fake.Step {
	b.mu.Lock()
	defer b.mu.Unlock()
	v := newView(req, b.turn)
	b.cur = v
	defer func() { b.cur = nil }()
	for _, r := range b.rules {
		match, ok := r.when.match(v)
		if !ok || (r.unless != nil && r.unless.holds(v)) {
			continue
		}
		st, err := b.answer(r, v, match)
		if err != nil {
			return fake.Step{Err: fmt.Errorf("eval: task %s: scripted model: %w", b.task, err)}
		}
		return st
	}
	return fake.Step{Err: fmt.Errorf("eval: task %s: no model rule answers request %s in turn %d; add a rule for it", b.task, v.describe(), v.turn)}
}

func (b *Brain) answer(r rule, v *view, match []string) (fake.Step, error) {
	d := tdata{Turn: v.turn, User: v.user, Output: v.output, Match: match}
	if r.fail != nil {
		msg, err := r.fail.execute(d)
		if err != nil {
			return fake.Step{}, err
		}
		return fake.Step{Err: errors.New(msg)}, nil
	}
	if r.handoff != nil {
		text, err := r.handoff.render(v, d)
		return fake.Step{Text: text}, err
	}
	var st fake.Step
	var err error
	if st.Thinking, err = r.think.execute(d); err != nil {
		return st, err
	}
	if st.Text, err = r.say.execute(d); err != nil {
		return st, err
	}
	for _, c := range r.calls {
		args, err := renderArgs(c.args, d)
		if err != nil {
			return st, fmt.Errorf("arguments of %s: %w", c.tool, err)
		}
		b.calls++
		st.ToolCalls = append(st.ToolCalls, fake.Call(fmt.Sprintf("call_%d", b.calls), c.tool, args))
	}
	return st, nil
}

// ref is the template function {{ref "text"}}: the ref ("D3") of the
// oldest standing ledger entry whose text contains text.
func (b *Brain) ref(text string) (string, error) {
	if b.cur == nil { // compile-time checks run no templates; be safe
		return "", errNoRef
	}
	for _, e := range b.cur.ledger() {
		if e.SupersededBy == 0 && strings.Contains(e.Text, text) {
			return e.Ref(), nil
		}
	}
	return "", fmt.Errorf("%w %q", errNoRef, text)
}

// Message kinds of a request's last message.
const (
	kindUser = iota
	kindEngine
	kindHandoff
	kindTool
)

// view is what rules look at in one request.
type view struct {
	req    llm.Request
	turn   int
	kind   int
	last   string // the last message's text
	user   string // the newest message the user wrote
	tool   string // the last tool result's tool
	output string
	failed bool

	text    *string
	entries []ledgerEntry
	parsed  bool
}

func newView(req llm.Request, turn int) *view {
	v := &view{req: req, turn: turn}
	for i := len(req.Messages) - 1; i >= 0 && v.user == ""; i-- {
		m := req.Messages[i]
		if t := m.Text(); m.Role == llm.RoleUser && t != "" && !strings.HasPrefix(t, "[godwit") {
			v.user = t
		}
	}
	if len(req.Messages) == 0 {
		return v
	}
	last := req.Messages[len(req.Messages)-1]
	v.last = last.Text()
	for _, p := range last.Parts {
		if p.ToolResult != nil {
			v.kind, v.output, v.failed, v.tool = kindTool, p.ToolResult.Content, p.ToolResult.IsError, p.ToolResult.Name
			if v.tool == "" {
				v.tool = callName(req.Messages, p.ToolResult.CallID)
			}
		}
	}
	switch {
	case v.kind == kindTool:
	case strings.HasPrefix(v.last, handoffMarker):
		v.kind = kindHandoff
	case strings.HasPrefix(v.last, "[godwit"):
		v.kind = kindEngine
	}
	return v
}

func callName(msgs []llm.Message, id string) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		for _, c := range msgs[i].ToolCalls() {
			if c.ID == id {
				return c.Name
			}
		}
	}
	return ""
}

func (v *view) requestText() string {
	if v.text == nil {
		t := requestText(v.req)
		v.text = &t
	}
	return *v.text
}

func (v *view) ledger() []ledgerEntry {
	if !v.parsed {
		v.entries, v.parsed = ledgerOf(v.req), true
	}
	return v.entries
}

// describe names the request for an error: its last message, shortened.
func (v *view) describe() string {
	kind := [...]string{"user message", "engine note", "handoff instruction", "tool result"}[v.kind]
	s := v.last
	if v.kind == kindTool {
		s = v.tool + ": " + v.output
	}
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return fmt.Sprintf("%d (%s %q)", len(v.req.Messages), kind, s)
}

// cond is a compiled When.
type cond struct {
	handoff                       bool
	user, engine, output, request *regexp.Regexp
	tool                          string
	failed                        *bool
	turns                         []int
}

func compileWhen(w When) (*cond, error) {
	c := &cond{handoff: w.Handoff, tool: w.Tool, failed: w.Failed, turns: w.Turn}
	var errs []error
	re := func(name string, s *string) *regexp.Regexp {
		if s == nil {
			return nil
		}
		r, err := regexp.Compile(*s)
		if err != nil {
			errs = append(errs, fmt.Errorf("when.%s: %w", name, err))
		}
		return r
	}
	c.user, c.engine, c.output, c.request = re("user", w.User), re("engine", w.Engine), re("output", w.Output), re("request", w.Request)
	if w.Handoff && (w.User != nil || w.Engine != nil || w.Tool != "" || w.Output != nil) {
		errs = append(errs, errors.New("when: handoff: true cannot be combined with user, engine, tool or output (the last message is the handoff instruction)"))
	}
	return c, errors.Join(errs...)
}

// match reports whether c holds for v, and the submatches of its first
// message regexp.
func (c *cond) match(v *view) ([]string, bool) {
	if c.handoff != (v.kind == kindHandoff) {
		return nil, false
	}
	var match []string
	try := func(re *regexp.Regexp, kind int, s string) bool {
		if re == nil {
			return true
		}
		if v.kind != kind {
			return false
		}
		m := re.FindStringSubmatch(s)
		if m != nil && match == nil {
			match = m
		}
		return m != nil
	}
	switch {
	case !try(c.user, kindUser, v.last), !try(c.engine, kindEngine, v.last), !try(c.output, kindTool, v.output):
		return nil, false
	case c.tool != "" && (v.kind != kindTool || v.tool != c.tool):
		return nil, false
	case c.failed != nil && (v.kind != kindTool || v.failed != *c.failed):
		return nil, false
	case len(c.turns) > 0 && !slices.Contains(c.turns, v.turn):
		return nil, false
	case c.request != nil && !c.request.MatchString(v.requestText()):
		return nil, false
	}
	return match, true
}

// holds is match for unless: an unset handoff means any kind of request.
func (c *cond) holds(v *view) bool {
	if c.handoff && v.kind != kindHandoff {
		return false
	}
	cp := *c
	cp.handoff = v.kind == kindHandoff
	_, ok := cp.match(v)
	return ok
}
