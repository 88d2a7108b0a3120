package window

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/godwit/godwit/internal/untrusted"
	"github.com/godwit/godwit/llm"
)

// Input is the state a request is built from.
type Input struct {
	SessionID string
	Segment   int
	// Messages is the current segment's history, oldest first.
	Messages []llm.Message
	// TurnStart marks the first request of a turn. Only a compaction the
	// budget forces is made then: the request right after a turn
	// boundary extends the last one, so a resumed session hits the cache.
	TurnStart bool
	// Handoff marks the handoff call: it may use the whole of Input (the
	// room Limit keeps free is for it), and nothing is paged unless it
	// must be.
	Handoff bool
}

// Assembly is a request ready to send, with the size of each of its parts.
type Assembly struct {
	Request llm.Request
	Parts   []llm.PartStat
	// Tokens is the request's o200k count (Estimated, 4 bytes a token,
	// without a Counter).
	Tokens    int
	Estimated bool
	// Compacted is set when building this request paged outputs out.
	Compacted *Compaction
	// Capped is set when outputs over the budget's OutputShare entered
	// with this request: each was paged whole and is shown as its head
	// and tail. It breaks no cache: they were never sent whole.
	Capped *Compaction
	// Summaries are the summary model's calls made while compacting.
	Summaries []SummaryCall
}

// Compaction reports one compaction step.
type Compaction struct {
	Items int      `json:"items"`
	Freed int      `json:"freed_tokens"`
	Pages []string `json:"pages"`
	// Reason is ReasonBudget, ReasonCheap or ReasonCap.
	Reason string `json:"reason,omitempty"`
	// Rebilled is what the step costs: the tokens after the first paged
	// output that the previous request already had, which the provider's
	// cache no longer covers and bills once more at full price.
	Rebilled int `json:"rebilled_tokens,omitempty"`
}

// Compaction reasons.
const (
	// ReasonBudget: the request passed the high-water mark; outputs were
	// paged down to the low-water mark at the cheapest break point.
	ReasonBudget = "budget"
	// ReasonCheap: outputs the model has answered from, past the working
	// set, were paged where the break cost less than keeping them.
	ReasonCheap = "cheap"
	// ReasonCap: outputs over OutputShare were paged as they entered.
	ReasonCap = "cap"
)

// ErrOverBudget: even after compaction the request passes the segment's
// limit; the engine must start a new segment. The wrapping error names
// the request's largest parts.
var ErrOverBudget = errors.New("window: the request does not fit the segment budget")

// Part names, as recorded per model call and shown by `:context`.
const (
	PartSystem      = "system"
	PartRules       = "rules"
	PartMemory      = "memory"
	PartSkills      = "skills"
	PartDeferred    = "deferred_tools"
	PartTools       = "tools"
	PartHandoff     = "handoff"
	PartMessages    = "messages"
	PartToolOutputs = "tool_outputs"
)

// HandoffPrefix starts every handoff message.
const HandoffPrefix = "[godwit handoff"

// Text is a named block of the prefix (project rules, memory).
type Text struct {
	Part string `json:"part"`
	Body string `json:"body"`
}

// Options configure a Window.
type Options struct {
	System string
	Tools  []llm.ToolSpec
	// Budget partitions the model's window; zero means Scaled(128k).
	Budget Budget
	// Counter counts tokens; nil estimates 4 bytes a token.
	Counter *Counter
	// Pages keeps paged-out outputs and the window's decisions; nil
	// disables paging (a segment then only resets) and a resumed
	// session's prefix is built anew.
	Pages Pages
	// Prefix returns the rules and memory for a new segment; they are read
	// once per segment and kept with it, so edits take effect at the next
	// one, in this process and in any later one.
	Prefix func(ctx context.Context) []Text
	// Summarize, when set, writes the summary of a tool output paged out
	// at the first compaction level (config summary_model: a cheap
	// model). Without it, or when it fails, the summary is made without a
	// model: head, error lines, tail.
	Summarize func(ctx context.Context, call llm.ToolCall, output string) SummaryCall
	// Segment, when set, gives each new segment its tool table and the
	// listing of deferred tools for the system prompt (tools.deferred);
	// it is read once per segment, so the table never changes within one.
	// Nil means Tools for every segment.
	Segment func(ctx context.Context, sessionID string) (tools []llm.ToolSpec, listing string)
	Logger  *slog.Logger
}

