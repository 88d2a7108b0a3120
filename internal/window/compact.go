package window

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/godwit/godwit/internal/untrusted"
	"github.com/godwit/godwit/llm"
)

// How a tool output is shown in the window.
const (
	LevelRaw     = 0
	LevelSummary = 1 // head, error lines, tail, and the page id
	LevelStub    = 2 // one line: what it was, its key line, the page id
	// LevelCapped: an output over OutputShare, paged whole as it entered
	// and shown as its head and tail with how to read on. Compaction may
	// still summarise or stub it later, like a raw output.
	LevelCapped = 3
)

// item is a tool output compaction may page, with what paging it costs.
type item struct {
	id     string
	msg    int // index of its tool message
	tokens int // as shown now
	level  int
	// answered: the model has written a message since it saw the output,
	// so it has used it; the newest outputs are never paged.
	answered bool
	// stale: a later call read or ran the same thing again.
	stale bool
	// after is the tokens that follow its message and were already in the
	// previous request: what a break here re-bills.
	after int
	// live: the turn in progress is working with it (see items), so
	// only the ceiling pages it.
	live bool
}

// items lists the outputs compaction may page, oldest first; view is the
// request's messages as shown.
//
// An output is live while its turn is in progress, fewer than
// keepHorizon of the model's messages have followed it, and the same
// call has not run again: the model is working with it (a file it
// edits, a test run it fixes), and paging it would send the model to
// read it again at full price.
func (w *Window) items(st *segState, view []llm.Message, acc accounting) []item {
	msgs := view
	// Where each call is, and where a call of the same key or the same
	// arguments last was.
	calls := map[string]llm.ToolCall{}
	at := map[string]int{}
	later := map[string]int{}
	again := map[string]int{}
	pos := 0
	lastAssistant := -1
	for i, m := range msgs {
		if m.Role == llm.RoleAssistant {
			lastAssistant = i
		}
		for _, c := range m.ToolCalls() {
			calls[c.ID] = c
			at[c.ID] = pos
			if k := st.staleKey(c); k != "" {
				later[k] = pos
			}
			again[c.Name+"\x00"+string(c.Args)] = pos
			pos++
		}
	}
	// replies[i]: the model's messages after message i.
	replies := make([]int, len(msgs)+1)
	for i := len(msgs) - 1; i >= 0; i-- {
		replies[i] = replies[i+1]
		if msgs[i].Role == llm.RoleAssistant {
			replies[i]++
		}
	}
	sent := st.sent
	if sent == 0 || sent > len(msgs) {
		sent = len(msgs) // unknown: count all as sent, the dear case
	}
	// suffix[i]: tokens of messages i.. that the previous request had.
	suffix := make([]int, len(msgs)+1)
	for i := len(msgs) - 1; i >= 0; i-- {
		suffix[i] = suffix[i+1]
		if i < sent {
			suffix[i] += acc.msgs[i]
		}
	}
	var out []item
	for i, m := range msgs {
		if m.Role != llm.RoleTool {
			continue
		}
		for _, p := range m.Parts {
			r := p.ToolResult
			if r == nil {
				continue
			}
			it := item{id: r.CallID, msg: i, level: LevelRaw, answered: i < lastAssistant, after: suffix[i+1]}
			if c, ok := st.shown[r.CallID]; ok {
				it.level = c.Level
			}
			if it.level == LevelStub {
				continue
			}
			it.tokens = acc.outputs[r.CallID]
			c := calls[r.CallID]
			if k := st.staleKey(c); k != "" && later[k] > at[r.CallID] {
				it.stale = true
			}
			it.live = i > st.turnFrom && replies[i] < keepHorizon && again[c.Name+"\x00"+string(c.Args)] == at[r.CallID]
			out = append(out, it)
		}
	}
	return out
}

// planInput is what choose weighs, in the provider's tokens.
type planInput struct {
	total, high, low, limit int
	// workingSet is how much answered output may stay whole.
	workingSet         int
	turnStart, handoff bool
}

