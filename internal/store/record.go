package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/godwit/godwit/llm"
)

// ModelCall is one request to a model and what came back.
type ModelCall struct {
	ID        int64
	SessionID string
	TurnID    int64
	Segment   int
	Step      int
	Provider  string
	Model     string
	StartedAt time.Time
	Latency   time.Duration // until the stream ended
	TTFT      time.Duration // until the first token
	Usage     llm.Usage
	Cost      float64
	// StopReason is the llm.StopReason, as a string.
	StopReason   string
	Parts        []llm.PartStat
	RequestBytes int
	Retries      int
	Fallback     string // the provider/model it fell back to, if any
	Error        string
}

// RecordModelCall stores mc (StartedAt now when zero) and returns its id.
func (s *Store) RecordModelCall(ctx context.Context, mc ModelCall) (int64, error) {
	var parts any
	if len(mc.Parts) > 0 {
		b, err := json.Marshal(mc.Parts)
		if err != nil {
			return 0, fmt.Errorf("store: record model call: encode parts: %w", err)
		}
		parts = string(b)
	}
	u := mc.Usage
	return s.insert(ctx, "record model call", qRecordModelCall,
		mc.SessionID, null(mc.TurnID), mc.Segment, mc.Step, mc.Provider, mc.Model,
		s.stamp(mc.StartedAt).UnixMilli(), mc.Latency.Microseconds(), mc.TTFT.Microseconds(),
		u.InputTokens, u.OutputTokens, u.ReasoningTokens, u.CacheReadTokens, u.CacheWriteTokens,
		mc.Cost, mc.StopReason, parts, mc.RequestBytes, mc.Retries, mc.Fallback, mc.Error)
}

// ModelCalls returns the session's model calls in the order recorded.
func (s *Store) ModelCalls(ctx context.Context, sessionID string) ([]ModelCall, error) {
	return list(ctx, s.r, "model calls", scanRow[ModelCall], qModelCalls, sessionID)
}

// ToolCall is one run of a tool.
type ToolCall struct {
	ID        int64
	SessionID string
	TurnID    int64
	Step      int
	CallID    string // the model's id for the call
	Name      string
	// Args is the arguments as the model sent them; it may be invalid
	// JSON, and is kept as it was.
	Args      json.RawMessage
	Output    string
	IsError   bool
	Code      string // the ToolError code, when the call failed
	ExitCode  *int   // shell commands only
	StartedAt time.Time
	Duration  time.Duration
	// Approval says who let the call run: "" (no approval needed),
	// "auto", "rule", "user", or "denied" (it did not run).
	Approval string
	Changed  []string // paths the call wrote
}

// RecordToolCall stores tc (StartedAt now when zero) and returns its id.
// The output goes to the session's outputs, which the tool message that
// carries it (AppendMessage) shares.
func (s *Store) RecordToolCall(ctx context.Context, tc ToolCall) (int64, error) {
	if tc.Name == "" {
		return 0, errors.New("store: record tool call: empty Name; set the tool's name")
	}
	switch tc.Approval {
	case "", "auto", "rule", "user", "denied":
	default:
		return 0, fmt.Errorf("store: record tool call %s: unknown Approval %q (want \"\", auto, rule, user or denied)", tc.CallID, tc.Approval)
	}
	var args, exit, changed any
	if tc.Args != nil {
		args = string(tc.Args)
	}
	if tc.ExitCode != nil {
		exit = *tc.ExitCode
	}
	if len(tc.Changed) > 0 {
		b, err := json.Marshal(tc.Changed)
		if err != nil {
			return 0, fmt.Errorf("store: record tool call: encode changed paths: %w", err)
		}
		changed = string(b)
	}
	var id int64
	err := s.inTx(ctx, "record tool call", func(tx *txn) error {
		out, err := putOutput(ctx, tx, tc.SessionID, tc.Output, s.now().UnixMilli())
		if err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, qRecordToolCall,
			tc.SessionID, null(tc.TurnID), tc.Step, tc.CallID, tc.Name, args,
			tc.IsError, tc.Code, exit, s.stamp(tc.StartedAt).UnixMilli(), tc.Duration.Microseconds(),
			tc.Approval, changed, null(out)).Scan(&id)
	})
	return id, err
}