// Window builds requests: the prefix (system prompt, rules, memory, tool
// table) then the segment's messages. Within a segment each request
// extends the one before it, byte for byte, except at a compaction step;
// a resumed session rebuilds the same bytes from what Pages kept.
//
// A Window serves many sessions; it is safe for concurrent use.
type Window struct {
	opts Options

	mu       sync.Mutex
	sessions map[string]*segState
}

// segState is what the window remembers of one session's segment.
type segState struct {
	segment   int
	prefix    Prefix
	toolsJSON string
	shown     map[string]Shown // call id -> how its output is shown
	// sent is how many messages the previous request of the segment
	// held (0: none seen by this process): what follows a paged output
	// and was sent before is what paging re-bills.
	sent int
	// keys caches staleKey by call id: a call's arguments never change,
	// and decoding every call's on every request cost a long segment.
	keys map[string]string
	// turnFrom is the index of the message the turn in progress began
	// with (0 in a segment begun within the turn): what follows it is
	// the turn's own work.
	turnFrom int
}

// New returns a Window.
func New(opts Options) *Window {
	b := &opts.Budget
	if b.Window == 0 {
		*b = Scaled(0)
	}
	def := Scaled(b.Window)
	b.OutputShare, b.Ledger = cmp.Or(b.OutputShare, def.OutputShare), cmp.Or(b.Ledger, def.Ledger)
	if b.HighPct == 0 || b.LowPct == 0 {
		b.HighPct, b.LowPct = def.HighPct, def.LowPct
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Window{opts: opts, sessions: map[string]*segState{}}
}

// Budget returns the window's partition.
func (w *Window) Budget() Budget { return w.opts.Budget }

// Counter returns the token counter (nil when estimating).
func (w *Window) Counter() *Counter { return w.opts.Counter }

// Assemble implements agent.Assembler: it builds the next request of a
// segment, capping new outputs and paging old ones as the budget says,
// and fails with ErrOverBudget when even then the request passes Limit
// (Input for a handoff call).
func (w *Window) Assemble(ctx context.Context, in Input) (Assembly, error) {
	st, err := w.state(ctx, in)
	if err != nil {
		return Assembly{}, err
	}
	msgs, _ := Repair(in.Messages)
	if in.TurnStart {
		st.turnFrom = max(len(msgs)-1, 0)
	}
	var capped *Compaction
	if w.opts.Pages != nil {
		if capped, err = w.capOutputs(ctx, in, st, msgs); err != nil {
			return Assembly{}, err
		}
	}
	b := w.opts.Budget
	limit := b.Limit()
	if in.Handoff {
		limit = b.Input()
	}
	asm, acc := w.build(st, msgs)
	asm.Capped = capped
	if w.opts.Pages != nil {
		plan := choose(w.items(st, asm.Request.Messages, acc), planInput{
			total: w.scaled(asm.Tokens), high: b.High(), low: b.Low(), limit: limit,
			workingSet: b.WorkingSet, turnStart: in.TurnStart, handoff: in.Handoff,
		})
		if len(plan.ids) > 0 {
			var sums []SummaryCall
			c, err := w.compact(ctx, in, st, msgs, plan, &sums)
			asm.Summaries = sums
			if err != nil {
				return asm, err
			}
			if c.Items > 0 {
				asm, _ = w.build(st, msgs)
				asm.Capped, asm.Compacted, asm.Summaries = capped, &c, sums
			}
		}
	}
	if !in.Handoff {
		st.sent = len(msgs)
	}
	if t := w.scaled(asm.Tokens); t > limit {
		return asm, fmt.Errorf("%w: %d tokens, limit %d (%s)", ErrOverBudget, t, limit, Largest(asm.Parts))
	}
	return asm, nil
}

// Largest names a request's three largest parts, for errors that must
// say what does not fit: "tool_outputs 9100, system 2100, messages 800".
func Largest(parts []llm.PartStat) string {
	ps := slices.Clone(parts)
	slices.SortStableFunc(ps, func(a, b llm.PartStat) int { return b.Tokens - a.Tokens })
	var out []string
	for _, p := range ps {
		if len(out) == 3 || p.Tokens == 0 {
			break
		}
		out = append(out, fmt.Sprintf("%s %d", p.Name, p.Tokens))
	}
	return strings.Join(out, ", ")
}

// scaled converts o200k tokens to the provider's, by calibration.
func (w *Window) scaled(n int) int { return int(float64(n) * w.opts.Counter.Ratio()) }

// state returns the session's segment state, loading it when the segment
// is new to this window (a new segment, or a resumed session).
func (w *Window) state(ctx context.Context, in Input) (*segState, error) {
	w.mu.Lock()
	st := w.sessions[in.SessionID]
	w.mu.Unlock()
	if st != nil && st.segment == in.Segment {
		return st, nil
	}
	st = &segState{segment: in.Segment, shown: map[string]Shown{}}
	kept := false
	if w.opts.Pages != nil {
		p, ok, err := w.opts.Pages.SegmentPrefix(ctx, in.SessionID, in.Segment)
		if err != nil {
			return nil, fmt.Errorf("window: %w", err)
		}
		st.prefix, kept = p, ok
	}
	if !kept {
		st.prefix = w.newPrefix(ctx, in.SessionID)
		if w.opts.Pages != nil {
			if err := w.opts.Pages.SetSegmentPrefix(ctx, in.SessionID, in.Segment, st.prefix); err != nil {
				return nil, fmt.Errorf("window: %w", err)
			}
		}
	}
	st.toolsJSON = llm.SpecsJSON(st.prefix.Tools)
	if w.opts.Pages != nil {
		ss, err := w.opts.Pages.Shown(ctx, in.SessionID, in.Segment)
		if err != nil {
			return nil, fmt.Errorf("window: %w", err)
		}
		for _, s := range ss {
			st.shown[s.CallID] = s
		}
	}
	w.mu.Lock()
	w.sessions[in.SessionID] = st
	w.mu.Unlock()
	return st, nil
}

// newPrefix reads the rules, memory and tool table for a new segment.
func (w *Window) newPrefix(ctx context.Context, sessionID string) Prefix {
	var p Prefix
	if w.opts.Prefix != nil {
		p.Parts = w.opts.Prefix(ctx)
	}
	p.Tools = w.opts.Tools
	if w.opts.Segment != nil {
		tools, listing := w.opts.Segment(ctx, sessionID)
		p.Tools = tools
		if listing != "" {
			p.Parts = append(p.Parts, Text{Part: PartDeferred, Body: listing})
		}
	}
	if p.Tools == nil {
		p.Tools = []llm.ToolSpec{}
	}
	p.Base = w.opts.System
	p.System = composeSystem(p.Base, p.Parts)
	return p
}

func composeSystem(base string, prefix []Text) string {
	var b strings.Builder
	b.WriteString(base)
	for _, t := range prefix {
		if strings.TrimSpace(t.Body) == "" {
			continue
		}
		head := map[string]string{PartRules: "Project rules", PartMemory: "Memory", PartSkills: "Skills",
			PartDeferred: "More tools (call them through tool_call)"}[t.Part]
		if head == "" {
			head = t.Part
		}
		fmt.Fprintf(&b, "\n\n# %s\n%s", head, strings.TrimSpace(t.Body))
	}
	return b.String()
}

// accounting is what build measured: per part, and per message (the
// tokens of each message of the view), to price a break at any message.
type accounting struct {
	prefix int   // tokens before the first message
	msgs   []int // tokens of each message
	// outputs are the tokens of each tool output as shown, by call id.
	outputs map[string]int
}

// build applies the segment's compactions and untrusted marks to msgs and
// measures the request.
func (w *Window) build(st *segState, msgs []llm.Message) (Assembly, accounting) {
	view := make([]llm.Message, len(msgs))
	for i, m := range msgs {
		view[i] = m
		if m.Role != llm.RoleTool {
			continue
		}
		parts := make([]llm.Part, len(m.Parts))
		for j, p := range m.Parts {
			parts[j] = p
			if p.ToolResult == nil {
				continue
			}
			r := *p.ToolResult
			level := LevelRaw
			if c, ok := st.shown[r.CallID]; ok {
				r.Content, level = c.Text, c.Level
			}
			if r.Untrusted && level != LevelStub {
				r.Content = untrusted.Note + r.Content
			}
			parts[j].ToolResult = &r
		}
		view[i].Parts = parts
	}
	req := llm.Request{System: st.prefix.System, Tools: st.prefix.Tools, Messages: view}
	parts, total, estimated, acc := w.account(st, view)
	return Assembly{Request: req, Parts: parts, Tokens: total, Estimated: estimated}, acc
}

// account measures each part of a request. Each piece (a message's
// text, a tool call, an output) is counted on its own and summed: the
// counter remembers counts by content, so a request costs only its new
// pieces rather than re-tokenizing the whole history.
func (w *Window) account(st *segState, msgs []llm.Message) ([]llm.PartStat, int, bool, accounting) {
	order := []string{PartSystem, PartRules, PartMemory, PartSkills, PartDeferred, PartTools, PartHandoff, PartMessages, PartToolOutputs}
	acc := accounting{msgs: make([]int, len(msgs)), outputs: map[string]int{}}
	sums := map[string]*llm.PartStat{}
	total := 0
	// add counts one piece of part: of message msg (-1 for the prefix),
	// the output of call, fixed the tokens of an image (no text).
	add := func(part, text string, msg int, call string, fixed int) {
		n := w.opts.Counter.Count(text) + fixed
		s := sums[part]
		if s == nil {
			s = &llm.PartStat{Name: part}
			sums[part] = s
		}
		s.Bytes += len(text)
		s.Tokens += n
		total += n
		if msg < 0 {
			acc.prefix += n
		} else {
			acc.msgs[msg] += n
		}
		if call != "" {
			acc.outputs[call] = n
		}
	}
	add(PartSystem, st.prefix.Base, -1, "", 0)
	add(PartTools, st.toolsJSON, -1, "", 0)
	for _, t := range st.prefix.Parts {
		add(t.Part, t.Body, -1, "", 0)
	}
	for i, m := range msgs {
		for _, p := range m.Parts {
			switch p.Kind {
			case llm.PartToolResult:
				add(PartToolOutputs, p.ToolResult.Content, i, p.ToolResult.CallID, 0)
			case llm.PartToolCall:
				add(PartMessages, p.ToolCall.Name+string(p.ToolCall.Args), i, "", 0)
			case llm.PartThinking:
				add(PartMessages, p.Thinking.Text, i, "", 0)
			case llm.PartImage:
				add(PartMessages, p.Text, i, "", ImageTokens(p.Image))
			default:
				part := PartMessages
				if i == 0 && m.Role == llm.RoleUser && strings.HasPrefix(p.Text, HandoffPrefix) {
					part = PartHandoff
				}
				add(part, p.Text, i, "", 0)
			}
		}
	}
	var stats []llm.PartStat
	for _, n := range order {
		if s, ok := sums[n]; ok {
			stats = append(stats, *s)
		} else if n == PartMessages {
			stats = append(stats, llm.PartStat{Name: n})
		}
	}
	return stats, total, w.opts.Counter == nil, acc
}
