package trace

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/digits"
	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/llm"
)

// View is the web page's data: the session as turns of steps, each step
// a model call and the tool calls it asked for, plus the report. Its
// JSON is what GET /api/trace returns.
type View struct {
	Session SessionView `json:"session"`
	Report  Report      `json:"report"`
	Turns   []TurnView  `json:"turns"`
	// Live is true while a turn is running.
	Live bool `json:"live"`
}

// SessionView is the session's header.
type SessionView struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	Workspace string    `json:"workspace"`
	Model     string    `json:"model"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// TurnView is one turn.
type TurnView struct {
	Seq       int        `json:"seq"`
	Segment   int        `json:"segment"`
	Status    string     `json:"status"`
	Prompt    string     `json:"prompt"`
	StartedAt time.Time  `json:"started_at"`
	EndedAt   *time.Time `json:"ended_at,omitempty"`
	Usage     llm.Usage  `json:"usage"`
	Cost      float64    `json:"cost"`
	Error     string     `json:"error,omitempty"`
	Steps     []StepView `json:"steps"`
	// Before are notes from before the turn's first step.
	Before []Note `json:"before,omitempty"`
	// Verify holds verify runs no event placed after a step.
	Verify []VerifyRun `json:"verify,omitempty"`
}

// StepView is one step: its model calls (one, or a handoff call before
// the step's own) and the tool calls they asked for.
type StepView struct {
	Step  int             `json:"step"`
	Calls []ModelCallView `json:"calls"`
	Tools []ToolCallView  `json:"tools"`
	// After are what the engine did after the step, in order.
	After []Note `json:"after,omitempty"`
}

// Note is something the engine did between model calls.
type Note struct {
	// Kind is the event type: verify, nudge, segment.reset or
	// context.compacted.
	Kind string `json:"kind"`
	// Text says it in one line.
	Text string `json:"text"`
	// Detail is a verify run's output tail or a nudge's message.
	Detail string `json:"detail,omitempty"`
	// Failed marks a failing verify run.
	Failed bool `json:"failed,omitempty"`
}

// ModelCallView is one model call.
type ModelCallView struct {
	Provider     string         `json:"provider"`
	Model        string         `json:"model"`
	StartedAt    time.Time      `json:"started_at"`
	LatencyMS    int64          `json:"latency_ms"`
	TTFTMS       int64          `json:"ttft_ms"`
	Usage        llm.Usage      `json:"usage"`
	Cost         float64        `json:"cost"`
	StopReason   string         `json:"stop_reason,omitempty"`
	Parts        []llm.PartStat `json:"parts"`
	RequestBytes int            `json:"request_bytes"`
	Retries      int            `json:"retries,omitempty"`
	Fallback     string         `json:"fallback,omitempty"`
	Error        string         `json:"error,omitempty"`
	Text         string         `json:"text,omitempty"`
	// Purpose is "" for the step's own call, "handoff" for a handoff.
	Purpose string `json:"purpose,omitempty"`
}

// ToolCallView is one tool call.
type ToolCallView struct {
	CallID     string          `json:"call_id"`
	Name       string          `json:"name"`
	Summary    string          `json:"summary"`
	Args       json.RawMessage `json:"args,omitempty"`
	Output     string          `json:"output"`
	IsError    bool            `json:"is_error,omitempty"`
	Code       string          `json:"code,omitempty"`
	ExitCode   *int            `json:"exit_code,omitempty"`
	DurationMS int64           `json:"duration_ms"`
	Approval   string          `json:"approval,omitempty"`
	Changed    []string        `json:"changed,omitempty"`
	Diff       string          `json:"diff,omitempty"`
}

// VerifyRun is one --verify run.
type VerifyRun struct {
	Round      int    `json:"round"`
	Command    string `json:"command"`
	ExitCode   int    `json:"exit_code"`
	DurationMS int64  `json:"duration_ms"`
	OutputTail string `json:"output_tail,omitempty"`
}

// NewView arranges t for the page.
func NewView(t *Trace) View {
	v := newView(t)
	v.Report = Analyze(t)
	return v
}

// newView is the View without the report: the page's and the
// transcript's. The events place responses, diffs and notes by step; the
// model and tool calls make the steps.
func newView(t *Trace) View {
	responses := map[stepKey][]*agent.ResponseInfo{} // in order; a handoff call shares its step
	diffs := map[callKey]string{}
	notes := map[stepKey][]Note{}     // what the engine did after a step, in order
	verify := map[int64][]VerifyRun{} // the runs no event placed after a step
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
			responses[k] = append(responses[k], e.Response)
		case e.Type == agent.EventToolFinished && e.Tool != nil && e.Tool.Diff != "":
			diffs[callKey{e.TurnID, e.Tool.CallID}] = e.Tool.Diff
		case e.Type == agent.EventVerify && e.Verify != nil:
			if v := runs[roundKey{e.TurnID, e.Verify.Round}]; v != nil && !placed[v] {
				placed[v] = true
				notes[after] = append(notes[after], verifyView(*v).note())
			}
		case e.Type == agent.EventNudge && e.Nudge != nil:
			notes[after] = append(notes[after], Note{Kind: e.Type,
				Text: "check " + e.Nudge.Check + " sent the model back", Detail: e.Nudge.Message})
		case e.Type == agent.EventSegmentReset && e.Reset != nil:
			// A reset comes before the call of its step: it follows the
			// step before.
			after.step = max(0, e.Step-1)
			r, by := e.Reset, "godwit"
			if r.ByModel {
				by = "the model"
			}
			notes[after] = append(notes[after], Note{Kind: e.Type, Text: fmt.Sprintf(
				"segment %d -> %d (%s): handoff of %s tokens written by %s", r.From, r.To, r.Reason, digits.Group(int64(r.Tokens)), by)})
		case e.Type == agent.EventCompacted && e.Compacted != nil:
			if e.Step > 0 {
				after.step = e.Step - 1 // as for a reset
			}
			c := e.Compacted
			notes[after] = append(notes[after], Note{Kind: e.Type, Text: "context compacted: " +
				digits.Group(int64(c.Items)) + " items, " + digits.Group(int64(c.Freed)) + " tokens freed"})
		}
	}
	for i, v := range t.VerifyRuns {
		if !placed[&t.VerifyRuns[i]] {
			verify[v.TurnID] = append(verify[v.TurnID], verifyView(v))
		}
	}
	steps := map[int64][]*StepView{} // turn id -> its steps, in order
	step := func(turn int64, n int) *StepView {
		for _, s := range steps[turn] {
			if s.Step == n {
				return s
			}
		}
		s := &StepView{Step: n, Calls: []ModelCallView{}, Tools: []ToolCallView{}, After: notes[stepKey{turn, n}]}
		steps[turn] = append(steps[turn], s)
		return s
	}
	for _, mc := range t.ModelCalls {
		sv := step(mc.TurnID, mc.Step)
		mv := ModelCallView{Provider: mc.Provider, Model: mc.Model, StartedAt: mc.StartedAt,
			LatencyMS: mc.Latency.Milliseconds(), TTFTMS: mc.TTFT.Milliseconds(), Usage: mc.Usage, Cost: mc.Cost,
			StopReason: mc.StopReason, Parts: mc.Parts, RequestBytes: mc.RequestBytes, Retries: mc.Retries,
			Fallback: mc.Fallback, Error: mc.Error}
		if mv.Parts == nil {
			mv.Parts = []llm.PartStat{}
		}
		sv.Calls = append(sv.Calls, mv)
	}
	for _, c := range t.ToolCalls {
		sv := step(c.TurnID, c.Step)
		sv.Tools = append(sv.Tools, ToolCallView{CallID: c.CallID, Name: c.Name, Summary: argsSummary(c),
			Args: validJSON(c.Args), Output: c.Output, IsError: c.IsError, Code: c.Code, ExitCode: c.ExitCode,
			DurationMS: c.Duration.Milliseconds(), Approval: c.Approval, Changed: c.Changed,
			Diff: diffs[callKey{c.TurnID, c.CallID}]})
	}
	s := t.Session
	v := View{
		Session: SessionView{ID: s.ID, Title: s.Title, Workspace: s.Workspace, Model: s.Model, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt},
		Turns:   make([]TurnView, 0, len(t.Turns)),
	}
	for _, tr := range t.Turns {
		tv := TurnView{Seq: tr.Seq, Segment: tr.Segment, Status: string(tr.Status), Prompt: tr.Prompt,
			StartedAt: tr.StartedAt, Usage: tr.Usage, Cost: tr.Cost, Error: tr.Error, Steps: []StepView{},
			Before: notes[stepKey{tr.ID, 0}], Verify: verify[tr.ID]}
		if !tr.EndedAt.IsZero() {
			end := tr.EndedAt
			tv.EndedAt = &end
		}
		if tr.Status == store.TurnRunning {
			v.Live = true
		}
		for _, sv := range steps[tr.ID] {
			// Calls and responses of a step pair up in order.
			if resps := responses[stepKey{tr.ID, sv.Step}]; len(resps) == len(sv.Calls) {
				for i, r := range resps {
					sv.Calls[i].Text, sv.Calls[i].Purpose = r.Text, r.Purpose
				}
			}
			tv.Steps = append(tv.Steps, *sv)
		}
		v.Turns = append(v.Turns, tv)
	}
	return v
}

type stepKey struct {
	turn int64
	step int
}

func verifyView(r store.VerifyRun) VerifyRun {
	return VerifyRun{Round: r.Round, Command: r.Command, ExitCode: r.ExitCode, DurationMS: r.Duration.Milliseconds(), OutputTail: r.OutputTail}
}

// note is the run as a Note.
func (r VerifyRun) note() Note {
	return Note{Kind: agent.EventVerify, Text: fmt.Sprintf("verify #%d: %s -> exit %d (%d ms)", r.Round, r.Command, r.ExitCode, r.DurationMS),
		Detail: r.OutputTail, Failed: r.ExitCode != 0}
}

// validJSON keeps args that are JSON and quotes those that are not, so
// the page's JSON stays valid.
func validJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	if json.Valid(raw) {
		return raw
	}
	b, _ := json.Marshal(string(raw))
	return b
}
