package godwit

import (
	"time"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
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

// Event is one step of a session. Type says which payload field is set.
type Event struct {
	Type      string    `json:"type"`
	SessionID string    `json:"session_id"`
	Turn      int       `json:"turn,omitempty"`
	Step      int       `json:"step,omitempty"`
	Time      time.Time `json:"time"`
	// Text is the delta of text.delta and thinking.delta, the message of
	// error and notice.
	Text string `json:"text,omitempty"`

	Session    *SessionInfo    `json:"session,omitempty"`
	Prompt     string          `json:"prompt,omitempty"`
	Request    *RequestInfo    `json:"request,omitempty"`
	Response   *ResponseInfo   `json:"response,omitempty"`
	Retry      *llm.Retry      `json:"retry,omitempty"`
	Fallback   *llm.Fallback   `json:"fallback,omitempty"`
	Tool       *ToolInfo       `json:"tool,omitempty"`
	Progress   *tool.Progress  `json:"progress,omitempty"`
	Approval   *ApprovalInfo   `json:"approval,omitempty"`
	Finished   *TurnInfo       `json:"finished,omitempty"`
	Reset      *ResetInfo      `json:"reset,omitempty"`
	Verify     *VerifyInfo     `json:"verify,omitempty"`
	Nudge      *NudgeInfo      `json:"nudge,omitempty"`
	Compacted  *CompactionInfo `json:"compacted,omitempty"`
	Kept       *KeptInfo       `json:"kept,omitempty"`
	Superseded *SupersededInfo `json:"superseded,omitempty"`
	Ledger     *LedgerInfo     `json:"ledger,omitempty"`
	MCP        *MCPServerInfo  `json:"mcp,omitempty"`
	Mail       *MailInfo       `json:"mail,omitempty"`
}

// SessionInfo is session.started's: where the session works and what it
// runs with.
type SessionInfo struct {
	Workspace  string          `json:"workspace"`
	Model      string          `json:"model"`
	Resumed    bool            `json:"resumed,omitempty"`
	Segment    int             `json:"segment"`
	Version    string          `json:"version,omitempty"`
	Mode       string          `json:"mode,omitempty"`
	Tools      []string        `json:"tools,omitempty"`
	MCPServers []MCPServerInfo `json:"mcp_servers,omitempty"`
	Skills     []string        `json:"skills,omitempty"`
}

// MCPServerInfo is an MCP server's state (starting, ready, failed,
// skipped or stopped).
type MCPServerInfo struct {
	Name   string `json:"name"`
	Source string `json:"source"`
	State  string `json:"state"`
	Tools  int    `json:"tools"`
	Error  string `json:"error,omitempty"`
}

// RequestInfo is model.request's: the request about to be sent, with the
// bytes and tokens of each part.
type RequestInfo struct {
	Provider  string         `json:"provider"`
	Model     string         `json:"model"`
	Segment   int            `json:"segment"`
	Messages  int            `json:"messages"`
	Bytes     int            `json:"bytes"`
	Tokens    int            `json:"tokens"`
	Estimated bool           `json:"estimated,omitempty"`
	Parts     []llm.PartStat `json:"parts"`
	Purpose   string         `json:"purpose,omitempty"`
}

// ResponseInfo is model.response's: a finished model call.
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
	Thinking   string    `json:"thinking,omitempty"`
	Error      string    `json:"error,omitempty"`
	Purpose    string    `json:"purpose,omitempty"`
}

// ToolInfo is a tool call at tool.started and tool.finished.
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