// plan is what one compaction step pages.
type plan struct {
	reason string
	ids    []string
	// stub lists the ids to stub at once: a summary of something read
	// again later, or kept for a price, is worth less than it costs.
	stub map[string]bool
	// need is the tokens the step must free (0: whatever it frees).
	need int
	// rebilled is what the break costs (see Compaction.Rebilled).
	rebilled int
}

// stubCost is about what a summary or stub leaves of an output.
const stubCost = 80

// minPage is the least output the working set pages: below it a stub
// saves too little to be worth a break.
const minPage = 300

// The prices choose weighs: a cached token costs a tenth of a new one.
// Keeping an output costs a tenth of it on each of keepHorizon requests;
// paging re-bills at full price what follows the break and was sent
// before, and the model may need the output again (rereadPct in 100).
const (
	keepHorizon = 10
	rereadPct   = 10
)

// choose decides one compaction step from the outputs in view:
//
//   - above the high-water mark, page down to the low-water mark in one
//     step, breaking as late as possible (all after the break is
//     re-billed anyway);
//   - else, once the answered outputs hold more than the working set,
//     page them as stubs in one batch at the break that gains most (see
//     batch); live outputs stay, up to liveMax;
//   - never at a turn's first request unless forced, so a resumed
//     session hits the cache.
//
// The newest outputs (not yet answered from) are never paged.
func choose(items []item, in planInput) plan {
	var eligible []item
	for _, it := range items {
		if it.answered {
			eligible = append(eligible, it)
		}
	}
	if len(eligible) == 0 {
		return plan{}
	}
	forced := in.total > in.limit || (!in.handoff && in.total > in.high)
	switch {
	case forced:
		p := plan{reason: ReasonBudget, stub: map[string]bool{}}
		target := in.total - in.low
		if in.handoff {
			target = in.total - in.limit
		}
		p.need = target
		freed, brk := 0, 0
		for i := len(eligible) - 1; i >= 0; i-- {
			brk = i
			freed += max(eligible[i].tokens-stubCost, 0)
			if freed >= target {
				break
			}
		}
		for _, it := range eligible[brk:] {
			p.ids = append(p.ids, it.id)
			if it.stale {
				p.stub[it.id] = true
			}
		}
		p.rebilled = eligible[brk].after
		return p
	case !in.turnStart && !in.handoff:
		return batch(unlive(eligible), in.workingSet)
	}
	return plan{}
}

// liveMax is the most the live outputs may hold together and stay (a
// file at its largest share and a test run); past it they are paged in
// one batch with the rest, the same at a 200k window and at 1M.
const liveMax = 32_000

// unlive drops the live outputs from eligible while together they hold
// at most liveMax; past it, none is kept for being live.
func unlive(eligible []item) []item {
	live := 0
	for _, it := range eligible {
		if it.live {
			live += it.tokens
		}
	}
	if live > liveMax {
		return eligible
	}
	return slices.DeleteFunc(eligible, func(it item) bool { return it.live })
}

// batch pages the answered outputs once they hold more than the working
// set, from the break whose gain is largest: what keeping the outputs
// after it would cost over keepHorizon requests, less what paging costs
// (the re-billed tail, the chance of a re-read).
func batch(eligible []item, workingSet int) plan {
	var cands []item
	kept := 0
	for _, it := range eligible {
		if it.level != LevelSummary && it.tokens >= minPage {
			cands = append(cands, it)
			kept += it.tokens
		}
	}
	if kept <= workingSet {
		return plan{}
	}
	p := plan{reason: ReasonCheap, stub: map[string]bool{}}
	best, bestGain := -1, 0
	freed := 0 // by paging cands[k:]
	for k := len(cands) - 1; k >= 0; k-- {
		// The tail after the break, less what the later pages take out
		// of it (their stubs stay).
		rebilled := max(cands[k].after-freed, 0)
		freed += cands[k].tokens - stubCost
		keep := freed * keepHorizon / 10
		page := rebilled*9/10 + freed*rereadPct/100
		if gain := keep - page; gain > bestGain {
			best, bestGain, p.rebilled = k, gain, rebilled
		}
	}
	if best < 0 {
		return plan{}
	}
	for _, it := range cands[best:] {
		p.ids = append(p.ids, it.id)
		p.stub[it.id] = true
	}
	return p
}

