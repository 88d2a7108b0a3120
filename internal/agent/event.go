package agent

import (
	"sync"

	"github.com/godwit/godwit/event"
)

// Event types. They are part of godwit's public surface (`run --json`,
// the store's timeline, ACP), so they are stable.
const (
	EventSessionStarted = "session.started"
	EventTurnStarted    = "turn.started"
	EventModelRequest   = "model.request"
	EventTextDelta      = "text.delta"
	EventThinkingDelta  = "thinking.delta"
	EventModelRetry     = "model.retry"
	EventModelFallback  = "model.fallback"
	EventModelResponse  = "model.response"
	EventToolStarted    = "tool.started"
	EventToolFinished   = "tool.finished"
	// EventToolProgress: a running call says how far it has come (an MCP
	// server's progress notification). Like the deltas it is not stored.
	EventToolProgress = "tool.progress"
	EventApproval     = "approval"
	EventTurnFinished = "turn.finished"
	EventError        = "error"
	EventSegmentReset = "segment.reset"
	EventCompacted    = "context.compacted"
	// EventCapped: outputs over the window's share were paged whole as
	// they entered and are shown as head and tail (no cache break).
	EventCapped = "context.capped"
	// EventKept: the user's message was kept as a standing instruction
	// (entry D<Kept.Seq>): the ledger shrinks it last. The user always
	// sees it, and can unpin it.
	EventKept = "decision.kept"
	// EventSuperseded: a ledger entry no longer holds; the user's later
	// instruction replaced it. The user always sees it.
	EventSuperseded = "decision.superseded"
	// EventLedgerOver: the ledger passes its budget with only standing
	// instructions left to shrink: those without a standing marker were
	// shortened to one line, the others kept whole; the user is told.
	EventLedgerOver = "ledger.over_budget"
	EventVerify     = "verify"
	EventNudge      = "nudge"
	// EventMCPStatus: an MCP server changed state after the session
	// started (it failed, stopped, or became ready late); its state at
	// the start is in session.started.
	EventMCPStatus = "mcp.status"
	// EventNotice is something the user must hear that no other event
	// says, in Text: a safety layer acted around a tool call (it restored
	// a git hook a command changed), or the front end's own before the
	// session starts (a repository's .mcp.json servers that were not
	// started; it then has no session id). The user always sees it.
	EventNotice = "notice"
)

// EventTypes lists every event type, in the order a turn meets them.
var EventTypes = []string{
	EventSessionStarted, EventTurnStarted, EventKept, EventModelRequest, EventTextDelta, EventThinkingDelta,
	EventModelRetry, EventModelFallback, EventModelResponse, EventToolStarted, EventApproval, EventToolProgress, EventToolFinished,
	EventCapped, EventCompacted, EventSegmentReset, EventSuperseded, EventLedgerOver, EventNudge, EventVerify,
	EventNotice, EventMCPStatus, EventError, EventTurnFinished,
}

// The events' types are the public package event's.
type (
	Event          = event.Event
	SessionInfo    = event.SessionInfo
	MCPServerInfo  = event.MCPServerInfo
	RequestInfo    = event.RequestInfo
	ResponseInfo   = event.ResponseInfo
	ToolInfo       = event.ToolInfo
	ApprovalInfo   = event.ApprovalInfo
	TurnInfo       = event.TurnInfo
	ResetInfo      = event.ResetInfo
	VerifyInfo     = event.VerifyInfo
	NudgeInfo      = event.NudgeInfo
	KeptInfo       = event.KeptInfo
	SupersededInfo = event.SupersededInfo
	LedgerInfo     = event.LedgerInfo
	MailInfo       = event.MailInfo
	CompactionInfo = event.CompactionInfo
)

// Purposes of model calls that are not steps of the turn.
const (
	// PurposeHandoff marks the call that writes a segment's handoff.
	PurposeHandoff = "handoff"
	// PurposeSummary marks a call of the summary model (config
	// summary_model), which compaction makes to summarise a tool output.
	PurposeSummary = "summary"
)

// Sink receives events. A run's Sink (RunInput.Sink) gets that run's
// events and no others, from session.started to turn.finished, and none
// once Run has returned, so concurrent runs need no routing. Emit is
// called concurrently from the turn loop and tool goroutines; it must be
// safe for that, must not block for long, and must not start a run of
// the same session. Events of no run (mcp.status) go to a Sink the
// layer that builds the engine is given.
type Sink interface {
	Emit(Event)
}

// runSink is a run's Sink while the run lasts: Run ends it before it
// returns, and what is emitted later is dropped, so a caller that has
// moved on (closed a channel, started the next turn) hears nothing more.
type runSink struct {
	mu   sync.RWMutex // read-held by each Emit; end waits for them
	sink Sink         // nil: discard, or ended
}

func (r *runSink) Emit(e Event) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.sink != nil {
		r.sink.Emit(e)
	}
}

func (r *runSink) end() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sink = nil
}

// SinkFunc adapts a function to Sink.
type SinkFunc func(Event)

func (f SinkFunc) Emit(e Event) { f(e) }

// Sinks fans events out to several sinks, in order, serialising calls so
// that each sink sees one event at a time.
func Sinks(sinks ...Sink) Sink {
	return &multiSink{sinks: sinks}
}

type multiSink struct {
	mu    sync.Mutex
	sinks []Sink
}

func (m *multiSink) Emit(e Event) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.sinks {
		if s != nil {
			s.Emit(e)
		}
	}
}
