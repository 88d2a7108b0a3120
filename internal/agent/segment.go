package agent

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/godwit/godwit/internal/handoff"
	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/window"
	"github.com/godwit/godwit/llm"
)

// Reset reasons.
const (
	ResetBudget     = "budget"
	ResetForced     = "forced"
	ResetContextErr = "context_too_long"
)

// ledger records the user's message verbatim in the Decisions ledger
// with its kind, tells the user when it was kept as a rule, and retires
// the earlier instructions it changes.
func (s *session) ledger(ctx context.Context, prompt string) error {
	st := s.r.cfg.Store
	kind := handoff.Classify(prompt)
	d, err := st.AddDecision(ctx, store.Decision{SessionID: s.id, Source: "user", Kind: kind, Turn: s.turnSeq, Text: prompt})
	if err != nil {
		return fmt.Errorf("agent: recording the user's words: %w", err)
	}
	if kind != handoff.KindInstruction {
		return nil
	}
	s.emit(Event{Type: EventKept, Kept: &KeptInfo{Seq: d.Seq}})
	_, err = retire(ctx, st, s.id, d.Seq, s.emit)
	return err
}

// retire supersedes the earlier standing instructions that the user's
// instruction seq changes (handoff.Supersedes), reporting each.
func retire(ctx context.Context, st Ledger, sessionID string, seq int, emit func(Event)) ([]int, error) {
	ds, err := st.Decisions(ctx, sessionID)
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	led := entries(ds)
	var e handoff.Entry
	for _, x := range led {
		if x.Seq == seq {
			e = x
		}
	}
	if e.SupersededBy != 0 {
		return nil, nil // a retired rule retires nothing
	}
	old := handoff.Supersedes(led, e)
	for _, o := range old {
		if err := supersede(ctx, st, sessionID, led, o, seq, "godwit", emit); err != nil {
			return nil, err
		}
	}
	return old, nil
}

// supersede retires entry old in favour of by and reports it.
func supersede(ctx context.Context, st Ledger, sessionID string, led []handoff.Entry, old, by int, proposedBy string, emit func(Event)) error {
	if err := st.SupersedeDecision(ctx, sessionID, old, by); err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	info := &SupersededInfo{Old: old, By: by, ProposedBy: proposedBy}
	for _, e := range led {
		switch e.Seq {
		case old:
			info.OldText = e.Text
		case by:
			info.ByText = e.Text
		}
	}
	emit(Event{Type: EventSuperseded, SessionID: sessionID, Superseded: info})
	return nil
}

// Pin records the user's word, over the classifier's, on whether ledger
// entry ref ("D12") is a rule: a rule retires the earlier rules it
// changes; not a rule restores those. It returns a line for the user.
func Pin(ctx context.Context, st Ledger, sessionID, ref string, pin bool) (string, error) {
	seq, err := strconv.Atoi(strings.TrimLeft(strings.TrimSpace(ref), "Dd"))
	if err != nil || seq <= 0 {
		return "", fmt.Errorf("%w %q: ids are D1, D2, ... as /rules shows them", ErrBadRef, ref)
	}
	kind := store.PinRule
	if !pin {
		kind = store.PinRequest
	}
	restored, err := st.PinDecision(ctx, sessionID, seq, kind)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return "", fmt.Errorf("%w D%d of yours in this session; /rules lists them", ErrBadRef, seq)
	case err != nil:
		return "", fmt.Errorf("agent: %w", err)
	case !pin:
		msg := fmt.Sprintf("D%d unpinned: a request now, not a rule", seq)
		switch len(restored) {
		case 0:
		case 1:
			msg += "; " + refs(restored) + " stands again"
		default:
			msg += "; " + refs(restored) + " stand again"
		}
		return msg, nil
	}
	retired, err := retire(ctx, st, sessionID, seq, func(Event) {})
	if err != nil {
		return "", err
	}
	msg := fmt.Sprintf("D%d pinned: kept as a rule", seq)
	if len(retired) > 0 {
		msg += "; it replaces " + refs(retired)
	}
	return msg, nil
}

// Rules lists a session's ledger for the user (handoff.RulesText): what
// stands, what was superseded and by what, the newest requests. pin and
// unpin are the commands that change an entry where the list is shown
// ("/pin Dn").
func Rules(ctx context.Context, st Ledger, sessionID, pin, unpin string) (string, error) {
	ds, err := st.Decisions(ctx, sessionID)
	if err != nil {
		return "", fmt.Errorf("agent: %w", err)
	}
	return handoff.RulesText(entries(ds), handoff.Hints{Pin: pin, Unpin: unpin}), nil
}

// ErrBadRef: the user named a ledger entry that is not one of theirs.
var ErrBadRef = errors.New("no entry")

func refs(seqs []int) string {
	var out []string
	for _, n := range seqs {
		out = append(out, fmt.Sprintf("D%d", n))
	}
	return strings.Join(out, ", ")
}