// staleKey is staleKey(c), cached by call id.
func (st *segState) staleKey(c llm.ToolCall) string {
	if c.ID == "" {
		return staleKey(c)
	}
	if k, ok := st.keys[c.ID]; ok {
		return k
	}
	if st.keys == nil {
		st.keys = map[string]string{}
	}
	k := staleKey(c)
	st.keys[c.ID] = k
	return k
}

// staleKey names what a call observes, so a later call with the same key
// makes its output stale: a file (read, written or edited) or a command.
func staleKey(c llm.ToolCall) string {
	switch a := argsOf(c); {
	case strings.HasPrefix(c.Name, "file_") && a.Path != "":
		return "file:" + a.Path
	case c.Name == "shell_exec" && a.Command != "":
		return "cmd:" + a.Command
	}
	return ""
}

// compact carries out a plan: each output is paged (once: a capped one
// already has its page) and shown as a summary, or as a stub when it is
// stale or when summaries do not free what the step needs.
func (w *Window) compact(ctx context.Context, in Input, st *segState, msgs []llm.Message, p plan, sums *[]SummaryCall) (Compaction, error) {
	res := Compaction{Reason: p.reason, Rebilled: p.rebilled}
	outs := map[string]llm.ToolResult{}
	calls := map[string]llm.ToolCall{}
	for _, m := range msgs {
		for _, part := range m.Parts {
			if part.ToolResult != nil {
				outs[part.ToolResult.CallID] = *part.ToolResult
			}
			if part.ToolCall != nil {
				calls[part.ToolCall.ID] = *part.ToolCall
			}
		}
	}
	shownTokens := func(id string) int {
		text := outs[id].Content
		if c, ok := st.shown[id]; ok {
			text = c.Text
		}
		return w.opts.Counter.Count(text)
	}
	for pass := 0; pass < 2; pass++ {
		if pass == 1 && (p.need == 0 || res.Freed >= p.need) {
			break
		}
		for _, id := range p.ids {
			if pass == 0 && res.Freed >= p.need && p.need > 0 && p.reason == ReasonBudget {
				break
			}
			cur := st.shown[id]
			if cur.Level == LevelStub || (pass == 0 && cur.Level == LevelSummary) {
				continue
			}
			raw, call := outs[id].Content, calls[id]
			page := cur.PageID
			if raw == "" && page != "" {
				// Left out of a resumed history: its page has it.
				var err error
				if raw, err = w.opts.Pages.PageText(ctx, page); err != nil {
					return res, fmt.Errorf("window: reading page %s back: %w", page, err)
				}
			}
			if page == "" {
				page = recalledPage(call, raw)
			}
			if page == "" {
				var err error
				if page, err = w.putPage(ctx, in, call, id, raw, w.opts.Counter.Count(raw)); err != nil {
					return res, err
				}
				res.Pages = append(res.Pages, page)
			}
			level, text := LevelStub, Stub(call, raw, page, w.opts.Counter.Count(raw))
			if pass == 0 && !p.stub[id] {
				if s := w.summary(ctx, call, raw, page, sums); len(s) < len(raw)/2 {
					level, text = LevelSummary, s
				}
			}
			before := shownTokens(id)
			freed := before - w.opts.Counter.Count(text)
			if freed <= 0 {
				continue
			}
			s := Shown{CallID: id, Level: level, PageID: page, Text: text}
			if err := w.opts.Pages.RecordShown(ctx, in.SessionID, in.Segment, s); err != nil {
				return res, fmt.Errorf("window: %w", err)
			}
			st.shown[id] = s
			res.Items++
			res.Freed += freed
		}
	}
	w.opts.Logger.Debug("window: compacted", "session", in.SessionID, "reason", res.Reason, "items", res.Items, "freed", res.Freed, "need", p.need)
	return res, nil
}

