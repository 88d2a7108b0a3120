package anthropic

import (
	"fmt"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/godwit/godwit/llm"
)

// decoder turns one Messages stream into llm events. It keeps the content
// blocks that are open (started, not yet stopped) by their index, and the
// usage and stop reason seen so far. It is used by one goroutine.
type decoder struct {
	provider string
	blocks   map[int64]*block
	calls    int // tool calls started so far: the llm Event.Index of the next
	usage    llm.Usage
	stop     llm.StopReason
}

// block is an open content block.
type block struct {
	kind      string // "text", "thinking", "redacted_thinking", "tool_use", or other (ignored)
	call      int    // tool_use: its Event.Index
	id, name  string
	input     []byte // tool_use: the input_json_delta fragments
	initInput string // tool_use: input given whole in content_block_start
	thinking  strings.Builder
	signature strings.Builder
	data      string // redacted_thinking
}

// handle folds one stream event, emitting the llm events it yields. done
// reports message_stop; cont is false when emit asked to stop.
func (d *decoder) handle(ev *sdk.MessageStreamEventUnion, emit func(llm.Event) bool) (done, cont bool, err error) {
	switch ev.Type {
	case "message_start":
		u := ev.Message.Usage
		d.usage = llm.Usage{
			InputTokens:      u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens,
			OutputTokens:     u.OutputTokens,
			ReasoningTokens:  u.OutputTokensDetails.ThinkingTokens,
			CacheReadTokens:  u.CacheReadInputTokens,
			CacheWriteTokens: u.CacheCreationInputTokens,
		}
		return false, d.emitUsage(emit), nil
	case "content_block_start":
		cont, err = d.start(ev, emit)
		return false, cont, err
	case "content_block_delta":
		cont, err = d.delta(ev, emit)
		return false, cont, err
	case "content_block_stop":
		cont, err = d.finish(ev.Index, emit)
		return false, cont, err
	case "message_delta":
		d.stop = stopReason(ev.Delta.StopReason)
		d.updateUsage(&ev.Usage)
		return false, d.emitUsage(emit), nil
	case "message_stop":
		if len(d.blocks) > 0 {
			return false, false, d.malformed("message_stop arrived with %d content block(s) still open", len(d.blocks))
		}
		stop := d.stop
		if stop == "" {
			stop = llm.StopOther
		}
		return true, emit(llm.Event{Type: llm.EventStop, StopReason: stop}), nil
	}
	// Event types added after this adapter was written carry nothing it
	// can use; skipping them keeps old binaries working.
	return false, true, nil
}

func (d *decoder) start(ev *sdk.MessageStreamEventUnion, emit func(llm.Event) bool) (bool, error) {
	cb := &ev.ContentBlock
	if _, open := d.blocks[ev.Index]; open {
		return false, d.malformed("content_block_start for block %d, which is already open", ev.Index)
	}
	b := &block{kind: cb.Type}
	if d.blocks == nil {
		d.blocks = map[int64]*block{}
	}
	d.blocks[ev.Index] = b
	switch cb.Type {
	case "text":
		if cb.Text != "" {
			return emit(llm.Event{Type: llm.EventTextDelta, Text: cb.Text}), nil
		}
	case "thinking":
		b.thinking.WriteString(cb.Thinking)
		b.signature.WriteString(cb.Signature)
		if cb.Thinking != "" {
			return emit(llm.Event{Type: llm.EventThinkingDelta, Text: cb.Thinking}), nil
		}
	case "redacted_thinking":
		b.data = cb.Data
	case "tool_use":
		b.call, b.id, b.name = d.calls, cb.ID, cb.Name
		b.initInput = cb.JSON.Input.Raw()
		d.calls++
		return emit(llm.Event{Type: llm.EventToolCallStart, Index: b.call, ToolCall: &llm.ToolCall{ID: b.id, Name: b.name}}), nil
	}
	return true, nil
}

func (d *decoder) delta(ev *sdk.MessageStreamEventUnion, emit func(llm.Event) bool) (bool, error) {
	b, ok := d.blocks[ev.Index]
	if !ok {
		return false, d.malformed("content_block_delta for block %d, which is not open", ev.Index)
	}
	dl := &ev.Delta
	if !knownBlock(b.kind) {
		// A block godwit does not use (a server tool's, say) is skipped whole.
		return true, nil
	}
	if want := deltaTarget(dl.Type); want != "" && want != b.kind {
		return false, d.malformed("%s for a %s block (%d)", dl.Type, b.kind, ev.Index)
	}
	switch dl.Type {
	case "text_delta":
		if dl.Text != "" {
			return emit(llm.Event{Type: llm.EventTextDelta, Text: dl.Text}), nil
		}
	case "input_json_delta":
		if dl.PartialJSON != "" {
			b.input = append(b.input, dl.PartialJSON...)
			return emit(llm.Event{Type: llm.EventToolCallDelta, Index: b.call, Text: dl.PartialJSON}), nil
		}
	case "thinking_delta":
		if dl.Thinking != "" {
			b.thinking.WriteString(dl.Thinking)
			return emit(llm.Event{Type: llm.EventThinkingDelta, Text: dl.Thinking}), nil
		}
	case "signature_delta":
		b.signature.WriteString(dl.Signature)
	}
	// citations_delta and future delta types carry nothing godwit keeps.
	return true, nil
}

