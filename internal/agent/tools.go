package agent

import (
	"cmp"
	"context"

	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
)

// outputSlack is what a tool's footer ("[truncated: ...; call file_read
// with start_line=N]") and the untrusted note may add to an output cut to
// the share.
const outputSlack = 120

// outputPreview bounds the tool output carried in events; the store keeps
// the whole of it.
const outputPreview = 4 << 10

// runTools runs one response's calls, reporting each step as an event and
// recording each call.
func (s *session) runTools(ctx context.Context, step int, calls []llm.ToolCall) ([]tool.Outcome, error) {
	obs := &observer{s: s, step: step, ctx: context.WithoutCancel(ctx)}
	ctx = tool.WithSession(ctx, tool.Session{ID: s.id, TurnID: s.turnID, Turn: s.turnSeq, Segment: s.segment,
		MaxOutputBytes: s.r.budget().OutputBytes(), MaxOutputTokens: s.r.budget().OutputShare - outputSlack, CountTokens: s.r.counter.Count})
	return s.r.cfg.Runner.Run(ctx, calls, obs)
}

// observer turns runner callbacks into events and records. Its methods are
// called concurrently from the runner's goroutines; session.emit and the
// store are safe for that.
type observer struct {
	s    *session
	step int
	ctx  context.Context
}

func (o *observer) Approval(call llm.ToolCall, a tool.Access, d tool.Decision) {
	o.s.emit(Event{Type: EventApproval, Step: o.step, Approval: &ApprovalInfo{
		CallID: call.ID, Tool: call.Name, Summary: a.Summary, Allow: d.Allow, Manual: d.Manual, Reason: d.Reason,
	}})
	rec := store.Approval{SessionID: o.s.id, TurnID: o.s.turnID, CallID: call.ID, Tool: cmp.Or(a.Tool, call.Name),
		Subject: cmp.Or(a.Command, a.Summary), Decision: "deny", Source: "policy", Rule: d.Reason}
	if d.Allow {
		rec.Decision = "allow"
	}
	if d.Manual {
		rec.Source = "user"
	}
	if _, err := o.s.r.cfg.Store.RecordApproval(o.ctx, rec); err != nil {
		o.s.r.cfg.Logger.Error("agent: recording approval", "tool", call.Name, "err", err)
	}
}

func (o *observer) Started(call llm.ToolCall, a tool.Access) {
	o.s.emit(Event{Type: EventToolStarted, Step: o.step, Tool: &ToolInfo{
		CallID: call.ID, Name: call.Name, Args: store.Preview(string(call.Args), outputPreview), Summary: a.Summary,
	}})
}

// Progress implements tool.ProgressObserver.
func (o *observer) Progress(call llm.ToolCall, p tool.Progress) {
	pp := p
	o.s.emit(Event{Type: EventToolProgress, Step: o.step, Tool: &ToolInfo{CallID: call.ID, Name: call.Name}, Progress: &pp})
}

func (o *observer) Finished(out tool.Outcome) {
	res := out.Result
	if res.Notice != "" {
		o.s.emit(Event{Type: EventNotice, Step: o.step, Text: res.Notice})
	}
	rec := store.ToolCall{
		SessionID: o.s.id, TurnID: o.s.turnID, Step: o.step, CallID: out.Call.ID, Name: out.Call.Name,
		Args: recordArgs(out.Call.Args), Output: res.Content, IsError: res.IsError, Code: res.Code,
		ExitCode: res.ExitCode, StartedAt: o.s.r.cfg.Now().Add(-out.Duration), Duration: out.Duration,
		Approval: approvalLabel(out.Decision), Changed: res.Changed,
	}
	// Recorded before the event, which refers to the same stored output.
	if _, err := o.s.r.cfg.Store.RecordToolCall(o.ctx, rec); err != nil {
		o.s.r.cfg.Logger.Error("agent: recording tool call", "tool", out.Call.Name, "err", err)
	}
	o.s.emitOutput(Event{Type: EventToolFinished, Step: o.step, Tool: &ToolInfo{
		CallID: out.Call.ID, Name: out.Call.Name, Summary: out.Access.Summary, IsError: res.IsError, Code: res.Code,
		ExitCode: res.ExitCode, DurationMS: out.Duration.Milliseconds(), Output: store.Preview(res.Content, outputPreview),
		Diff: res.Diff, Changed: res.Changed,
	}}, res.Content)
}

func approvalLabel(d *tool.Decision) string {
	switch {
	case d == nil:
		return ""
	case !d.Allow:
		return "denied"
	case d.Manual:
		return "user"
	default:
		return "rule"
	}
}
