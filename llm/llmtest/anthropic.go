package llmtest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// Anthropic Messages stream builders: content blocks, numbered in order,
// plus optional usage and stop reason:
//
//	llmtest.AnthropicReply(
//		llmtest.AnthropicThinking("Read the file first.", "sig-1"),
//		llmtest.AnthropicToolUse("toolu_1", "file_read", `{"path":"a.go"}`),
//		llmtest.AnthropicUsage(120, 30, 100, 0),
//	)
//
// The stop reason is tool_use when a tool_use block is present, else
// end_turn, unless AnthropicStop says otherwise.

// AnthropicPart is one piece of a scripted Messages stream.
type AnthropicPart struct {
	kind                    string // a block type, or "usage", "stop"
	pieces                  []string
	sig, id, name, input    string
	in, out, cacheR, cacheW int64
}

// AnthropicText is a text block streamed as one text_delta per piece.
func AnthropicText(pieces ...string) AnthropicPart {
	return AnthropicPart{kind: "text", pieces: pieces}
}

// AnthropicThinking is a thinking block: one thinking_delta, then a
// signature_delta carrying sig.
func AnthropicThinking(text, sig string) AnthropicPart {
	return AnthropicPart{kind: "thinking", pieces: []string{text}, sig: sig}
}

// AnthropicRedactedThinking is a redacted_thinking block holding data.
func AnthropicRedactedThinking(data string) AnthropicPart {
	return AnthropicPart{kind: "redacted_thinking", sig: data}
}

// AnthropicToolUse is a tool_use block whose input JSON arrives in two
// input_json_delta fragments (none when input is empty).
func AnthropicToolUse(id, name, input string) AnthropicPart {
	return AnthropicPart{kind: "tool_use", id: id, name: name, input: input}
}

// AnthropicUsage sets the usage the stream reports (input_tokens excludes
// the cache reads and writes, as the API counts). Default: 10 in, 5 out.
func AnthropicUsage(in, out, cacheRead, cacheWrite int64) AnthropicPart {
	return AnthropicPart{kind: "usage", in: in, out: out, cacheR: cacheRead, cacheW: cacheWrite}
}

// AnthropicStop sets message_delta's stop_reason.
func AnthropicStop(reason string) AnthropicPart { return AnthropicPart{kind: "stop", sig: reason} }

// AnthropicEvents renders the stream, one SSE event per string, so that a
// Reply can send them as Chunks.
func AnthropicEvents(parts ...AnthropicPart) []string {
	usage := AnthropicPart{in: 10, out: 5}
	stop, explicit := "end_turn", false
	var blocks []AnthropicPart
	for _, p := range parts {
		switch {
		case p.kind == "usage":
			usage = p
		case p.kind == "stop":
			stop, explicit = p.sig, true
		default:
			blocks = append(blocks, p)
			if p.kind == "tool_use" && !explicit {
				stop = "tool_use"
			}
		}
	}
	ev := []string{sseEvent("message_start", map[string]any{"message": map[string]any{
		"id": "msg_llmtest", "type": "message", "role": "assistant", "model": "claude-llmtest", "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{
			"input_tokens": usage.in, "output_tokens": 1, "cache_read_input_tokens": usage.cacheR, "cache_creation_input_tokens": usage.cacheW,
		},
	}})}
	for i, b := range blocks {
		ev = append(ev, blockEvents(i, b)...)
	}
	return append(ev,
		sseEvent("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
			"usage": map[string]any{"output_tokens": usage.out}}),
		sseEvent("message_stop", map[string]any{}))
}

func blockEvents(i int, b AnthropicPart) []string {
	delta := func(d map[string]any) string {
		return sseEvent("content_block_delta", map[string]any{"index": i, "delta": d})
	}
	var start map[string]any
	var deltas []string
	switch b.kind {
	case "text":
		start = map[string]any{"type": "text", "text": ""}
		for _, p := range b.pieces {
			deltas = append(deltas, delta(map[string]any{"type": "text_delta", "text": p}))
		}
	case "thinking":
		start = map[string]any{"type": "thinking", "thinking": "", "signature": ""}
		for _, p := range b.pieces {
			deltas = append(deltas, delta(map[string]any{"type": "thinking_delta", "thinking": p}))
		}
		deltas = append(deltas, delta(map[string]any{"type": "signature_delta", "signature": b.sig}))
	case "redacted_thinking":
		start = map[string]any{"type": "redacted_thinking", "data": b.sig}
	case "tool_use":
		start = map[string]any{"type": "tool_use", "id": b.id, "name": b.name, "input": map[string]any{}}
		if b.input != "" {
			cut := len(b.input) / 2
			for cut > 0 && !utf8.RuneStart(b.input[cut]) {
				cut--
			}
			for _, frag := range []string{b.input[:cut], b.input[cut:]} {
				deltas = append(deltas, delta(map[string]any{"type": "input_json_delta", "partial_json": frag}))
			}
		}
	default:
		panic("llmtest: unknown Anthropic block kind " + b.kind)
	}
	out := []string{sseEvent("content_block_start", map[string]any{"index": i, "content_block": start})}
	out = append(out, deltas...)
	return append(out, sseEvent("content_block_stop", map[string]any{"index": i}))
}

