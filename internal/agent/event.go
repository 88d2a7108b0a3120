package agent

import (
	"sync"
	"time"

	"github.com/godwit/godwit/internal/window"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
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
	// EventToolProgress: a running call's progress; not stored.
	EventToolProgress = "tool.progress"
	EventApproval     = "approval"
	EventTurnFinished = "turn.finished"
	EventError        = "error"
	EventSegmentReset = "segment.reset"
	EventCompacted    = "context.compacted"
	// EventCapped: outputs over the window's share were paged as they
	// entered and are shown as head and tail.
	EventCapped = "context.capped"
	// EventKept: the user's message was kept as a standing instruction
	// (entry D<Kept.Seq>). The user always sees it.
	EventKept = "decision.kept"
	// EventSuperseded: a later instruction replaced a ledger entry. The
	// user always sees it.
	EventSuperseded = "decision.superseded"
	// EventLedgerOver: the ledger passes its budget with only standing
	// instructions left to shrink; the user is told.
	EventLedgerOver = "ledger.over_budget"
	EventVerify     = "verify"
	EventNudge      = "nudge"
	// EventMCPStatus: an MCP server changed state after session.started.
	EventMCPStatus = "mcp.status"
	// EventNotice is something the user must hear that no other event
	// says, in Text (a safety layer restored a git hook, say). The user
	// always sees it.
	EventNotice = "notice"
)

// EventTypes lists every event type, in the order a turn meets them.
var EventTypes = []string{
	EventSessionStarted, EventTurnStarted, EventKept, EventModelRequest, EventTextDelta, EventThinkingDelta,
	EventModelRetry, EventModelFallback, EventModelResponse, EventToolStarted, EventApproval, EventToolProgress, EventToolFinished,
	EventCapped, EventCompacted, EventSegmentReset, EventSuperseded, EventLedgerOver, EventNudge, EventVerify,
	EventNotice, EventMCPStatus, EventError, EventTurnFinished,
}

// Event is one step of a session. Type says which payload field is set.
type Event struct {
	Type      string    `json:"type"`
	SessionID string    `json:"session_id"`
	Turn      int       `json:"turn,omitempty"`
	Step      int       `json:"step,omitempty"`
	Time      time.Time `json:"time"`
	// Text is a delta's text, or an error's or a notice's message.
	Text string `json:"text,omitempty"`

	Session  *SessionInfo   `json:"session,omitempty"`
	Prompt   string         `json:"prompt,omitempty"`
	Request  *RequestInfo   `json:"request,omitempty"`
	Response *ResponseInfo  `json:"response,omitempty"`
	Retry    *llm.Retry     `json:"retry,omitempty"`
	Fallback *llm.Fallback  `json:"fallback,omitempty"`
	Tool     *ToolInfo      `json:"tool,omitempty"`
	Progress *tool.Progress `json:"progress,omitempty"`
	Approval *ApprovalInfo  `json:"approval,omitempty"`
	Finished *TurnInfo      `json:"finished,omitempty"`
	Reset    *ResetInfo     `json:"reset,omitempty"`
	Verify   *VerifyInfo    `json:"verify,omitempty"`
	Nudge    *NudgeInfo     `json:"nudge,omitempty"`
	// Compacted is set at context.compacted and context.capped.
	Compacted  *window.Compaction `json:"compacted,omitempty"`
	Kept       *KeptInfo          `json:"kept,omitempty"`
	Superseded *SupersededInfo    `json:"superseded,omitempty"`
	Ledger     *LedgerInfo        `json:"ledger,omitempty"`
	MCP        *MCPServerInfo     `json:"mcp,omitempty"`
	Mail       *MailInfo          `json:"mail,omitempty"`
}

// SupersededInfo says which ledger entry no longer holds and what
// replaced it.
type SupersededInfo struct {
	Old     int    `json:"old"`
	By      int    `json:"by"`
	OldText string `json:"old_text"`
	ByText  string `json:"by_text"`
	// ProposedBy is "godwit" when the engine saw the user's change
	// itself, "model" when a handoff pointed at it and the engine agreed.
	ProposedBy string `json:"proposed_by"`
}

// KeptInfo names the ledger entry a message of the user's was kept as.
type KeptInfo struct {
	Seq int `json:"seq"`
}

// LedgerInfo is the ledger against its budget.
type LedgerInfo struct {
	Tokens       int `json:"tokens"`
	Budget       int `json:"budget"`
	Instructions int `json:"instructions"` // standing instructions held
	// Shortened is how many of them were shown as one line to fit.
	Shortened int `json:"shortened,omitempty"`
}

