package agent

import (
	"context"

	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/llm"
)

// Store is the agent's view of the record, which *store.Store
// implements: the sessions, turns and segments runs open and end, the
// history they append and load, the calls and events they record, the
// Decisions ledger, and the mail a turn answers. Nothing else of the
// store (memory, residents, claims, snapshots) is the agent's.
type Store interface {
	Ledger
	EventLog

	CreateSession(ctx context.Context, sess store.Session) error
	Session(ctx context.Context, id string) (store.Session, error)
	SetTitle(ctx context.Context, sessionID, title string) error
	MarkInterrupted(ctx context.Context, sessionID string) (int, error)
	StartTurn(ctx context.Context, sessionID, prompt string, segment int) (store.Turn, error)
	FinishTurn(ctx context.Context, t store.Turn) error
	Turns(ctx context.Context, sessionID string) ([]store.Turn, error)
	StartSegment(ctx context.Context, sessionID string, seq int, reason string) error
	EndSegment(ctx context.Context, sessionID string, seq int, handoff string, tokens int) error
	Segments(ctx context.Context, sessionID string) ([]store.Segment, error)

	AppendMessage(ctx context.Context, sessionID string, turnID int64, segment int, m llm.Message) (int64, error)
	LastMessageID(ctx context.Context, sessionID string, segment int) (int64, error)
	TurnReachedHistory(ctx context.Context, turnID int64) (bool, error)
	MessagesEliding(ctx context.Context, sessionID string, segment int, elide func(callID string) bool) ([]store.StoredMessage, error)
	Outputs(ctx context.Context, ids []int64) (map[int64]string, error)
	PagedCalls(ctx context.Context, sessionID string, segment int) (map[string]bool, error)
	Compactions(ctx context.Context, sessionID string, segment int) ([]store.Compaction, error)

	RecordModelCall(ctx context.Context, mc store.ModelCall) (int64, error)
	RecordToolCall(ctx context.Context, tc store.ToolCall) (int64, error)
	RecordApproval(ctx context.Context, a store.Approval) (int64, error)
	RecordVerifyRun(ctx context.Context, v store.VerifyRun) (int64, error)
	EventsSince(ctx context.Context, sessionID, typ, since string) ([]store.Event, error)
	Procs(ctx context.Context, sessionID string) ([]store.Proc, error)

	MailInTurn(ctx context.Context, ids []int64, turnID int64) ([]store.Mail, error)
	FinishMail(ctx context.Context, ids []int64, state store.MailState, text string) ([]store.Mail, error)
}

// Ledger is the Decisions ledger: the user's words kept verbatim, the
// model's proposals, what supersedes what (Pin and Rules need no more).
type Ledger interface {
	AddDecision(ctx context.Context, d store.Decision) (store.Decision, error)
	Decisions(ctx context.Context, sessionID string) ([]store.Decision, error)
	SupersedeDecision(ctx context.Context, sessionID string, seq, by int) error
	PinDecision(ctx context.Context, sessionID string, seq, pin int) (restored []int, err error)
	SetDecisionTopic(ctx context.Context, sessionID string, seq int, topic string) error
}

// EventLog is the sessions' timelines (RecordMail needs no more).
type EventLog interface {
	AppendEvent(ctx context.Context, e store.Event) (int64, error)
}

var _ Store = (*store.Store)(nil)
