package trace

import (
	"fmt"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/digits"
	"github.com/godwit/godwit/internal/store"
)

// traceIndex groups a trace's records by turn and step, for the
// transcript and the page.
type traceIndex struct {
	calls     map[stepKey][]store.ModelCall
	responses map[stepKey][]*agent.ResponseInfo // in order; a handoff call shares its step
	tools     map[stepKey][]store.ToolCall
	steps     map[int64][]int // turn id -> steps, in order
	diffs     map[callKey]string
	// notes are what the engine did after a step, in order.
	notes map[stepKey][]Note
	// verify holds the verify runs no event placed after a step.
	verify map[int64][]VerifyRun
}

type stepKey struct {
	turn int64
	step int
}

func index(t *Trace) *traceIndex {
	x := &traceIndex{
		calls:     map[stepKey][]store.ModelCall{},
		responses: map[stepKey][]*agent.ResponseInfo{},
		tools:     map[stepKey][]store.ToolCall{},
		steps:     map[int64][]int{},
		diffs:     map[callKey]string{},
		notes:     map[stepKey][]Note{},
		verify:    map[int64][]VerifyRun{},
	}
	addStep := func(k stepKey) {
		steps := x.steps[k.turn]
		for _, s := range steps {
			if s == k.step {
				return
			}
		}
		x.steps[k.turn] = append(steps, k.step)
	}
	for _, mc := range t.ModelCalls {
		k := stepKey{mc.TurnID, mc.Step}
		addStep(k)
		x.calls[k] = append(x.calls[k], mc)
	}
	for _, c := range t.ToolCalls {
		k := stepKey{c.TurnID, c.Step}
		addStep(k)
		x.tools[k] = append(x.tools[k], c)
	}
	type roundKey struct {
		turn  int64
		round int
	}
	runs := map[roundKey]*store.VerifyRun{}
	for i, v := range t.VerifyRuns {
		runs[roundKey{v.TurnID, v.Round}] = &t.VerifyRuns[i]
	}
	placed := map[*store.VerifyRun]bool{}
	last := map[int64]int{} // turn id -> the last step its events named
	for _, e := range t.Events {
		if e.Step > 0 {
			last[e.TurnID] = e.Step
		}
		after := stepKey{e.TurnID, last[e.TurnID]}
		switch {
		case e.Type == agent.EventModelResponse && e.Response != nil:
			k := stepKey{e.TurnID, e.Step}
			x.responses[k] = append(x.responses[k], e.Response)
		case e.Type == agent.EventToolFinished && e.Tool != nil && e.Tool.Diff != "":
			x.diffs[callKey{e.TurnID, e.Tool.CallID}] = e.Tool.Diff
		case e.Type == agent.EventVerify && e.Verify != nil:
			if v := runs[roundKey{e.TurnID, e.Verify.Round}]; v != nil && !placed[v] {
				placed[v] = true
				x.notes[after] = append(x.notes[after], verifyView(*v).note())
			}
		case e.Type == agent.EventNudge && e.Nudge != nil:
			x.notes[after] = append(x.notes[after], Note{Kind: e.Type,
				Text: "check " + e.Nudge.Check + " sent the model back", Detail: e.Nudge.Message})
		case e.Type == agent.EventSegmentReset && e.Reset != nil:
			// A reset comes before the call of its step: it follows the
			// step before.
			after.step = max(0, e.Step-1)
			r, by := e.Reset, "godwit"
			if r.ByModel {
				by = "the model"
			}
			x.notes[after] = append(x.notes[after], Note{Kind: e.Type, Text: fmt.Sprintf(
				"segment %d -> %d (%s): handoff of %s tokens written by %s", r.From, r.To, r.Reason, digits.Group(int64(r.Tokens)), by)})
		case e.Type == agent.EventCompacted && e.Compacted != nil:
			if e.Step > 0 {
				after.step = e.Step - 1 // as for a reset
			}
			c := e.Compacted
			x.notes[after] = append(x.notes[after], Note{Kind: e.Type, Text: "context compacted: " +
				digits.Group(int64(c.Items)) + " items, " + digits.Group(int64(c.Freed)) + " tokens freed"})
		}
	}
	for i, v := range t.VerifyRuns {
		if !placed[&t.VerifyRuns[i]] {
			x.verify[v.TurnID] = append(x.verify[v.TurnID], verifyView(v))
		}
	}
	return x
}
