package acp

import (
	"context"
	"encoding/json"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/tool/plan"
	"github.com/godwit/godwit/internal/tool/shell"
)

// Emit implements agent.Sink: the session's turns' events become session/update
// notifications, sent before Emit returns, so they reach the client in
// the order of the turn and before the prompt's answer.
func (s *session) Emit(e agent.Event) {
	switch e.Type {
	case agent.EventTextDelta:
		if e.Text != "" {
			s.srv.notify(s.id, sdk.UpdateAgentMessageText(s.paragraph(&s.textStep, e.Step)+e.Text))
		}
	case agent.EventThinkingDelta:
		if e.Text != "" {
			s.srv.notify(s.id, sdk.UpdateAgentThoughtText(s.paragraph(&s.thoughtStep, e.Step)+e.Text))
		}
	case agent.EventToolStarted:
		if e.Tool != nil {
			s.toolStarted(e.Tool)
		}
	case agent.EventToolFinished:
		if e.Tool != nil {
			s.toolFinished(e.Tool)
		}
	case agent.EventModelRequest:
		if r := e.Request; r != nil && r.Purpose == "" {
			s.mu.Lock()
			s.reqUsed = r.Tokens
			s.mu.Unlock()
		}
	case agent.EventModelResponse:
		if r := e.Response; r != nil {
			s.countUsage(r)
			s.sendUsage()
		}
	case agent.EventModelRetry, agent.EventModelFallback:
		if line := retryLine(e); line != "" {
			s.srv.notify(s.id, sdk.UpdateAgentMessageText("\n\n"+line+"\n\n"))
		}
	case agent.EventNotice:
		// ACP has no channel for the agent's own remarks: a notice (a
		// refusal, an answer cut short, a restored git hook) follows the
		// answer as a paragraph of its own, as the chat shows it.
		if e.Text != "" {
			s.srv.notify(s.id, sdk.UpdateAgentMessageText("\n\n"+e.Text))
		}
	}
}

// retryLine says that a model call is made again: the chunks the editor
// was sent cannot be taken back, so a partial answer is said to be void
// (the new one follows in a paragraph of its own), and a switch of model
// is said always. A retry that voids nothing is not worth a line.
func retryLine(e agent.Event) string {
	const void = "; the partial answer above is discarded"
	switch {
	case e.Retry != nil && e.Retry.Discarded:
		return "↻ " + e.Retry.Reason + void + ", retrying"
	case e.Fallback != nil:
		line := fmt.Sprintf("⇢ switching from %s to %s: %s", e.Fallback.From, e.Fallback.To, e.Fallback.Reason)
		if e.Fallback.Discarded {
			line += void
		}
		return line
	}
	return ""
}

// countUsage adds a model call to what usage_update reports: its cost
// always (handoffs and summaries cost too), and for a step of the turn
// the context it leaves: its input and output, as the provider counted
// them, else godwit's count of the request.
func (s *session) countUsage(r *agent.ResponseInfo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cost += r.Cost
	if r.Purpose != "" || r.Error != "" {
		return
	}
	if n := int(r.Usage.InputTokens + r.Usage.OutputTokens); n > 0 {
		s.used = n
	} else if s.reqUsed > 0 {
		s.used = s.reqUsed
	}
}

// sendUsage sends usage_update: the context in use against the window,
// and the session's cost (as every session/update, before the prompt's
// answer).
func (s *session) sendUsage() {
	size := s.eng.ContextWindow
	s.mu.Lock()
	used, cost := s.used, s.cost
	s.mu.Unlock()
	if size <= 0 {
		return
	}
	s.srv.notify(s.id, sdk.SessionUpdate{UsageUpdate: &sdk.SessionUsageUpdate{
		Used: used, Size: size, Cost: &sdk.Cost{Amount: cost, Currency: "USD"}}})
}

// loadUsage reads a loaded session's figures from the store and sends
// them, so the editor shows them before the next prompt.
func (s *session) loadUsage(ctx context.Context) {
	calls, err := s.eng.Store.ModelCalls(ctx, s.id)
	if err != nil {
		s.srv.log.Warn("acp: reading the session's model calls", "session", s.id, "err", err)
		return
	}
	s.mu.Lock()
	for _, mc := range calls {
		s.cost += mc.Cost
		if len(mc.Parts) > 0 && mc.Error == "" { // a step of a turn
			s.used = int(mc.Usage.InputTokens + mc.Usage.OutputTokens)
		}
	}
	s.mu.Unlock()
	s.sendUsage()
}

