package wiring

import (
	"context"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
)

// RunUserCall runs a call the user makes (the chat's !CMD, file_read for
// an @path) through the session's runner, so its policy, sandbox and path
// locks hold. It is not recorded; its events but a file_read's go to
// sink.
func (e *Env) RunUserCall(ctx context.Context, call llm.ToolCall, sink agent.Sink) (tool.Outcome, error) {
	b := e.Window.Budget()
	// 120 tokens are left for file_read's footer, as the agent leaves them.
	sess := tool.Session{MaxOutputBytes: b.OutputBytes(), MaxOutputTokens: b.OutputShare - 120}
	if c := e.Window.Counter(); c != nil {
		sess.CountTokens = c.Count
	}
	var obs tool.Observer = userObserver{sink}
	if call.Name == "file_read" || sink == nil {
		obs = nil
	}
	outs, err := e.Runner.Run(tool.WithSession(ctx, sess), []llm.ToolCall{call}, obs)
	if len(outs) == 0 {
		return tool.Outcome{Call: call}, err
	}
	return outs[0], err
}

// userObserver reports a user's call as agent events.
type userObserver struct{ sink agent.Sink }

func (o userObserver) Approval(call llm.ToolCall, a tool.Access, d tool.Decision) {
	o.sink.Emit(agent.Event{Type: agent.EventApproval, Approval: &agent.ApprovalInfo{
		CallID: call.ID, Tool: call.Name, Summary: a.Summary, Allow: d.Allow, Manual: d.Manual, Reason: d.Reason}})
}

func (o userObserver) Started(call llm.ToolCall, a tool.Access) {
	o.sink.Emit(agent.Event{Type: agent.EventToolStarted, Tool: &agent.ToolInfo{CallID: call.ID, Name: call.Name, Summary: a.Summary}})
}

func (o userObserver) Progress(call llm.ToolCall, p tool.Progress) {
	o.sink.Emit(agent.Event{Type: agent.EventToolProgress, Tool: &agent.ToolInfo{CallID: call.ID, Name: call.Name}, Progress: &p})
}

func (o userObserver) Finished(out tool.Outcome) {
	r := out.Result
	o.sink.Emit(agent.Event{Type: agent.EventToolFinished, Tool: &agent.ToolInfo{CallID: out.Call.ID, Name: out.Call.Name,
		Summary: out.Access.Summary, IsError: r.IsError, Code: r.Code, ExitCode: r.ExitCode,
		DurationMS: out.Duration.Milliseconds(), Output: r.Content, Changed: r.Changed}})
}
