package anthropic

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/godwit/godwit/llm"
)

// event is one stream event, as the streaming reference names its fields;
// which are set depends on Type.
type event struct {
	Type    string `json:"type"`
	Index   int64  `json:"index"`
	Message struct {
		Usage usage `json:"usage"`
	} `json:"message"`
	ContentBlock struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		Thinking  string          `json:"thinking"`
		Signature string          `json:"signature"`
		Data      string          `json:"data"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
	} `json:"content_block"`
	Delta struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		PartialJSON string `json:"partial_json"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage usage `json:"usage"`
}

// usage is the API's usage object. message_delta's counts are cumulative
// and each may be absent, hence the pointers.
type usage struct {
	InputTokens              *int64 `json:"input_tokens"`
	OutputTokens             int64  `json:"output_tokens"`
	CacheReadInputTokens     *int64 `json:"cache_read_input_tokens"`
	CacheCreationInputTokens *int64 `json:"cache_creation_input_tokens"`
	OutputTokensDetails      *struct {
		ThinkingTokens int64 `json:"thinking_tokens"`
	} `json:"output_tokens_details"`
}

func val(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// decoder turns one Messages stream into llm events. It keeps the content
// blocks that are open (started, not yet stopped) by their index, and the
// usage and stop reason seen so far. It is used by one goroutine.
type decoder struct {
	provider string
	blocks   map[int64]*openBlock
	calls    int // tool calls started so far: the llm Event.Index of the next
	usage    llm.Usage
	stop     llm.StopReason
}

// openBlock is a content block started and not yet stopped.
type openBlock struct {
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
func (d *decoder) handle(ev *event, emit func(llm.Event) bool) (done, cont bool, err error) {
	switch ev.Type {
	case "message_start":
		u := ev.Message.Usage
		d.usage = llm.Usage{
			InputTokens:      val(u.InputTokens) + val(u.CacheReadInputTokens) + val(u.CacheCreationInputTokens),
			OutputTokens:     u.OutputTokens,
			CacheReadTokens:  val(u.CacheReadInputTokens),
			CacheWriteTokens: val(u.CacheCreationInputTokens),
		}
		if u.OutputTokensDetails != nil {
			d.usage.ReasoningTokens = u.OutputTokensDetails.ThinkingTokens
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

func (d *decoder) start(ev *event, emit func(llm.Event) bool) (bool, error) {
	cb := &ev.ContentBlock
	if _, open := d.blocks[ev.Index]; open {
		return false, d.malformed("content_block_start for block %d, which is already open", ev.Index)
	}
	b := &openBlock{kind: cb.Type}
	if d.blocks == nil {
		d.blocks = map[int64]*openBlock{}
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
		b.initInput = string(cb.Input)
		d.calls++
		return emit(llm.Event{Type: llm.EventToolCallStart, Index: b.call, ToolCall: &llm.ToolCall{ID: b.id, Name: b.name}}), nil
	}
	return true, nil
}

func (d *decoder) delta(ev *event, emit func(llm.Event) bool) (bool, error) {
	b, ok := d.blocks[ev.Index]
	if !ok {
		return false, d.malformed("content_block_delta for block %d, which is not open", ev.Index)
	}
	dl := &ev.Delta
	if !knownBlock(b.kind) {
		// A block godwit does not use (a server tool's, say) is skipped whole.
		return true, nil
	}
	if want := deltaTarget[dl.Type]; want != "" && want != b.kind {
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

// deltaTarget maps a delta type to the block kind it belongs to.
var deltaTarget = map[string]string{
	"text_delta": "text", "input_json_delta": "tool_use", "thinking_delta": "thinking", "signature_delta": "thinking",
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
func (d *decoder) updateUsage(u *usage) {
	d.usage.OutputTokens = u.OutputTokens
	if u.OutputTokensDetails != nil {
		d.usage.ReasoningTokens = u.OutputTokensDetails.ThinkingTokens
	}
	if u.InputTokens == nil && u.CacheReadInputTokens == nil && u.CacheCreationInputTokens == nil {
		return
	}
	uncached := d.usage.InputTokens - d.usage.CacheReadTokens - d.usage.CacheWriteTokens
	if u.InputTokens != nil {
		uncached = *u.InputTokens
	}
	if u.CacheReadInputTokens != nil {
		d.usage.CacheReadTokens = *u.CacheReadInputTokens
	}
	if u.CacheCreationInputTokens != nil {
		d.usage.CacheWriteTokens = *u.CacheCreationInputTokens
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
func stopReason(s string) llm.StopReason {
	switch s {
	case "end_turn", "stop_sequence":
		return llm.StopEndTurn
	case "tool_use":
		return llm.StopToolUse
	case "max_tokens", "model_context_window_exceeded":
		return llm.StopMaxTokens
	case "refusal":
		return llm.StopRefusal
	}
	return llm.StopOther
}