// ApprovalInfo is an approval decision.
type ApprovalInfo struct {
	CallID  string `json:"call_id"`
	Tool    string `json:"tool"`
	Summary string `json:"summary"`
	Allow   bool   `json:"allow"`
	Manual  bool   `json:"manual,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// TurnInfo is turn.finished's: the turn's status, answer and cost.
type TurnInfo struct {
	Status     string    `json:"status"`
	Text       string    `json:"text,omitempty"`
	Steps      int       `json:"steps"`
	Usage      llm.Usage `json:"usage"`
	Cost       float64   `json:"cost"`
	DurationMS int64     `json:"duration_ms"`
	Error      string    `json:"error,omitempty"`
}

// ResetInfo is segment.reset's: the context started a new segment with
// a handoff.
type ResetInfo struct {
	From            int    `json:"from"`
	To              int    `json:"to"`
	Reason          string `json:"reason"`
	ByModel         bool   `json:"by_model"`
	Bytes           int    `json:"bytes"`
	Tokens          int    `json:"tokens"`
	DecisionsTokens int    `json:"decisions_tokens"`
	Shrunk          int    `json:"shrunk,omitempty"`
	Proposals       int    `json:"proposals,omitempty"`
	Superseded      int    `json:"superseded,omitempty"`
	Rejected        int    `json:"rejected,omitempty"`
	Dropped         int    `json:"dropped,omitempty"`
}

// VerifyInfo is a run of the verify command.
type VerifyInfo struct {
	Round      int    `json:"round"`
	Command    string `json:"command"`
	ExitCode   int    `json:"exit_code"`
	DurationMS int64  `json:"duration_ms"`
	Error      string `json:"error,omitempty"`
}

// NudgeInfo is an end-of-turn check that sent the model back to work.
type NudgeInfo struct {
	Check   string `json:"check"`
	Message string `json:"message"`
}

// CompactionInfo is context.compacted's and context.capped's: outputs
// paged out of the context.
type CompactionInfo struct {
	Items    int      `json:"items"`
	Freed    int      `json:"freed_tokens"`
	Pages    []string `json:"pages"`
	Reason   string   `json:"reason,omitempty"`
	Rebilled int      `json:"rebilled_tokens,omitempty"`
}

// KeptInfo names the ledger entry (D<Seq>) a message of the user's was
// kept as, a standing instruction.
type KeptInfo struct {
	Seq int `json:"seq"`
}

// SupersededInfo is a ledger entry that no longer holds and what
// replaced it.
type SupersededInfo struct {
	Old        int    `json:"old"`
	By         int    `json:"by"`
	OldText    string `json:"old_text"`
	ByText     string `json:"by_text"`
	ProposedBy string `json:"proposed_by"`
}

// LedgerInfo is the ledger against its budget.
type LedgerInfo struct {
	Tokens       int `json:"tokens"`
	Budget       int `json:"budget"`
	Instructions int `json:"instructions"`
	Shortened    int `json:"shortened,omitempty"`
}

// MailInfo is a message at the mail.* events; its texts are previews.
type MailInfo struct {
	ID       int64  `json:"id"`
	FromKind string `json:"from_kind"`
	From     string `json:"from"`
	To       string `json:"to"`
	State    string `json:"state"`
	Turn     int    `json:"turn,omitempty"`
	Text     string `json:"text,omitempty"`
	Answer   string `json:"answer,omitempty"`
	Error    string `json:"error,omitempty"`
}

// event is e as the SDK's own type. Each payload but the session's
// converts as a whole, so one that gains a field the SDK's lacks fails
// to compile.
func event(e agent.Event) Event {
	return Event{
		Type: e.Type, SessionID: e.SessionID, Turn: e.Turn, Step: e.Step, Time: e.Time, Text: e.Text,
		Session: sessionInfo(e.Session), Prompt: e.Prompt, Request: (*RequestInfo)(e.Request),
		Response: (*ResponseInfo)(e.Response), Retry: e.Retry, Fallback: e.Fallback, Tool: (*ToolInfo)(e.Tool),
		Progress: e.Progress, Approval: (*ApprovalInfo)(e.Approval), Finished: (*TurnInfo)(e.Finished),
		Reset: (*ResetInfo)(e.Reset), Verify: (*VerifyInfo)(e.Verify), Nudge: (*NudgeInfo)(e.Nudge),
		Compacted: (*CompactionInfo)(e.Compacted), Kept: (*KeptInfo)(e.Kept),
		Superseded: (*SupersededInfo)(e.Superseded), Ledger: (*LedgerInfo)(e.Ledger),
		MCP: (*MCPServerInfo)(e.MCP), Mail: (*MailInfo)(e.Mail),
	}
}

func sessionInfo(s *agent.SessionInfo) *SessionInfo {
	if s == nil {
		return nil
	}
	out := &SessionInfo{Workspace: s.Workspace, Model: s.Model, Resumed: s.Resumed, Segment: s.Segment,
		Version: s.Version, Mode: s.Mode, Tools: s.Tools, Skills: s.Skills}
	for _, m := range s.MCPServers {
		out.MCPServers = append(out.MCPServers, MCPServerInfo(m))
	}
	return out
}

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
