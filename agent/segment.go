package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/godwit/godwit/handoff"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/store"
	"github.com/godwit/godwit/window"
)

// ResetInfo describes a segment reset.
type ResetInfo struct {
	From   int    `json:"from"`
	To     int    `json:"to"`
	Reason string `json:"reason"`
	// ByModel is false when the model did not write the handoff and godwit
	// built it from the history.
	ByModel bool `json:"by_model"`
	Bytes   int  `json:"bytes"`
	Tokens  int  `json:"tokens"`
	// DecisionsTokens is the Decisions section's share of Tokens.
	DecisionsTokens int `json:"decisions_tokens"`
	Proposals       int `json:"proposals,omitempty"`
	Superseded      int `json:"superseded,omitempty"`
	Rejected        int `json:"rejected,omitempty"`
}

// Reset reasons.
const (
	ResetBudget     = "budget"
	ResetForced     = "forced"
	ResetContextErr = "context_too_long"
)

// ledger records the user's message as said, as an entry of the
// Decisions ledger.
func (s *session) ledger(ctx context.Context, prompt string) error {
	_, err := s.r.cfg.Store.AddDecision(ctx, store.Decision{SessionID: s.id, Source: "user", Turn: s.turnSeq, Text: prompt})
	if err != nil {
		return fmt.Errorf("agent: recording the user's words: %w", err)
	}
	return nil
}

func entries(ds []store.Decision) []handoff.Entry {
	out := make([]handoff.Entry, len(ds))
	for i, d := range ds {
		out[i] = handoff.Entry{Seq: d.Seq, Source: d.Source, Turn: d.Turn, Topic: d.Topic, Text: d.Text, SupersededBy: d.SupersededBy}
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

// reset ends the current segment with a handoff and opens the next one,
// whose first message is the handoff.
func (s *session) reset(ctx context.Context, step int, reason string) error {
	cfg := s.r.cfg
	st := cfg.Store
	ds, err := st.Decisions(ctx, s.id)
	if err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	led := entries(ds)

	text := s.handoffCall(ctx, step, led)
	draft, byModel := handoff.FromModel(text, s.history)
	info := &ResetInfo{From: s.segment, To: s.segment + 1, Reason: reason, ByModel: byModel}

	// The model proposes; the engine decides what enters the ledger.
	for _, p := range draft.Proposals {
		if _, err := st.AddDecision(ctx, store.Decision{SessionID: s.id, Source: "model", Turn: s.turnSeq, Topic: p.Topic, Text: p.Text}); err != nil {
			return fmt.Errorf("agent: %w", err)
		}
		info.Proposals++
	}
	if ds, err = st.Decisions(ctx, s.id); err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	led = entries(ds)
	for _, sup := range draft.Supersede {
		if err := handoff.Validate(led, sup); err != nil {
			cfg.Logger.Info("agent: supersession rejected", "err", err)
			info.Rejected++
			continue
		}
		if err := st.SupersedeDecision(ctx, s.id, sup.Old, sup.By); err != nil {
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
	h := handoff.Compose(s.segment+1, draft, led, prevCoords, s.references(ctx))
	if cfg.SegmentNotes != nil {
		h.Notes = append(h.Notes, cfg.SegmentNotes(ctx)...)
	}
	msg := h.Render()
	info.Bytes = len(msg)
	info.Tokens = s.count(msg)
	info.DecisionsTokens = s.count(handoff.RenderLedger(led))

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

func (s *session) count(text string) int {
	if s.r.counter != nil {
		return s.r.counter.Count(text)
	}
	return window.Estimate(text)
}

// handoffCall asks the model for the handoff. The request is the
// segment's history plus the instruction, so it extends the cached prefix;
// it has no output limit (reasoning models spend output on thinking), and
// any tool call in the answer is ignored. On failure it returns "" and
// the mechanical handoff stands in.
func (s *session) handoffCall(ctx context.Context, step int, led []handoff.Entry) string {
	cfg := s.r.cfg
	hist := append(append([]llm.Message(nil), s.history...), llm.UserText(handoff.Instruction(led)))
	for attempt := 0; attempt < 2 && len(hist) > 1; attempt++ {
		asm, err := cfg.Assembler.Assemble(ctx, window.Input{SessionID: s.id, Segment: s.segment, Messages: hist})
		if err != nil && !errors.Is(err, window.ErrOverBudget) {
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
		// Too long even to summarise: keep the newer half.
		half := hist[len(hist)/2:]
		hist = append(window.TrimLeadingResults(half), hist[len(hist)-1])
	}
	return ""
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
	return []string{"Earlier segments: " + strings.Join(ids, ", ") + ". recall(\"segN\") shows the handoff that ended segment N; recall(words) searches everything said and paged out in this session."}
}
