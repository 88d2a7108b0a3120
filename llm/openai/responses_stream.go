package openai

import (
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"

	"github.com/godwit/godwit/llm"
)

// ProviderResponses is Thinking.Provider for reasoning items read from the
// Responses API; only these are sent back, as reasoning input items.
const ProviderResponses = "openai-responses"

// respEvent is a Responses streaming event, the fields of it that are
// read; which are set depends on Type.
type respEvent struct {
	Type         string   `json:"type"`
	ItemID       string   `json:"item_id"`
	OutputIndex  num      `json:"output_index"`
	SummaryIndex num      `json:"summary_index"`
	Delta        string   `json:"delta"`
	Arguments    string   `json:"arguments"`
	Item         respItem `json:"item"`
	Response     struct {
		Usage *struct {
			InputTokens        num `json:"input_tokens"`
			OutputTokens       num `json:"output_tokens"`
			InputTokensDetails struct {
				CachedTokens     num `json:"cached_tokens"`
				CacheWriteTokens num `json:"cache_write_tokens"`
			} `json:"input_tokens_details"`
			OutputTokensDetails struct {
				ReasoningTokens num `json:"reasoning_tokens"`
			} `json:"output_tokens_details"`
		} `json:"usage"`
		IncompleteDetails struct {
			Reason string `json:"reason"`
		} `json:"incomplete_details"`
		Error json.RawMessage `json:"error"`
	} `json:"response"`
}

// respItem is an output item: a function call, a reasoning item or a
// message.
type respItem struct {
	Type   string `json:"type"`
	ID     string `json:"id"`
	CallID string `json:"call_id"`
	Name   string `json:"name"`
	// Arguments is a JSON string; a server that sends something else
	// sends no arguments.
	Arguments        json.RawMessage `json:"arguments"`
	EncryptedContent string          `json:"encrypted_content"`
	Summary          []struct {
		Text string `json:"text"`
	} `json:"summary"`
	Content []struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Refusal string `json:"refusal"`
	} `json:"content"`
}

func (it *respItem) arguments() string {
	var s string
	_ = json.Unmarshal(it.Arguments, &s)
	return s
}

// respStream turns Responses streaming events into llm events. Items are
// keyed by item id (by output index when a server leaves the id out). It
// is used by one Stream call and is not safe for concurrent use.
type respStream struct {
	provider  string
	calls     calls // keyed by itemKey
	reasoning map[string]*respReasoning
	texted    map[string]bool // message items whose text came as deltas
	refusal   bool
	usage     *llm.Usage
	stop      llm.StopReason // set by the final event
	failed    error          // an in-band error event
}

type respReasoning struct {
	text    strings.Builder
	summary num // index of the summary part being streamed
}

func itemKey(itemID string, outputIndex num) string {
	if itemID != "" {
		return itemID
	}
	return "#" + strconv.FormatInt(int64(outputIndex), 10)
}

// failure implements decoder.
func (s *respStream) failure() error { return s.failed }

// done implements decoder.
func (s *respStream) done(log *slog.Logger, provider, model string) {
	log.Debug("openai: responses stream done", "provider", provider, "model", model, "stop", s.stop, "tool_calls", len(s.calls.order))
}

// add implements decoder.
func (s *respStream) add(data []byte, out emit) (bool, error) {
	var ev respEvent
	if err := unmarshal(data, &ev); err != nil {
		return false, err
	}
	return s.event(&ev, data, out), nil
}

func (s *respStream) event(ev *respEvent, data []byte, out emit) bool {
	switch ev.Type {
	case "response.output_item.added":
		return s.itemAdded(ev, out)
	case "response.output_item.done":
		return s.itemDone(ev, out)
	case "response.output_text.delta", "response.refusal.delta":
		if ev.Type == "response.refusal.delta" {
			s.refusal = true
		}
		if s.texted == nil {
			s.texted = map[string]bool{}
		}
		s.texted[itemKey(ev.ItemID, ev.OutputIndex)] = true
		return ev.Delta == "" || out(llm.Event{Type: llm.EventTextDelta, Text: ev.Delta})
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		return s.thinkingDelta(ev, out)
	case "response.function_call_arguments.delta":
		c, ok := s.calls.get(itemKey(ev.ItemID, ev.OutputIndex), "", "", out)
		return ok && c.delta(ev.Delta, out)
	case "response.function_call_arguments.done":
		c, ok := s.calls.get(itemKey(ev.ItemID, ev.OutputIndex), "", "", out)
		if ok {
			c.final = ev.Arguments
		}
		return ok
	case "response.completed", "response.incomplete":
		if u := ev.Response.Usage; u != nil {
			s.usage = &llm.Usage{
				InputTokens:      int64(u.InputTokens),
				OutputTokens:     int64(u.OutputTokens),
				ReasoningTokens:  int64(u.OutputTokensDetails.ReasoningTokens),
				CacheReadTokens:  int64(u.InputTokensDetails.CachedTokens),
				CacheWriteTokens: int64(u.InputTokensDetails.CacheWriteTokens),
			}
		}
		s.stop = s.stopReason(ev)
	case "response.failed":
		s.failed = eventError(s.provider, ev.Response.Error)
	case "error":
		s.failed = eventError(s.provider, data)
	}
	return true
}