func entries(ds []store.Decision) []handoff.Entry {
	out := make([]handoff.Entry, len(ds))
	for i, d := range ds {
		kind := d.Kind
		switch d.Pinned {
		case store.PinRule:
			kind = handoff.KindInstruction
		case store.PinRequest:
			kind = handoff.KindRequest
		}
		out[i] = handoff.Entry{Seq: d.Seq, Source: d.Source, Kind: kind, Turn: d.Turn, Topic: d.Topic, Text: d.Text, SupersededBy: d.SupersededBy, Pin: d.Pinned}
	}
	return out
}

// canReset reports whether a new segment would hold less than this one:
// a segment that is only its handoff and one message cannot shrink.
func (s *session) canReset() bool {
	n := 0
	for _, m := range s.history {
		if m.Role == llm.RoleUser && strings.HasPrefix(m.Text(), window.HandoffPrefix) {
			continue
		}
		n++
	}
	return n > 1
}

// renderLedger renders the ledger within its budget, and tells the user
// once a segment when only standing instructions were left to shrink.
func (s *session) renderLedger(led []handoff.Entry, warn bool) handoff.Ledger {
	budget := s.r.budget().Ledger
	l := handoff.RenderLedger(led, handoff.LedgerOptions{Budget: budget, Count: s.r.counter.Count})
	if (l.Over || l.Rules > 0) && warn {
		n := 0
		for _, e := range led {
			if e.Source == "user" && e.SupersededBy == 0 && e.Kind == handoff.KindInstruction {
				n++
			}
		}
		text := fmt.Sprintf("your %d standing instructions take more than the %d tokens the ledger has in this window", n, budget)
		if l.Rules > 0 {
			text += fmt.Sprintf("; %d without a word like \"always\" or \"never\" were shortened to one line (the model can recall them whole)", l.Rules)
		}
		if l.Over {
			text += "; the others are kept whole, so less room is left for the work"
		}
		s.emit(Event{Type: EventLedgerOver, Ledger: &LedgerInfo{Tokens: s.r.counter.Count(l.Text), Budget: budget, Instructions: n, Shortened: l.Rules},
			Text: text + ". /rules lists them; /unpin Dn lets one shrink."})
	}
	return l
}

// reset ends the current segment with a handoff and opens the next one,
// whose first message is the handoff.
func (s *session) reset(ctx context.Context, step int, reason string) error {
	cfg := s.r.cfg
	st := cfg.Store
	// The handoff reads every output of the segment.
	if err := s.hydrate(ctx); err != nil {
		return err
	}
	ds, err := st.Decisions(ctx, s.id)
	if err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	led := entries(ds)
	text := s.handoffCall(ctx, step, s.renderLedger(led, false).Text)
	facts := s.facts(ctx, led)
	draft, byModel := handoff.FromModel(text, facts)
	info := &ResetInfo{From: s.segment, To: s.segment + 1, Reason: reason, ByModel: byModel}
	info.Dropped = handoff.Sanitize(&draft, led)
	// The model proposes; the engine decides what enters the ledger.
	for _, p := range draft.Proposals {
		if err := handoff.Admit(led, p.Text, facts.Outputs); err != nil {
			cfg.Logger.Info("agent: proposal rejected", "err", err)
			info.Rejected++
			continue
		}
		d, err := st.AddDecision(ctx, store.Decision{SessionID: s.id, Source: "model", Turn: s.turnSeq, Topic: p.Topic, Text: p.Text})
		if err != nil {
			return fmt.Errorf("agent: %w", err)
		}
		led = append(led, handoff.Entry{Seq: d.Seq, Source: "model", Turn: s.turnSeq, Topic: p.Topic, Text: p.Text})
		info.Proposals++
	}
	for _, sup := range draft.Supersede {
		if err := handoff.Validate(led, sup); err != nil {
			cfg.Logger.Info("agent: supersession rejected", "err", err)
			info.Rejected++
			continue
		}
		if err := supersede(ctx, st, s.id, led, sup.Old, sup.By, "model", s.emit); err != nil {
			info.Rejected++
			continue
		}
		info.Superseded++
	}
	for seq, topic := range draft.Topics {
		_ = st.SetDecisionTopic(ctx, s.id, seq, topic)
	}
	if ds, err = st.Decisions(ctx, s.id); err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	led = entries(ds)
	var prevCoords []handoff.Coordinate
	if len(s.history) > 0 && strings.HasPrefix(s.history[0].Text(), window.HandoffPrefix) {
		prevCoords = handoff.Parse(s.history[0].Text()).Coordinates
	}
	ledger := s.renderLedger(led, true)
	refs := s.references(ctx)
	if p := draft.Pages(); len(p) > 0 {
		refs = append([]string{"Pages worth recalling: " + strings.Join(p, "; ")}, refs...)
	}
	h := handoff.Compose(s.segment+1, draft, ledger.Text, prevCoords, refs)
	if cfg.SegmentNotes != nil {
		h.Notes = append(h.Notes, cfg.SegmentNotes(ctx)...)
	}
	msg := h.Render()
	info.Bytes = len(msg)
	info.Tokens = s.r.counter.Count(msg)
	info.DecisionsTokens, info.Shrunk = s.r.counter.Count(ledger.Text), ledger.Shrunk
	if err := st.EndSegment(ctx, s.id, s.segment, msg, info.Tokens); err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	s.segment++
	if err := st.StartSegment(ctx, s.id, s.segment, reason); err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	s.history = nil
	if err := s.append(ctx, llm.UserText(msg)); err != nil {
		return err
	}
	s.emit(Event{Type: EventSegmentReset, Step: step, Reset: info})
	return nil
}