func knownBlock(kind string) bool {
	return kind == "text" || kind == "thinking" || kind == "redacted_thinking" || kind == "tool_use"
}

// deltaTarget is the block kind a delta type belongs to, "" if unknown.
func deltaTarget(deltaType string) string {
	switch deltaType {
	case "text_delta":
		return "text"
	case "input_json_delta":
		return "tool_use"
	case "thinking_delta", "signature_delta":
		return "thinking"
	}
	return ""
}

func (d *decoder) finish(index int64, emit func(llm.Event) bool) (bool, error) {
	b, ok := d.blocks[index]
	if !ok {
		return false, d.malformed("content_block_stop for block %d, which is not open", index)
	}
	delete(d.blocks, index)
	switch b.kind {
	case "thinking":
		return emit(llm.Event{Type: llm.EventThinkingEnd, Thinking: &llm.Thinking{
			Text: b.thinking.String(), Signature: b.signature.String(), Provider: thinkingProvider,
		}}), nil
	case "redacted_thinking":
		return emit(llm.Event{Type: llm.EventThinkingEnd, Thinking: &llm.Thinking{
			Redacted: true, Signature: b.data, Provider: thinkingProvider,
		}}), nil
	case "tool_use":
		args := b.input
		if len(args) == 0 && b.initInput != "" {
			args = []byte(b.initInput)
		}
		return emit(llm.Event{Type: llm.EventToolCallEnd, Index: b.call, ToolCall: &llm.ToolCall{
			ID: b.id, Name: b.name, Args: llm.ArgsOrEmpty(args),
		}}), nil
	}
	return true, nil
}

// updateUsage applies message_delta usage. Its counts are cumulative
// totals for the message, so each present field replaces the earlier one.
func (d *decoder) updateUsage(u *sdk.MessageDeltaUsage) {
	d.usage.OutputTokens = u.OutputTokens
	if u.JSON.OutputTokensDetails.Valid() {
		d.usage.ReasoningTokens = u.OutputTokensDetails.ThinkingTokens
	}
	if !u.JSON.InputTokens.Valid() && !u.JSON.CacheReadInputTokens.Valid() && !u.JSON.CacheCreationInputTokens.Valid() {
		return
	}
	uncached := d.usage.InputTokens - d.usage.CacheReadTokens - d.usage.CacheWriteTokens
	if u.JSON.InputTokens.Valid() {
		uncached = u.InputTokens
	}
	if u.JSON.CacheReadInputTokens.Valid() {
		d.usage.CacheReadTokens = u.CacheReadInputTokens
	}
	if u.JSON.CacheCreationInputTokens.Valid() {
		d.usage.CacheWriteTokens = u.CacheCreationInputTokens
	}
	d.usage.InputTokens = uncached + d.usage.CacheReadTokens + d.usage.CacheWriteTokens
}

func (d *decoder) emitUsage(emit func(llm.Event) bool) bool {
	u := d.usage
	return emit(llm.Event{Type: llm.EventUsage, Usage: &u})
}

func (d *decoder) malformed(format string, args ...any) error {
	return &llm.Error{Kind: llm.KindMalformed, Provider: d.provider, Message: "stream: " + fmt.Sprintf(format, args...)}
}

// stopReason maps the API's stop_reason. stop_sequence counts as a normal
// end (godwit sends no stop sequences); model_context_window_exceeded cut
// the answer short like max_tokens; pause_turn (a server tool paused the
// turn) and anything unknown are StopOther.
func stopReason(s sdk.StopReason) llm.StopReason {
	switch s {
	case sdk.StopReasonEndTurn, sdk.StopReasonStopSequence:
		return llm.StopEndTurn
	case sdk.StopReasonToolUse:
		return llm.StopToolUse
	case sdk.StopReasonMaxTokens, sdk.StopReasonModelContextWindowExceeded:
		return llm.StopMaxTokens
	case sdk.StopReasonRefusal:
		return llm.StopRefusal
	}
	return llm.StopOther
}