// putPage pages the output of call id whole.
func (w *Window) putPage(ctx context.Context, in Input, call llm.ToolCall, id, raw string, tokens int) (string, error) {
	page, err := w.opts.Pages.PutPage(ctx, Page{
		SessionID: in.SessionID, Segment: in.Segment, Kind: "tool_output",
		Tags: []string{call.Name, id}, Tokens: tokens, Summary: Stub(call, raw, "p?", tokens), Text: raw,
	})
	if err != nil {
		return "", fmt.Errorf("window: paging out: %w", err)
	}
	return page, nil
}

// recalledPage is the page a recall output shows, when it shows one
// ("[page p12: …" for {"query": "p12"}): paging the output points at that
// page rather than keep its text twice.
func recalledPage(c llm.ToolCall, raw string) string {
	if c.Name != "recall" {
		return ""
	}
	if q := strings.TrimSpace(argsOf(c).Query); q != "" && strings.HasPrefix(raw, "[page "+q+":") {
		return q
	}
	return ""
}

// capOutputs pages whole every new output over its share and shows its
// head and tail instead, before it is first sent. One output's share is
// OutputShare; the outputs of one step share StepShare, the largest cut
// to an equal part of what the smaller leave.
func (w *Window) capOutputs(ctx context.Context, in Input, st *segState, msgs []llm.Message) (*Compaction, error) {
	b := w.opts.Budget
	calls := map[string]llm.ToolCall{}
	type out struct {
		r      *llm.ToolResult
		tokens int
		step   bool // in the newest step
	}
	lastAssistant := -1
	for i, m := range msgs {
		if m.Role == llm.RoleAssistant {
			lastAssistant = i
		}
	}
	var outs []out
	stepBytes, stepFits := 0, true
	for i, m := range msgs {
		for _, p := range m.Parts {
			if p.ToolCall != nil {
				calls[p.ToolCall.ID] = *p.ToolCall
			}
			r := p.ToolResult
			if r == nil {
				continue
			}
			if _, done := st.shown[r.CallID]; done {
				continue
			}
			step := i > lastAssistant
			if !step && len(r.Content) <= b.OutputShare*2 {
				continue // under 2 bytes a token: within the share
			}
			if step {
				n := w.scaled(len(r.Content))
				stepBytes += n
				stepFits = stepFits && n <= b.OutputShare
			}
			outs = append(outs, out{r: r, tokens: -1, step: step})
		}
	}
	// A step whose outputs fit their shares even at a token a byte is
	// not cut, and its new outputs need no count (nor the tokenizer).
	if stepFits && stepBytes <= b.StepShare() {
		outs = slices.DeleteFunc(outs, func(o out) bool { return o.step })
	}
	for k := range outs {
		outs[k].tokens = w.scaled(w.opts.Counter.Count(outs[k].r.Content))
	}
	// Water-fill the step's share: outputs under an equal part keep
	// whole, the rest split what they leave.
	shares := make([]int, len(outs))
	var step []int
	for k, o := range outs {
		shares[k] = b.OutputShare
		if o.step {
			step = append(step, k)
		}
	}
	slices.SortFunc(step, func(x, y int) int { return outs[x].tokens - outs[y].tokens })
	room := b.StepShare()
	for n, k := range step {
		fair := room / (len(step) - n)
		shares[k] = max(min(b.OutputShare, fair), minShare)
		room -= min(outs[k].tokens, shares[k])
	}
	var res *Compaction
	for k, o := range outs {
		if o.tokens <= shares[k] {
			continue
		}
		r, share := o.r, shares[k]
		call := calls[r.CallID]
		n := w.opts.Counter.Count(r.Content)
		page, err := w.putPage(ctx, in, call, r.CallID, r.Content, n)
		if err != nil {
			return nil, err
		}
		text := w.capped(call, r.Content, page, n, share)
		s := Shown{CallID: r.CallID, Level: LevelCapped, PageID: page, Text: text}
		if err := w.opts.Pages.RecordShown(ctx, in.SessionID, in.Segment, s); err != nil {
			return nil, fmt.Errorf("window: %w", err)
		}
		st.shown[r.CallID] = s
		if res == nil {
			res = &Compaction{Reason: ReasonCap}
		}
		res.Items++
		res.Pages = append(res.Pages, page)
		res.Freed += n - w.opts.Counter.Count(text)
	}
	return res, nil
}