// paragraph returns the break that starts the text of a new model call:
// the editor shows a turn's chunks as one message, and the answers of
// two calls would otherwise run together. last is the step that sent
// text before, 0 for none this turn.
func (s *session) paragraph(last *int, step int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	prev := *last
	*last = step
	if prev != 0 && prev != step {
		return "\n\n"
	}
	return ""
}

// track returns the state of a call of the running turn, creating it the
// first time the call is seen, after it finished, or always when fresh
// (isNew).
func (s *session) track(id, name string, args json.RawMessage, summary string, fresh bool) (c *call, isNew bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.calls[id]; c != nil && !c.finished && !fresh {
		return c, false
	}
	// The model picks call ids and may repeat one: each call the editor
	// sees gets an id of its own, or a permission request would show an
	// earlier call's title and diff for the one it approves.
	shown := id
	if n := s.shown[id]; n > 0 {
		shown = fmt.Sprintf("%s#%d", id, n+1)
	}
	s.shown[id]++
	c = newCall(s.eng.Workspace, shown, name, args, summary, true)
	s.calls[id] = c
	return c, true
}

// announce shows a call as it is about to be approved: each approval is
// of a new call, whatever its id.
func (s *session) announce(id, name string, args json.RawMessage, summary string, status sdk.ToolCallStatus) *call {
	c, _ := s.track(id, name, args, summary, true)
	s.srv.notify(s.id, c.start(status, nil, nil))
	return c
}

func (s *session) toolStarted(t *agent.ToolInfo) {
	c, isNew := s.track(t.CallID, t.Name, json.RawMessage(t.Args), t.Summary, false)
	if isNew {
		s.srv.notify(s.id, c.start(sdk.ToolCallStatusInProgress, nil, nil))
		return
	}
	s.srv.notify(s.id, sdk.UpdateToolCall(sdk.ToolCallId(c.id), sdk.WithUpdateStatus(sdk.ToolCallStatusInProgress)))
}

func (s *session) toolFinished(t *agent.ToolInfo) {
	c, isNew := s.track(t.CallID, t.Name, json.RawMessage(t.Args), t.Summary, false)
	status := sdk.ToolCallStatusCompleted
	if t.IsError {
		status = sdk.ToolCallStatusFailed
	}
	s.mu.Lock()
	content := c.result(t)
	s.mu.Unlock()
	raw := rawOutput(t)
	if isNew {
		s.srv.notify(s.id, c.start(status, content, raw))
	} else {
		opts := []sdk.ToolCallUpdateOpt{sdk.WithUpdateStatus(status), sdk.WithUpdateRawOutput(raw)}
		if content != nil {
			opts = append(opts, sdk.WithUpdateContent(content))
		}
		s.srv.notify(s.id, sdk.UpdateToolCall(sdk.ToolCallId(c.id), opts...))
	}
	if t.Name == plan.Name && !t.IsError && s.eng.Plan != nil {
		s.srv.notify(s.id, planUpdate(s.eng.Plan.Steps()))
	}
}

// attachTerminal shows an editor terminal as the content of the
// shell_exec call running now. Commands hold the runner's global lock
// exclusively, so at most one is running.
func (s *session) attachTerminal(terminalID string) {
	s.mu.Lock()
	var c *call
	for _, x := range s.calls {
		if x.name == shell.Name && !x.finished {
			c = x
			break
		}
	}
	if c != nil {
		c.terminal = true
	}
	s.mu.Unlock()
	if c == nil {
		return
	}
	s.srv.notify(s.id, sdk.UpdateToolCall(sdk.ToolCallId(c.id),
		sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolTerminalRef(terminalID)})))
}

func rawOutput(t *agent.ToolInfo) map[string]any {
	out := map[string]any{"output": t.Output}
	if t.IsError {
		out["error"] = t.Code
	}
	if t.ExitCode != nil {
		out["exit_code"] = *t.ExitCode
	}
	return out
}

func planUpdate(steps []plan.Step) sdk.SessionUpdate {
	entries := make([]sdk.PlanEntry, 0, len(steps))
	for _, st := range steps {
		status := sdk.PlanEntryStatusPending
		switch st.Status {
		case plan.InProgress:
			status = sdk.PlanEntryStatusInProgress
		case plan.Done:
			status = sdk.PlanEntryStatusCompleted
		}
		entries = append(entries, sdk.PlanEntry{Content: st.Text, Priority: sdk.PlanEntryPriorityMedium, Status: status})
	}
	return sdk.UpdatePlan(entries...)
}
