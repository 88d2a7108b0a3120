package godwit

import (
	"github.com/godwit/godwit/event"
	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/llm"
)

// Common event types. docs/json-events.md lists every type and field:
// an Event marshals to the JSON `godwit run --json` prints.
const (
	EventSessionStarted = "session.started"
	EventTurnStarted    = "turn.started"
	EventTextDelta      = "text.delta"
	EventToolStarted    = "tool.started"
	EventToolFinished   = "tool.finished"
	EventApproval       = "approval"
	EventError          = "error"
	EventTurnFinished   = "turn.finished"
)

// Event is one step of a session; its fields' types are the public
// packages' (event, llm, tool).
type Event = event.Event

// Result is a finished turn.
type Result struct {
	SessionID string
	Turn      int
	// Status is done, failed or cancelled.
	Status string
	// Text is the model's answer.
	Text  string
	Steps int
	Usage llm.Usage
	// Cost is in USD, by the model catalog's list prices (0 when
	// unknown).
	Cost float64
}

func result(r agent.Result) Result {
	return Result{SessionID: r.SessionID, Turn: r.Turn, Status: string(r.Status), Text: r.Text, Steps: r.Steps,
		Usage: r.Usage, Cost: r.Cost}
}