// SessionInfo describes the session at session.started: where it works
// and, for a consumer of `run --json`, what it runs with.
type SessionInfo struct {
	Workspace string `json:"workspace"`
	Model     string `json:"model"`
	Resumed   bool   `json:"resumed,omitempty"`
	Segment   int    `json:"segment"`
	Version   string `json:"version,omitempty"` // godwit's
	// Mode is the approval mode: read-only, ask or auto.
	Mode       string          `json:"mode,omitempty"`
	Tools      []string        `json:"tools,omitempty"`
	MCPServers []MCPServerInfo `json:"mcp_servers,omitempty"`
	Skills     []string        `json:"skills,omitempty"`
}

// MCPServerInfo is an MCP server's state.
type MCPServerInfo struct {
	Name   string `json:"name"`
	Source string `json:"source"` // config.yaml or .mcp.json
	// State is starting, ready, failed, skipped or stopped.
	State string `json:"state"`
	Tools int    `json:"tools"` // while it is ready
	Error string `json:"error,omitempty"`
}

// RequestInfo describes a request about to be sent.
type RequestInfo struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Segment  int    `json:"segment"`
	Messages int    `json:"messages"`
	Bytes    int    `json:"bytes"`
	Tokens   int    `json:"tokens"`
	// Estimated is true when Tokens were estimated (4 bytes a token).
	Estimated bool           `json:"estimated,omitempty"`
	Parts     []llm.PartStat `json:"parts"`
	// Purpose is "" for a step of the turn, "handoff" for a handoff call.
	Purpose string `json:"purpose,omitempty"`
}

// Purposes of model calls that are not steps of the turn.
const (
	// PurposeHandoff marks the call that writes a segment's handoff.
	PurposeHandoff = "handoff"
	// PurposeSummary marks a call of the summary model (config
	// summary_model), which compaction makes to summarise a tool output.
	PurposeSummary = "summary"
)

// ResponseInfo describes a finished model call.
type ResponseInfo struct {
	Provider   string    `json:"provider"`
	Model      string    `json:"model"`
	Usage      llm.Usage `json:"usage"`
	Cost       float64   `json:"cost"`
	LatencyMS  int64     `json:"latency_ms"`
	TTFTMS     int64     `json:"ttft_ms"`
	StopReason string    `json:"stop_reason,omitempty"`
	ToolCalls  int       `json:"tool_calls"`
	Text       string    `json:"text,omitempty"`
	// Thinking is the reasoning text the model showed, whole, so a
	// resumed chat can show it as the live one did.
	Thinking string `json:"thinking,omitempty"`
	Error    string `json:"error,omitempty"`
	Purpose  string `json:"purpose,omitempty"`
}

// ToolInfo describes a tool call at tool.started and tool.finished.
type ToolInfo struct {
	CallID     string   `json:"call_id"`
	Name       string   `json:"name"`
	Args       string   `json:"args,omitempty"`
	Summary    string   `json:"summary,omitempty"`
	IsError    bool     `json:"is_error,omitempty"`
	Code       string   `json:"code,omitempty"`
	ExitCode   *int     `json:"exit_code,omitempty"`
	DurationMS int64    `json:"duration_ms,omitempty"`
	Output     string   `json:"output,omitempty"`
	Diff       string   `json:"diff,omitempty"`
	Changed    []string `json:"changed,omitempty"`
}

// ApprovalInfo records an approval decision.
type ApprovalInfo struct {
	CallID  string `json:"call_id"`
	Tool    string `json:"tool"`
	Summary string `json:"summary"`
	Allow   bool   `json:"allow"`
	Manual  bool   `json:"manual,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// TurnInfo summarises a finished turn.
type TurnInfo struct {
	Status     string    `json:"status"`
	Text       string    `json:"text,omitempty"` // Result.Text
	Steps      int       `json:"steps"`
	Usage      llm.Usage `json:"usage"`
	Cost       float64   `json:"cost"`
	DurationMS int64     `json:"duration_ms"` // wall time
	Error      string    `json:"error,omitempty"`
}

// Sink receives events. A run's Sink (RunInput.Sink) gets that run's
// events and no others, from session.started to turn.finished, and none
// once Run has returned, so concurrent runs need no routing.
//
// Emit may be called concurrently (tool goroutines); it must not block
// for long, nor start a run of the same session.
type Sink interface {
	Emit(Event)
}

// runSink is a run's Sink while the run lasts: what is emitted after
// Run ends it is dropped.
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

// Recorder collects events in memory (tests, the demo's summary).
type Recorder struct {
	mu     sync.Mutex
	events []Event
}

func (r *Recorder) Emit(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

// Events returns a copy of what was recorded.
func (r *Recorder) Events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

// OfType returns the recorded events of one type.
func (r *Recorder) OfType(typ string) []Event {
	var out []Event
	for _, e := range r.Events() {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}
