package llm

import (
	"encoding/json"
	"time"
)

// EventType names a streamed event.
type EventType string

const (
	// EventTextDelta carries a fragment of answer text in Text.
	EventTextDelta EventType = "text_delta"
	// EventThinkingDelta carries a fragment of reasoning text in Text.
	EventThinkingDelta EventType = "thinking_delta"
	// EventThinkingEnd carries the complete block, signature included, in
	// Thinking. It is the only thinking event Accumulator keeps.
	EventThinkingEnd EventType = "thinking_end"
	// EventToolCallStart announces a call: Index, and ToolCall with ID and
	// Name (Args empty).
	EventToolCallStart EventType = "tool_call_start"
	// EventToolCallDelta carries an argument fragment for call Index in Text.
	EventToolCallDelta EventType = "tool_call_delta"
	// EventToolCallEnd carries the complete call (Args assembled) in
	// ToolCall.
	EventToolCallEnd EventType = "tool_call_end"
	// EventUsage carries token usage; a stream may send it more than once,
	// and later values replace earlier ones.
	EventUsage EventType = "usage"
	// EventStop ends a successful stream; StopReason says why.
	EventStop EventType = "stop"
	// EventRetry says a call failed transiently and is being tried again
	// (Retry). Everything streamed since the attempt began is void: the
	// consumer discards its partial answer.
	EventRetry EventType = "retry"
	// EventFallback says the call moved to another model (Fallback).
	EventFallback EventType = "fallback"
)

// Retry describes one retry. In JSON the wait is wait_ms, in
// milliseconds like every other duration godwit prints.
type Retry struct {
	Attempt int // the attempt about to start, from 2
	Wait    time.Duration
	Reason  string
	// Discarded is true when a partial answer had been streamed and is
	// thrown away.
	Discarded bool
}

type retryJSON struct {
	Attempt   int    `json:"attempt"`
	WaitMS    int64  `json:"wait_ms"`
	Reason    string `json:"reason"`
	Discarded bool   `json:"discarded,omitempty"`
	// WaitNS reads records written before wait_ms (nanoseconds as "wait").
	WaitNS int64 `json:"wait,omitempty"`
}

func (r Retry) MarshalJSON() ([]byte, error) {
	return json.Marshal(retryJSON{Attempt: r.Attempt, WaitMS: r.Wait.Milliseconds(), Reason: r.Reason, Discarded: r.Discarded})
}

func (r *Retry) UnmarshalJSON(b []byte) error {
	var j retryJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*r = Retry{Attempt: j.Attempt, Wait: time.Duration(j.WaitMS) * time.Millisecond, Reason: j.Reason, Discarded: j.Discarded}
	if j.WaitMS == 0 && j.WaitNS != 0 {
		r.Wait = time.Duration(j.WaitNS)
	}
	return nil
}

// Fallback describes a move to another model.
type Fallback struct {
	From   string `json:"from"` // provider/model
	To     string `json:"to"`
	Reason string `json:"reason"`
	// Discarded is true when a partial answer had been streamed by the
	// model left behind and is thrown away.
	Discarded bool `json:"discarded,omitempty"`
}

// StopReason says why the model stopped.
type StopReason string

const (
	StopEndTurn   StopReason = "end_turn"
	StopToolUse   StopReason = "tool_use"
	StopMaxTokens StopReason = "max_tokens"
	StopRefusal   StopReason = "refusal"
	StopOther     StopReason = "other"
)

// Event is one streamed step of a model's answer. Which fields are set
// depends on Type (see the constants).
type Event struct {
	Type       EventType
	Index      int
	Text       string
	Thinking   *Thinking
	ToolCall   *ToolCall
	Usage      *Usage
	StopReason StopReason
	Retry      *Retry
	Fallback   *Fallback
}

// Usage counts tokens for one model call.
//
// InputTokens is the whole prompt, cached parts included, whatever the
// vendor's own convention (Anthropic reports cache reads and writes beside
// input_tokens; adapters add them in). So the uncached, full-price share is
// InputTokens - CacheReadTokens - CacheWriteTokens.
type Usage struct {
	InputTokens      int64 `json:"input_tokens"`
	OutputTokens     int64 `json:"output_tokens"`
	ReasoningTokens  int64 `json:"reasoning_tokens,omitempty"`
	CacheReadTokens  int64 `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty"`
}

// Add accumulates o into u.
func (u *Usage) Add(o Usage) {
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.ReasoningTokens += o.ReasoningTokens
	u.CacheReadTokens += o.CacheReadTokens
	u.CacheWriteTokens += o.CacheWriteTokens
}