func (s *respStream) stopReason(ev *respEvent) llm.StopReason {
	if ev.Type == "response.incomplete" {
		switch ev.Response.IncompleteDetails.Reason {
		case "max_output_tokens":
			return llm.StopMaxTokens
		case "content_filter":
			return llm.StopRefusal
		}
		return llm.StopOther
	}
	switch {
	case len(s.calls.order) > 0:
		return llm.StopToolUse
	case s.refusal:
		return llm.StopRefusal
	}
	return llm.StopEndTurn
}

func (s *respStream) itemAdded(ev *respEvent, out emit) bool {
	it := &ev.Item
	key := itemKey(it.ID, ev.OutputIndex)
	switch it.Type {
	case "function_call":
		c, ok := s.calls.get(key, it.CallID, it.Name, out)
		return ok && c.delta(it.arguments(), out) // some servers send it whole
	case "reasoning":
		s.thought(key)
	}
	return true
}

func (s *respStream) itemDone(ev *respEvent, out emit) bool {
	it := &ev.Item
	key := itemKey(it.ID, ev.OutputIndex)
	switch it.Type {
	case "function_call":
		c, ok := s.calls.get(key, it.CallID, it.Name, out)
		if !ok {
			return false
		}
		if a := it.arguments(); a != "" {
			c.final = a
		}
		return c.end(out)
	case "reasoning":
		t := &llm.Thinking{ID: it.ID, Signature: it.EncryptedContent, Provider: ProviderResponses}
		for _, sm := range it.Summary {
			t.Summary = append(t.Summary, sm.Text)
		}
		if len(t.Summary) > 0 {
			t.Text = strings.Join(t.Summary, "\n\n")
		} else if r := s.reasoning[key]; r != nil {
			t.Text = r.text.String() // raw reasoning_text (gpt-oss servers)
		}
		delete(s.reasoning, key)
		if t.Signature == "" && t.Text == "" {
			return true // nothing to show and nothing to send back
		}
		return out(llm.Event{Type: llm.EventThinkingEnd, Thinking: t})
	case "message":
		if s.texted[key] {
			return true
		}
		// A server that skipped the deltas: the item holds the text.
		for _, c := range it.Content {
			text := c.Text
			if c.Type == "refusal" {
				text, s.refusal = c.Refusal, true
			}
			if text != "" && !out(llm.Event{Type: llm.EventTextDelta, Text: text}) {
				return false
			}
		}
	}
	return true
}

func (s *respStream) thought(key string) *respReasoning {
	if s.reasoning == nil {
		s.reasoning = map[string]*respReasoning{}
	}
	r := s.reasoning[key]
	if r == nil {
		r = &respReasoning{}
		s.reasoning[key] = r
	}
	return r
}

// thinkingDelta streams summary text; a new summary part is separated by
// a blank line so that the deltas add up to Thinking.Text.
func (s *respStream) thinkingDelta(ev *respEvent, out emit) bool {
	r := s.thought(itemKey(ev.ItemID, ev.OutputIndex))
	text := ev.Delta
	if ev.Type == "response.reasoning_summary_text.delta" && ev.SummaryIndex != r.summary {
		r.summary = ev.SummaryIndex
		if r.text.Len() > 0 {
			text = "\n\n" + text
		}
	}
	if text == "" {
		return true
	}
	r.text.WriteString(text)
	return out(llm.Event{Type: llm.EventThinkingDelta, Text: text})
}

// end finishes the stream after its last event: ok is false when no final
// event came (see errCut).
func (s *respStream) end(out emit) (ok bool) {
	if s.stop == "" {
		return false
	}
	finish(out, &s.calls, s.usage, s.stop)
	return true
}
