package window

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/store"
)

// Input is the state a request is built from.
type Input struct {
	SessionID string
	Segment   int
	// Messages is the current segment's history, oldest first.
	Messages []llm.Message
}

// Assembly is a request ready to send, with the size of each of its parts.
type Assembly struct {
	Request llm.Request
	Parts   []store.PartStat
	// Tokens is the request's o200k count (Estimated when the tokenizer
	// was not loaded yet and the request was far from the budget).
	Tokens    int
	Estimated bool
	// Compacted is set when building this request paged outputs out.
	Compacted *Compaction
	// Summaries are the summary model's calls made while compacting.
	Summaries []SummaryCall
}

// Compaction reports one compaction step.
type Compaction struct {
	Items int      `json:"items"`
	Freed int      `json:"freed_tokens"`
	Pages []string `json:"pages"`
}

// ErrOverBudget: even after compaction the request passes the segment's
// budget; the engine must start a new segment.
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
	Part string
	Body string
}

// Options configure a Window.
type Options struct {
	System string
	Tools  []llm.ToolSpec
	// Budget partitions the model's window; zero means Scaled(128k).
	Budget Budget
	// Counter counts tokens; nil estimates 4 bytes a token.
	Counter *Counter
	// Store keeps paged-out outputs; nil disables compaction (a segment
	// then only resets).
	Store *store.Store
	// Prefix returns the rules and memory for a new segment; they are read
	// once per segment, so edits take effect at the next one.
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
// extends the one before it, byte for byte, except at a compaction step,
// which frees at least Budget.FreeShare of the window at once.
//
// A Window serves many sessions; it is safe for concurrent use.
type Window struct {
	opts      Options
	toolsJSON string

	mu       sync.Mutex
	sessions map[string]*segState
}

// segState is what the window remembers of one session's segment.
type segState struct {
	segment   int
	system    string
	prefix    []Text
	tools     []llm.ToolSpec
	toolsJSON string
	shown     map[string]store.Compaction // call id -> how its output is shown
}

// New returns a Window.
func New(opts Options) *Window {
	if opts.Budget.Window == 0 {
		opts.Budget = Scaled(0)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	b, _ := json.Marshal(opts.Tools)
	return &Window{opts: opts, toolsJSON: string(b), sessions: map[string]*segState{}}
}

// Budget returns the window's partition.
func (w *Window) Budget() Budget { return w.opts.Budget }

// Counter returns the token counter (nil when estimating).
func (w *Window) Counter() *Counter { return w.opts.Counter }

// Assemble implements agent.Assembler.
func (w *Window) Assemble(ctx context.Context, in Input) (Assembly, error) {
	st, err := w.state(ctx, in)
	if err != nil {
		return Assembly{}, err
	}
	msgs, _ := Repair(in.Messages)
	asm := w.build(st, msgs)
	b := w.opts.Budget
	over := w.scaled(asm.Tokens) - b.Input()
	if o := w.scaled(partTokens(asm.Parts, PartToolOutputs)) - b.ToolOutputs; o > over {
		over = o
	}
	if over <= 0 {
		return asm, nil
	}
	if w.opts.Store != nil {
		var sums []SummaryCall
		c, err := w.compact(ctx, in, st, msgs, b.freeTarget(over), &sums)
		asm.Summaries = sums
		if err != nil {
			return asm, err
		}
		if c.Items > 0 {
			asm = w.build(st, msgs)
			asm.Compacted = &c
			asm.Summaries = sums
		}
	}
	if w.scaled(asm.Tokens) > b.Input() || w.scaled(partTokens(asm.Parts, PartMessages)) > b.Messages {
		return asm, fmt.Errorf("%w: %d tokens, budget %d", ErrOverBudget, asm.Tokens, b.Input())
	}
	return asm, nil
}

// scaled converts o200k tokens to the provider's, by calibration.
func (w *Window) scaled(n int) int {
	if w.opts.Counter == nil {
		return n
	}
	return int(float64(n) * w.opts.Counter.Ratio())
}

// state returns the session's segment state, loading it when the segment
// is new to this window (a new segment, or a resumed session).
func (w *Window) state(ctx context.Context, in Input) (*segState, error) {
	w.mu.Lock()
	st := w.sessions[in.SessionID]
	w.mu.Unlock()
	if st != nil && st.segment == in.Segment {
		return st, nil
	}
	st = &segState{segment: in.Segment, shown: map[string]store.Compaction{}}
	if w.opts.Prefix != nil {
		st.prefix = w.opts.Prefix(ctx)
	}
	st.tools, st.toolsJSON = w.opts.Tools, w.toolsJSON
	if w.opts.Segment != nil {
		tools, listing := w.opts.Segment(ctx, in.SessionID)
		b, _ := json.Marshal(tools)
		st.tools, st.toolsJSON = tools, string(b)
		if listing != "" {
			st.prefix = append(st.prefix, Text{Part: PartDeferred, Body: listing})
		}
	}
	st.system = composeSystem(w.opts.System, st.prefix)
	if w.opts.Store != nil {
		cs, err := w.opts.Store.Compactions(ctx, in.SessionID, in.Segment)
		if err != nil {
			return nil, fmt.Errorf("window: %w", err)
		}
		for _, c := range cs {
			st.shown[c.CallID] = c
		}
	}
	w.mu.Lock()
	w.sessions[in.SessionID] = st
	w.mu.Unlock()
	return st, nil
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

// build applies the segment's compactions and untrusted marks to msgs and
// measures the request.
func (w *Window) build(st *segState, msgs []llm.Message) Assembly {
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
			if c, ok := st.shown[r.CallID]; ok {
				r.Content = c.Text
			}
			r.Content = MarkUntrusted(r.Content)
			parts[j].ToolResult = &r
		}
		view[i].Parts = parts
	}
	req := llm.Request{System: st.system, Tools: st.tools, Messages: view}
	parts, total, estimated := w.account(st, view)
	return Assembly{Request: req, Parts: parts, Tokens: total, Estimated: estimated}
}

// account measures each part of a request. Each piece (a message's
// text, a tool call, an output) is counted on its own and summed: the
// counter caches by content, so a request costs only its new pieces
// rather than re-tokenizing the whole history. While the tokenizer loads,
// a request far from the budget (its bytes, an upper bound on its tokens,
// below it) is estimated rather than waited for.
func (w *Window) account(st *segState, msgs []llm.Message) ([]store.PartStat, int, bool) {
	order := []string{PartSystem, PartRules, PartMemory, PartSkills, PartDeferred, PartTools, PartHandoff, PartMessages, PartToolOutputs}
	pieces := map[string][]string{PartSystem: {w.opts.System}, PartTools: {st.toolsJSON}}
	for _, t := range st.prefix {
		pieces[t.Part] = append(pieces[t.Part], t.Body)
	}
	for i, m := range msgs {
		for _, p := range m.Parts {
			part, text := PartMessages, p.Text
			switch p.Kind {
			case llm.PartToolResult:
				part, text = PartToolOutputs, p.ToolResult.Content
			case llm.PartToolCall:
				text = p.ToolCall.Name + string(p.ToolCall.Args)
			case llm.PartThinking:
				text = p.Thinking.Text
			default:
				if i == 0 && m.Role == llm.RoleUser && strings.HasPrefix(p.Text, HandoffPrefix) {
					part = PartHandoff
				}
			}
			pieces[part] = append(pieces[part], text)
		}
	}
	bytes := 0
	for _, ps := range pieces {
		for _, p := range ps {
			bytes += len(p)
		}
	}
	c := w.opts.Counter
	count := Estimate
	estimate := c == nil || (!c.Ready() && bytes < w.opts.Budget.Input())
	if !estimate {
		count = c.Count
	}
	var stats []store.PartStat
	total := 0
	for _, n := range order {
		ps, ok := pieces[n]
		if !ok && n != PartMessages {
			continue
		}
		stat := store.PartStat{Name: n}
		for _, p := range ps {
			stat.Bytes += len(p)
			stat.Tokens += count(p)
		}
		total += stat.Tokens
		stats = append(stats, stat)
	}
	return stats, total, estimate
}

func partTokens(parts []store.PartStat, name string) int {
	for _, p := range parts {
		if p.Name == name {
			return p.Tokens
		}
	}
	return 0
}

// summary is the level-1 text of an output: the summary model's, when one
// is configured and answers, else the mechanical one.
// Each summary model call is appended to calls.
func (w *Window) summary(ctx context.Context, call llm.ToolCall, raw, page string, calls *[]SummaryCall) string {
	if w.opts.Summarize != nil {
		sc := w.opts.Summarize(ctx, call, raw)
		*calls = append(*calls, sc)
		if sc.Err == nil && strings.TrimSpace(sc.Text) != "" {
			return fmt.Sprintf("[summarized %s by the summary model: %s output, %d bytes; the whole text: recall(%q)]\n%s", page, describe(call), len(raw), page, strings.TrimSpace(sc.Text))
		}
		w.opts.Logger.Warn("window: the summary model failed; summarising without it", "err", sc.Err)
	}
	return Summary(call, raw, page)
}

// compact frees at least target tokens of tool output in one step: the
// lowest-scored outputs are summarised first, then stubbed, each paged out
// to the store with its full text.
func (w *Window) compact(ctx context.Context, in Input, st *segState, msgs []llm.Message, target int, sums *[]SummaryCall) (Compaction, error) {
	count := Estimate
	if w.opts.Counter != nil {
		count = w.opts.Counter.Count
	}
	raw := map[string]string{}
	levels := map[string]int{}
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.ToolResult != nil {
				raw[p.ToolResult.CallID] = p.ToolResult.Content
			}
		}
	}
	for id, c := range st.shown {
		levels[id] = c.Level
	}
	var res Compaction
	for pass := 0; pass < 2 && res.Freed < target; pass++ {
		view := w.build(st, msgs).Request.Messages
		for _, c := range candidates(view, raw, levels, count) {
			if res.Freed >= target {
				break
			}
			page := st.shown[c.call.ID].PageID
			if page == "" {
				var err error
				page, err = w.opts.Store.PutPage(ctx, store.Page{
					SessionID: in.SessionID, Segment: in.Segment, Kind: "tool_output",
					Tags: []string{c.call.Name, c.call.ID}, Tokens: count(c.raw), Summary: Stub(c.call, c.raw, "p?"), Text: c.raw,
				})
				if err != nil {
					return res, fmt.Errorf("window: paging out: %w", err)
				}
				res.Pages = append(res.Pages, page)
			}
			level, text := LevelStub, Stub(c.call, c.raw, page)
			if c.level == LevelRaw && pass == 0 {
				if s := w.summary(ctx, c.call, c.raw, page, sums); len(s) < len(c.raw)/2 {
					level, text = LevelSummary, s
				}
			}
			if pass == 0 && c.level >= LevelSummary {
				continue // summaries are stubbed only when summarising was not enough
			}
			freed := c.tokens - count(MarkUntrusted(text))
			if freed <= 0 {
				continue
			}
			comp := store.Compaction{SessionID: in.SessionID, Segment: in.Segment, CallID: c.call.ID, Level: level, PageID: page, Text: text}
			if err := w.opts.Store.RecordCompaction(ctx, comp); err != nil {
				return res, fmt.Errorf("window: %w", err)
			}
			st.shown[c.call.ID] = comp
			levels[c.call.ID] = level
			res.Items++
			res.Freed += freed
		}
	}
	w.opts.Logger.Debug("window: compacted", "session", in.SessionID, "items", res.Items, "freed", res.Freed, "target", target)
	return res, nil
}