// minShare is the least an output is cut to: its notice and a few lines.
const minShare = 400

// capped is the view of an output over the share: its first lines and its
// last, within share tokens, and how to read the rest.
func (w *Window) capped(call llm.ToolCall, raw, page string, tokens, share int) string {
	perToken := float64(len(raw)) / float64(max(tokens, 1))
	room := int(float64(share-120) * perToken) // the notice takes ~120
	lines := strings.Count(raw, "\n") + 1
	if call.Name == "file_read" {
		// A read is read on from where its head ends: its tail would
		// come again in the next read, so the head takes the room, and
		// only the read's own footer (how long the file is) follows.
		footer := ""
		if i := strings.LastIndex(strings.TrimRight(raw, "\n"), "\n"); i >= 0 && strings.HasPrefix(raw[i+1:], "[") {
			footer = strings.TrimRight(raw[i+1:], "\n")
		}
		head := cutHead(raw, room-len(footer))
		headLines := strings.Count(head, "\n")
		readOn := fmt.Sprintf(`recall {"query":%q,"offset":%d}`, page, len(head))
		if _, n := numberedLines(head); n > 0 {
			readOn = fmt.Sprintf("file_read with start_line=%d, or %s", n+1, readOn)
		}
		return fmt.Sprintf("[godwit: this output is %d tokens, more than the %d one output may take here. Shown: its first %d of %d lines. The whole output is page %s; %s reads on.]\n%s[… the rest of the output not shown: page %s …]\n%s",
			tokens, share, headLines, lines, page, readOn, head, page, footer)
	}
	head, tail := cutHead(raw, room*7/10), cutTail(raw, room*3/10)
	headLines, tailLines := strings.Count(head, "\n"), strings.Count(tail, "\n")
	readOn := fmt.Sprintf(`recall {"query":%q,"offset":%d} reads on from where the head ends`, page, len(head))
	return fmt.Sprintf("[godwit: this output is %d tokens, more than the %d one output may take here. Shown: its first %d and last %d of %d lines. The whole output is page %s; %s.]\n%s\n[… %d lines not shown: page %s …]\n%s",
		tokens, share, headLines, tailLines, lines, page, readOn, head, max(lines-headLines-tailLines, 0), page, tail)
}

// numberedLines are the numbers of the first and the last "N\t" line of
// a file_read output (0: none).
func numberedLines(raw string) (first, last int) {
	for line := range strings.Lines(raw) {
		num, _, ok := strings.Cut(line, "\t")
		if n, err := strconv.Atoi(num); ok && err == nil && n > 0 {
			first, last = cmp.Or(first, n), n
		}
	}
	return first, last
}

// cutHead returns the start of s, at most n bytes, ending at a line end
// when one is near.
func cutHead(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	if i := strings.LastIndexByte(s[:n], '\n'); i > n/2 {
		n = i + 1
	}
	return s[:n]
}

// cutTail returns the end of s, at most n bytes, starting at a line start
// when one is near.
func cutTail(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	at := len(s) - n
	for at < len(s) && (s[at]&0xC0) == 0x80 {
		at++
	}
	if i := strings.IndexByte(s[at:], '\n'); i >= 0 && i < n/2 {
		at += i + 1
	}
	return s[at:]
}

// errorWords mark the lines of an output worth keeping in its summary,
// in any case.
var errorWords = []string{"error", "fail", "panic", "exception", "undefined", "cannot", "not found", "denied", "traceback", "fatal"}