// ToolCalls returns the session's tool calls in the order recorded.
func (s *Store) ToolCalls(ctx context.Context, sessionID string) ([]ToolCall, error) {
	return list(ctx, s.r, "tool calls", func(r scanner) (ToolCall, error) {
		row, err := scanRow[struct {
			ToolCall
			Out stored
		}](r)
		if err != nil {
			return row.ToolCall, err
		}
		if row.Output, err = row.Out.textOr(row.Output); err != nil {
			return row.ToolCall, fmt.Errorf("tool call %d: %w", row.ID, err)
		}
		return row.ToolCall, nil
	}, qToolCalls, sessionID)
}

// Event is one entry of the event stream, as the sinks saw it.
type Event struct {
	ID        int64
	SessionID string
	TurnID    int64
	Type      string
	Time      time.Time
	Data      json.RawMessage
	// Output is the whole tool output the event shows the start of, for
	// AppendEvent: Data holds OutputPlaceholder where the output's first
	// OutputMax bytes go, and the store keeps the output once, with the
	// tool call's. Events returns Data with the preview put back, and
	// leaves Output empty.
	Output    string
	OutputMax int
}

// AppendEvent stores e (Time now when zero) and returns its id.
func (s *Store) AppendEvent(ctx context.Context, e Event) (int64, error) {
	if e.Type == "" {
		return 0, errors.New("store: append event: empty Type; set the event's type")
	}
	var data any
	if e.Data != nil {
		data = string(e.Data)
	}
	at := s.stamp(e.Time).UnixMilli()
	if e.OutputMax <= 0 || bytes.Count(e.Data, placeholderJSON) != 1 {
		if bytes.Contains(e.Data, placeholderJSON) {
			// Not one place to put it back: keep the preview inline.
			d, err := splice(e.Data, Preview(e.Output, max(e.OutputMax, 0)))
			if err != nil {
				return 0, fmt.Errorf("store: append event %s: %w", e.Type, err)
			}
			data = string(d)
		}
		return s.insert(ctx, "append event "+e.Type, qAppendEvent,
			e.SessionID, null(e.TurnID), e.Type, at, data, nil, 0)
	}
	var id int64
	err := s.inTx(ctx, "append event "+e.Type, func(tx *txn) error {
		out, err := putOutput(ctx, tx, e.SessionID, e.Output, s.now().UnixMilli())
		if err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, qAppendEvent, e.SessionID, null(e.TurnID), e.Type, at, data, null(out), e.OutputMax).Scan(&id)
	})
	return id, err
}

// EventUndo is the event snapshot.Undo records; its data's "text" says
// what was undone, and the engine tells the model at the session's next
// turn.
const EventUndo = "undo"

// Events returns the session's events in the order appended.
func (s *Store) Events(ctx context.Context, sessionID string) ([]Event, error) {
	return list(ctx, s.r, "events", scanEvent, qEvents, sessionID)
}

// EventsSince returns the session's events of type typ appended after its
// newest event of type since (all of them when there is none). It reads
// on the writer: the engine asks at the start of each turn.
func (s *Store) EventsSince(ctx context.Context, sessionID, typ, since string) ([]Event, error) {
	return list(ctx, s.w, "events since", scanEvent, qEventsSince, sessionID, typ, since)
}

func scanEvent(r scanner) (Event, error) {
	row, err := scanRow[struct {
		Event
		Out stored
	}](r)
	if err != nil || row.OutputMax <= 0 || row.Data == nil {
		return row.Event, err
	}
	p, err := row.Out.preview(row.OutputMax)
	if err == nil {
		row.Data, err = splice(row.Data, p)
	}
	if err != nil {
		return row.Event, fmt.Errorf("event %d: %w", row.ID, err)
	}
	return row.Event, nil
}