// AnthropicSSE renders the stream as one body.
func AnthropicSSE(parts ...AnthropicPart) string {
	return strings.Join(AnthropicEvents(parts...), "")
}

// AnthropicReply is a 200 reply streaming the parts.
func AnthropicReply(parts ...AnthropicPart) Reply {
	return Reply{Headers: map[string]string{"Content-Type": "text/event-stream; charset=utf-8"}, Body: AnthropicSSE(parts...)}
}

// AnthropicStreamError is the error event the API sends mid-stream, e.g.
// AnthropicStreamError("overloaded_error", "Overloaded").
func AnthropicStreamError(typ, message string) string {
	return sseEvent("error", map[string]any{"error": map[string]any{"type": typ, "message": message}})
}

// AnthropicError is an HTTP error reply with the API's error body.
func AnthropicError(status int, typ, message string) Reply {
	body := mustJSON(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": message}})
	return JSON(status, body)
}

// AnthropicRequest is a Messages request body, parsed for checks and for
// comparing requests in meaning.
type AnthropicRequest struct {
	Model       string          `json:"model"`
	MaxTokens   int64           `json:"max_tokens"`
	Stream      bool            `json:"stream"`
	Temperature *float64        `json:"temperature"`
	System      AnthropicBlocks `json:"system"`
	Messages    []struct {
		Role    string          `json:"role"`
		Content AnthropicBlocks `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name         string          `json:"name"`
		Description  string          `json:"description"`
		InputSchema  json.RawMessage `json:"input_schema"`
		CacheControl json.RawMessage `json:"cache_control"`
	} `json:"tools"`
	Thinking *struct {
		Type         string `json:"type"`
		BudgetTokens int64  `json:"budget_tokens"`
	} `json:"thinking"`
}

// AnthropicBlock is one content block of a request.
type AnthropicBlock struct {
	Type         string          `json:"type"`
	Text         string          `json:"text"`
	Thinking     string          `json:"thinking"`
	Signature    string          `json:"signature"`
	Data         string          `json:"data"` // redacted_thinking
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Input        json.RawMessage `json:"input"`
	ToolUseID    string          `json:"tool_use_id"`
	Content      AnthropicBlocks `json:"content"` // tool_result
	IsError      bool            `json:"is_error"`
	CacheControl json.RawMessage `json:"cache_control"`
}

// AnthropicBlocks is a content list; the API's string shorthand parses as
// one text block.
type AnthropicBlocks []AnthropicBlock

func (b *AnthropicBlocks) UnmarshalJSON(data []byte) error {
	var s string
	if json.Unmarshal(data, &s) == nil {
		*b = AnthropicBlocks{{Type: "text", Text: s}}
		return nil
	}
	return json.Unmarshal(data, (*[]AnthropicBlock)(b))
}

// Text concatenates the text blocks.
func (b AnthropicBlocks) Text() string {
	var sb strings.Builder
	for _, x := range b {
		if x.Type == "text" {
			sb.WriteString(x.Text)
		}
	}
	return sb.String()
}

// ParseAnthropicRequest parses a captured Messages request body.
func ParseAnthropicRequest(body []byte) (*AnthropicRequest, error) {
	var r AnthropicRequest
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("llmtest: not a Messages request: %w", err)
	}
	return &r, nil
}

// Breakpoints counts the cache_control markers in the request.
func (r *AnthropicRequest) Breakpoints() int {
	n := 0
	marked := func(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }
	for _, t := range r.Tools {
		if marked(t.CacheControl) {
			n++
		}
	}
	var count func(AnthropicBlocks)
	count = func(bs AnthropicBlocks) {
		for _, b := range bs {
			if marked(b.CacheControl) {
				n++
			}
			count(b.Content)
		}
	}
	count(r.System)
	for _, m := range r.Messages {
		count(m.Content)
	}
	return n
}

// CheckAnthropic checks the invariants of captured Messages requests:
// every tool_use is answered exactly once by a tool_result in the next
// (user) message and no tool_result answers nothing; tool input is a JSON
// object, never null; a thinking block keeps the signature it was first
// sent with; at most 4 cache_control breakpoints. Given the replies that
// were served (in order), it also checks that every signature and
// redacted_thinking data sent back is byte for byte one the model sent in
// an earlier reply.
func CheckAnthropic(t testing.TB, reqs []Captured, served ...Reply) {
	t.Helper()
	firstSig := map[string]string{} // thinking text -> signature first sent
	var streamed []string           // signatures and data served so far
	for i, c := range reqs {
		if i > 0 && i-1 < len(served) {
			streamed = append(streamed, anthSignatures(served[i-1].Body)...)
		}
		r, err := ParseAnthropicRequest(c.Body)
		if err != nil {
			t.Errorf("llmtest: request %d: %v", i, err)
			continue
		}
		if n := r.Breakpoints(); n > 4 {
			t.Errorf("llmtest: request %d: %d cache_control breakpoints; the API allows 4", i, n)
		}
		for j, m := range r.Messages {
			where := fmt.Sprintf("request %d message %d", i, j)
			if m.Role == "assistant" {
				checkAssistantTurn(t, where, r, j)
			}
			for k, b := range m.Content {
				sig := b.Signature
				switch b.Type {
				case "thinking":
					if sig == "" {
						t.Errorf("llmtest: %s block %d: thinking without a signature", where, k)
					} else if first, ok := firstSig[b.Thinking]; ok && first != sig {
						t.Errorf("llmtest: %s block %d: thinking signature changed:\n  first %q\n  now   %q", where, k, first, sig)
					} else {
						firstSig[b.Thinking] = sig
					}
				case "redacted_thinking":
					sig = b.Data
				default:
					continue
				}
				if len(served) > 0 && !slices.Contains(streamed, sig) {
					t.Errorf("llmtest: %s block %d: %s %q is not one the model sent", where, k, b.Type, sig)
				}
			}
		}
	}
}

// checkAssistantTurn checks the tool_use blocks of message j and their
// answers in message j+1.
func checkAssistantTurn(t testing.TB, where string, r *AnthropicRequest, j int) {
	t.Helper()
	open := map[string]int{}
	for _, b := range r.Messages[j].Content {
		if b.Type != "tool_use" {
			continue
		}
		open[b.ID] = 0
		if in := strings.TrimSpace(string(b.Input)); !strings.HasPrefix(in, "{") || !json.Valid(b.Input) {
			t.Errorf("llmtest: %s: tool_use %s input is %s; send a JSON object ({} when empty)", where, b.ID, orEmpty(in))
		}
	}
	if len(open) == 0 {
		return
	}
	if j+1 >= len(r.Messages) || r.Messages[j+1].Role != "user" {
		t.Errorf("llmtest: %s: tool_use blocks are not followed by a user message of tool_result blocks", where)
		return
	}
	for _, b := range r.Messages[j+1].Content {
		if b.Type != "tool_result" {
			continue
		}
		if _, ok := open[b.ToolUseID]; !ok {
			t.Errorf("llmtest: %s: tool_result for %q answers no tool_use of the message before it", where, b.ToolUseID)
			continue
		}
		open[b.ToolUseID]++
	}
	for id, n := range open {
		if n != 1 {
			t.Errorf("llmtest: %s: tool_use %s answered %d times; want exactly once", where, id, n)
		}
	}
}

func orEmpty(s string) string {
	if s == "" {
		return "missing"
	}
	return s
}

// anthSignatures returns the thinking signatures (signature_delta
// fragments joined per block) and redacted_thinking data of an SSE body.
func anthSignatures(body string) []string {
	var out []string
	sigs := map[int]string{}
	for _, data := range sseData(body) {
		var ev struct {
			Type         string
			Index        int
			Delta        struct{ Signature string }
			ContentBlock struct{ Data string } `json:"content_block"`
		}
		if json.Unmarshal([]byte(data), &ev) != nil {
			continue
		}
		switch {
		case ev.ContentBlock.Data != "":
			out = append(out, ev.ContentBlock.Data)
		case ev.Delta.Signature != "":
			sigs[ev.Index] += ev.Delta.Signature
		case ev.Type == "content_block_stop" && sigs[ev.Index] != "":
			out = append(out, sigs[ev.Index])
			delete(sigs, ev.Index)
		}
	}
	return out
}
