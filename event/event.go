// Package event holds the events a godwit session reports: the engine
// emits them, `godwit run --json` prints them (docs/json-events.md lists
// every type and field), the store keeps them, and the SDK hands them to
// its callers. It is public so that an embedder can name every field's
// type. Of godwit's packages it imports only llm and tool.
package event

import (
	"time"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
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

	Session  *SessionInfo  `json:"session,omitempty"`
	Prompt   string        `json:"prompt,omitempty"`
	Request  *RequestInfo  `json:"request,omitempty"`
	Response *ResponseInfo `json:"response,omitempty"`
	Retry    *llm.Retry    `json:"retry,omitempty"`
	Fallback *llm.Fallback `json:"fallback,omitempty"`
	Tool     *ToolInfo     `json:"tool,omitempty"`
	// Progress is a running call's progress (tool.progress, with Tool
	// naming the call).
	Progress *tool.Progress `json:"progress,omitempty"`
	Approval *ApprovalInfo  `json:"approval,omitempty"`
	Finished *TurnInfo      `json:"finished,omitempty"`
	Reset    *ResetInfo     `json:"reset,omitempty"`
	Verify   *VerifyInfo    `json:"verify,omitempty"`
	Nudge    *NudgeInfo     `json:"nudge,omitempty"`
	// Compacted reports a compaction step (context.compacted) or outputs
	// capped as they entered (context.capped).
	Compacted  *CompactionInfo `json:"compacted,omitempty"`
	Kept       *KeptInfo       `json:"kept,omitempty"`
	Superseded *SupersededInfo `json:"superseded,omitempty"`
	Ledger     *LedgerInfo     `json:"ledger,omitempty"`
	// MCP reports a server's new state (mcp.status).
	MCP  *MCPServerInfo `json:"mcp,omitempty"`
	Mail *MailInfo      `json:"mail,omitempty"`
}

// SessionInfo is session.started's: where the session works and what it
// runs with.
type SessionInfo struct {
	Workspace string `json:"workspace"`
	Model     string `json:"model"`
	Resumed   bool   `json:"resumed,omitempty"`
	Segment   int    `json:"segment"`
	// Version is godwit's.
	Version string `json:"version,omitempty"`
	// Mode is the approval mode: read-only, ask or auto.
	Mode string `json:"mode,omitempty"`
	// Tools names the tools the model may call.
	Tools      []string        `json:"tools,omitempty"`
	MCPServers []MCPServerInfo `json:"mcp_servers,omitempty"`
	// Skills names the skills the model may load.
	Skills []string `json:"skills,omitempty"`
}

// MCPServerInfo is an MCP server's state.
type MCPServerInfo struct {
	Name string `json:"name"`
	// Source is config.yaml or .mcp.json.
	Source string `json:"source"`
	// State is starting, ready, failed, skipped or stopped.
	State string `json:"state"`
	// Tools counts the server's tools while it is ready.
	Tools int    `json:"tools"`
	Error string `json:"error,omitempty"`
}

// RequestInfo is model.request's: the request about to be sent, with the
// bytes and tokens of each part.
type RequestInfo struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Segment  int    `json:"segment"`
	Messages int    `json:"messages"`
	Bytes    int    `json:"bytes"`
	Tokens   int    `json:"tokens"`
	// Estimated is true when Tokens were estimated (4 bytes a token)
	// because the tokenizer had not loaded yet.
	Estimated bool           `json:"estimated,omitempty"`
	Parts     []llm.PartStat `json:"parts"`
	// Purpose is "" for a step of the turn, "handoff" or "summary" for
	// the calls that write a handoff or summarise an output.
	Purpose string `json:"purpose,omitempty"`
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
	// Thinking is the reasoning the model showed, whole, so a resumed
	// chat can show it folded as the live one did.
	Thinking string `json:"thinking,omitempty"`
	Error    string `json:"error,omitempty"`
	Purpose  string `json:"purpose,omitempty"`
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
	From   int    `json:"from"`
	To     int    `json:"to"`
	Reason string `json:"reason"`
	// ByModel is false when the model's handoff was missing or empty and
	// godwit built it from the session's record.
	ByModel bool `json:"by_model"`
	Bytes   int  `json:"bytes"`
	Tokens  int  `json:"tokens"`
	// DecisionsTokens is the Decisions section's share of Tokens.
	DecisionsTokens int `json:"decisions_tokens"`
	// Shrunk counts the ledger entries shown shorter than whole to fit.
	Shrunk     int `json:"shrunk,omitempty"`
	Proposals  int `json:"proposals,omitempty"`
	Superseded int `json:"superseded,omitempty"`
	Rejected   int `json:"rejected,omitempty"`
	// Dropped counts lines of the model's handoff that read like an
	// injection or loosened the user's instructions.
	Dropped int `json:"dropped,omitempty"`
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

// CompactionInfo is context.compacted's and context.capped's: outputs paged
// out of the context.
type CompactionInfo struct {
	Items int      `json:"items"`
	Freed int      `json:"freed_tokens"`
	Pages []string `json:"pages"`
	// Reason is budget, cheap or cap.
	Reason string `json:"reason,omitempty"`
	// Rebilled is what the step costs: the tokens after the first paged
	// output, which the provider's cache no longer covers.
	Rebilled int `json:"rebilled_tokens,omitempty"`
}

// KeptInfo names the ledger entry (D<Seq>) a message of the user's was
// kept as, a standing instruction.
type KeptInfo struct {
	Seq int `json:"seq"`
}

// SupersededInfo is a ledger entry that no longer holds and what
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

// LedgerInfo is the ledger against its budget.
type LedgerInfo struct {
	Tokens int `json:"tokens"`
	Budget int `json:"budget"`
	// Instructions is how many standing instructions it holds.
	Instructions int `json:"instructions"`
	// Shortened is how many of them were shown as one line to fit.
	Shortened int `json:"shortened,omitempty"`
}

// MailInfo is a message at the mail.* events.
type MailInfo struct {
	ID       int64  `json:"id"`
	FromKind string `json:"from_kind"`
	From     string `json:"from"`
	To       string `json:"to"`
	State    string `json:"state"`
	// Turn is the target session's turn that took the message.
	Turn int `json:"turn,omitempty"`
	// Text, Answer and Error are previews (the store keeps them whole).
	Text   string `json:"text,omitempty"`
	Answer string `json:"answer,omitempty"`
	Error  string `json:"error,omitempty"`
}