// facts are what the engine knows of the segment for its own handoff:
// the request in progress (this turn's), the files and checks from the
// history, the plan's open steps, and the pages paged out.
func (s *session) facts(ctx context.Context, led []handoff.Entry) handoff.Facts {
	f := handoff.FactsFrom(s.history)
	f.Turn = s.turnSeq
	for i := len(led) - 1; i >= 0; i-- {
		if e := led[i]; e.Source == "user" && e.Turn == s.turnSeq {
			f.Request, f.Ref = e.Text, e.Ref()
			break
		}
	}
	if f.Request == "" && s.prompt != "" {
		f.Request = s.prompt
	}
	if s.prompt == "" {
		// A reset the user asked for, before the turn's message: that
		// message follows the handoff and is the request in progress.
		f.Request, f.Ref = "", ""
	}
	if s.r.cfg.OpenPlan != nil {
		f.Plan = s.r.cfg.OpenPlan()
	}
	if cs, err := s.r.cfg.Store.Compactions(ctx, s.id, s.segment); err == nil {
		calls := map[string]llm.ToolCall{}
		for _, m := range s.history {
			for _, c := range m.ToolCalls() {
				calls[c.ID] = c
			}
		}
		for _, c := range cs {
			f.Pages = append(f.Pages, handoff.PageRef{ID: c.PageID, What: window.Describe(calls[c.CallID], 60, "path", "command", "pattern", "query")})
		}
		if n := len(f.Pages); n > 8 {
			f.Pages = f.Pages[n-8:]
		}
	}
	return f
}

// handoffCall asks the model for the handoff: the segment's history plus
// the instruction, so it extends the cached prefix. Made to fit, it drops
// the newest messages first (see shorten). Tool calls in the answer are
// ignored; on failure it returns "" and the engine's own handoff stands
// in.
func (s *session) handoffCall(ctx context.Context, step int, ledger string) string {
	cfg := s.r.cfg
	instr := llm.UserText(handoff.Instruction(ledger))
	hist := append([]llm.Message(nil), s.history...)
	for attempt := 0; attempt < 8 && len(hist) > 0; attempt++ {
		msgs, _ := window.Repair(append(append([]llm.Message(nil), hist...), instr))
		asm, err := cfg.Assembler.Assemble(ctx, window.Input{SessionID: s.id, Segment: s.segment, Messages: msgs, Handoff: true})
		s.recordSummaries(ctx, step, asm.Summaries)
		if errors.Is(err, window.ErrOverBudget) {
			hist = shorten(hist, attempt)
			continue
		}
		if err != nil {
			return ""
		}
		req := asm.Request
		req.Model, req.CacheKey, req.MaxOutputTokens, req.Reasoning = cfg.Model, s.id, 0, cfg.Reasoning
		resp, err := s.stream(ctx, step, req, asm, PurposeHandoff)
		if err == nil {
			return resp.Message.Text()
		}
		if !errors.Is(err, llm.ErrContextTooLong) {
			return ""
		}
		hist = shorten(hist, attempt)
	}
	return ""
}

// shorten drops the newest message (and what answers it) of a history
// too long for the handoff call, keeping the cached prefix; from the
// fourth try on it drops the older half.
func shorten(hist []llm.Message, attempt int) []llm.Message {
	if attempt >= 3 || len(hist) <= 2 {
		half := hist[len(hist)/2:]
		return window.TrimLeadingResults(half)
	}
	hist = hist[:len(hist)-1]
	// An assistant message whose calls lost their results goes too, as
	// Repair would only answer them "cancelled".
	for len(hist) > 1 && hist[len(hist)-1].Role == llm.RoleAssistant && len(hist[len(hist)-1].ToolCalls()) > 0 {
		hist = hist[:len(hist)-1]
	}
	return hist
}

// references lists what the next segment can look up with recall.
func (s *session) references(ctx context.Context) []string {
	segs, err := s.r.cfg.Store.Segments(ctx, s.id)
	if err != nil {
		return nil
	}
	var ids []string
	for _, sg := range segs {
		ids = append(ids, fmt.Sprintf("seg%d", sg.Seq))
	}
	if len(ids) > 12 {
		ids = ids[len(ids)-12:]
	}
	return []string{"Earlier segments: " + strings.Join(ids, ", ") + ". recall(\"segN\") shows the handoff that ended segment N; recall(\"D5\") shows a Decisions entry whole; recall(words) searches everything said and paged out in this session."}
}