// errorLines returns the indexes of the lines of raw (split at "\n")
// that hold an error word, in order, at most max (0: all).
func errorLines(raw string, max int) []int {
	var lines []int
	for i, l := range strings.Split(untrusted.LowerASCII(raw), "\n") {
		if slices.ContainsFunc(errorWords, func(w string) bool { return strings.Contains(l, w) }) {
			lines = append(lines, i)
			if len(lines) == max {
				break
			}
		}
	}
	return lines
}

// args are what a call's arguments say it observes.
type args struct {
	Path    string `json:"path"`
	Command string `json:"command"`
	Query   string `json:"query"`
}

func argsOf(c llm.ToolCall) (a args) {
	_ = json.Unmarshal(c.Args, &a)
	return a
}

// describe names an output for stubs: `shell_exec "go test ./..."`.
func describe(c llm.ToolCall) string { return Describe(c, 80, "command", "pattern", "query", "path") }

// Describe names a call by the first of its string arguments keys that
// is set, cut to n bytes: `file_read "parse.go"`; the name alone when
// none is.
func Describe(c llm.ToolCall, n int, keys ...string) string {
	var m map[string]any
	_ = json.Unmarshal(c.Args, &m)
	for _, k := range keys {
		if arg, _ := m[k].(string); arg != "" {
			if len(arg) > n {
				arg = arg[:n] + "…"
			}
			return fmt.Sprintf("%s %q", c.Name, arg)
		}
	}
	return c.Name
}

// Summary shrinks an output without a model call: its first and last
// lines and the lines that look like errors, with the page that keeps the
// whole.
func Summary(c llm.ToolCall, raw, pageID string) string {
	lines := strings.Split(strings.TrimRight(raw, "\n"), "\n")
	var b strings.Builder
	fmt.Fprintf(&b, "[summarized %s: %s output, %s, %d bytes; the whole text: recall(%q)]\n", pageID, describe(c), nLines(len(lines)), len(raw), pageID)
	if len(lines) <= 20 {
		b.WriteString(cut(strings.Join(lines, "\n"), 1200))
		return b.String()
	}
	b.WriteString(cut(strings.Join(lines[:6], "\n"), 600))
	var errs []string
	for _, i := range errorLines(strings.Join(lines[6:len(lines)-6], "\n"), 8) {
		errs = append(errs, cut(lines[6+i], 200))
	}
	if len(errs) > 0 {
		b.WriteString("\n…\n" + strings.Join(errs, "\n"))
	}
	b.WriteString("\n…\n" + cut(strings.Join(lines[len(lines)-6:], "\n"), 600))
	return b.String()
}

// Stub is the one line left when an output is paged out: the page id
// and what it held (the call, its lines, for a read the file's lines it
// showed, its size when tokens > 0, its first error line but in a read,
// where source code says "error" on every page), so a model that needs
// it again recalls the page rather than redo the call.
func Stub(c llm.ToolCall, raw, pageID string, tokens int) string {
	lines := strings.Count(strings.TrimRight(raw, "\n"), "\n") + 1
	held := nLines(lines)
	if c.Name == "file_read" {
		switch first, last := numberedLines(raw); {
		case first > 0 && last > first:
			held = fmt.Sprintf("lines %d-%d", first, last)
		case first > 0:
			held = fmt.Sprintf("line %d", first)
		}
	}
	if tokens > 0 {
		held += ", " + tokenSize(tokens)
	}
	key := ""
	if at := errorLines(raw, 1); len(at) > 0 && c.Name != "file_read" {
		key = "; first error: " + cut(strings.TrimSpace(strings.Split(raw, "\n")[at[0]]), 120)
	}
	return fmt.Sprintf("[paged out %s: %s output, %s%s; recall(%q)]", pageID, describe(c), held, key, pageID)
}

// tokenSize writes a token count briefly: "850 tokens", "3.1k tokens".
func tokenSize(n int) string {
	if n < 1000 {
		return fmt.Sprintf("%d tokens", n)
	}
	return fmt.Sprintf("%.1fk tokens", float64(n)/1000)
}

func nLines(n int) string {
	if n == 1 {
		return "1 line"
	}
	return fmt.Sprintf("%d lines", n)
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n] + "…"
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
