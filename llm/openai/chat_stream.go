package openai

import (
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"

	"github.com/godwit/godwit/llm"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/respjson"
)

// ProviderChat is Thinking.Provider for reasoning read from Chat
// Completions (reasoning_content / reasoning).
const ProviderChat = "openai-chat"

// chatStream turns chat.completion.chunk objects into llm events. It is
// used by one Stream call and is not safe for concurrent use.
type chatStream struct {
	thinking     strings.Builder
	thinkingOpen bool
	// details are OpenRouter's reasoning_details. Their pieces may come
	// after the text has begun (a signature, an encrypted block), so a
	// stream that carries them ends its thinking block at the finish,
	// with the whole text and every detail, not at the first text.
	details      detailsMerger
	sawDetails   bool
	detailsDone  bool
	detailsError error
	calls        []*chatCall         // in order of first appearance
	byIndex      map[int64]*chatCall // the current call for a wire index
	callsEnded   bool
	finish       string
	refusal      bool
	usage        *llm.Usage
}

type chatCall struct {
	ord  int
	id   string
	name string
	args strings.Builder
}

// emit hands one event to the consumer; false means it stopped listening.
type emit func(llm.Event) bool

// failure implements decoder: Chat Completions reports errors out of
// band only.
func (*chatStream) failure() error { return nil }

// done implements decoder.
func (s *chatStream) done(log *slog.Logger, provider, model string) {
	if s.detailsError != nil {
		log.Warn("openai: reasoning_details not understood; the next request may lose the model's reasoning", "provider", provider, "err", s.detailsError)
	}
	log.Debug("openai: chat stream done", "provider", provider, "model", model, "finish", s.finish, "tool_calls", len(s.calls))
}

func (s *chatStream) add(c *openai.ChatCompletionChunk, out emit) bool {
	if c.JSON.Usage.Valid() {
		u := chatUsage(&c.Usage)
		s.usage = &u
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 || s.finish != "" { // one choice; nothing counts after its finish
			continue
		}
		if !s.delta(&ch.Delta, out) {
			return false
		}
		if ch.FinishReason != "" && s.finish == "" {
			s.finish = ch.FinishReason
			if !s.endCalls(out) {
				return false
			}
		}
	}
	return true
}

func (s *chatStream) delta(d *openai.ChatCompletionChunkChoiceDelta, out emit) bool {
	if f, ok := d.JSON.ExtraFields["reasoning_details"]; ok {
		if raw := f.Raw(); raw != "" && raw != "null" && raw != "[]" {
			if err := s.details.add(raw); err != nil && s.detailsError == nil {
				s.detailsError = err
			}
			s.sawDetails = true
		}
	}
	if r := reasoningDelta(d.JSON.ExtraFields); r != "" {
		s.thinkingOpen = true
		s.thinking.WriteString(r)
		if !out(llm.Event{Type: llm.EventThinkingDelta, Text: r}) {
			return false
		}
	}
	if d.Content != "" && !s.text(d.Content, out) {
		return false
	}
	if d.Refusal != "" { // shown as text; the stop reason says refusal
		s.refusal = true
		if !s.text(d.Refusal, out) {
			return false
		}
	}
	for i := range d.ToolCalls {
		if !s.endThinking(out) || !s.toolCall(&d.ToolCalls[i], out) {
			return false
		}
	}
	return true
}

func (s *chatStream) text(t string, out emit) bool {
	return s.endThinking(out) && out(llm.Event{Type: llm.EventTextDelta, Text: t})
}

// toolCall assembles calls by index. The id and name come with the first
// delta of an index; some servers send a whole call in one delta, some
// repeat the id on every delta. A different id on a known index is a new
// call (servers that number every call 0).
func (s *chatStream) toolCall(tc *openai.ChatCompletionChunkChoiceDeltaToolCall, out emit) bool {
	c := s.byIndex[tc.Index]
	if c == nil || (tc.ID != "" && c.id != tc.ID) {
		if s.byIndex == nil {
			s.byIndex = map[int64]*chatCall{}
		}
		c = &chatCall{ord: len(s.calls), id: tc.ID, name: tc.Function.Name}
		if c.id == "" {
			// No id from the server: it will not check the one we send
			// back, but the history needs one to pair the result.
			c.id = "call_" + strconv.Itoa(c.ord)
		}
		s.calls = append(s.calls, c)
		s.byIndex[tc.Index] = c
		start := llm.Event{Type: llm.EventToolCallStart, Index: c.ord, ToolCall: &llm.ToolCall{ID: c.id, Name: c.name}}
		if !out(start) {
			return false
		}
	} else if c.name == "" {
		c.name = tc.Function.Name
	}
	if a := tc.Function.Arguments; a != "" {
		c.args.WriteString(a)
		return out(llm.Event{Type: llm.EventToolCallDelta, Index: c.ord, Text: a})
	}
	return true
}

func (s *chatStream) endThinking(out emit) bool {
	if !s.thinkingOpen || s.sawDetails {
		return true // with details, flushDetails ends the block
	}
	s.thinkingOpen = false
	t := &llm.Thinking{Text: s.thinking.String(), Provider: ProviderChat}
	s.thinking.Reset()
	return out(llm.Event{Type: llm.EventThinkingEnd, Thinking: t})
}

func (s *chatStream) endCalls(out emit) bool {
	if s.callsEnded {
		return true
	}
	s.callsEnded = true
	if !s.endThinking(out) || !s.flushDetails(out) {
		return false
	}
	for _, c := range s.calls {
		call := &llm.ToolCall{ID: c.id, Name: c.name, Args: llm.ArgsOrEmpty(json.RawMessage(c.args.String()))}
		if !out(llm.Event{Type: llm.EventToolCallEnd, Index: c.ord, ToolCall: call}) {
			return false
		}
	}
	return true
}

// flushDetails ends the thinking block of a stream that carried
// reasoning_details: its text and the merged details, once.
func (s *chatStream) flushDetails(out emit) bool {
	if !s.sawDetails || s.detailsDone {
		return true
	}
	s.detailsDone, s.thinkingOpen = true, false
	t := &llm.Thinking{Text: s.thinking.String(), Provider: ProviderChat, Details: s.details.JSON()}
	s.thinking.Reset()
	return out(llm.Event{Type: llm.EventThinkingEnd, Thinking: t})
}

// end finishes a stream that closed cleanly. ok is false when the server
// never sent a finish_reason (see errCut).
func (s *chatStream) end(out emit) (ok bool) {
	if s.finish == "" {
		return false
	}
	if !s.endCalls(out) {
		return true
	}
	if s.usage != nil && !out(llm.Event{Type: llm.EventUsage, Usage: s.usage}) {
		return true
	}
	out(llm.Event{Type: llm.EventStop, StopReason: s.stopReason()})
	return true
}

func (s *chatStream) stopReason() llm.StopReason {
	switch s.finish {
	case "tool_calls", "function_call":
		return llm.StopToolUse
	case "length":
		return llm.StopMaxTokens
	case "content_filter":
		return llm.StopRefusal
	}
	// Some servers (older Ollama and vLLM) say "stop" after tool calls.
	if len(s.calls) > 0 {
		return llm.StopToolUse
	}
	if s.finish == "stop" {
		if s.refusal {
			return llm.StopRefusal
		}
		return llm.StopEndTurn
	}
	return llm.StopOther
}

// reasoningDelta reads reasoning text from a delta's unknown fields:
// reasoning_content (DeepSeek, GLM, Kimi, vLLM, llama.cpp) or reasoning
// (OpenRouter, Ollama, newer vLLM). Servers that send both send the same
// text, so the first non-empty one wins.
func reasoningDelta(extra map[string]respjson.Field) string {
	for _, k := range []string{"reasoning_content", "reasoning"} {
		f, ok := extra[k]
		if !ok {
			continue
		}
		raw := f.Raw()
		if raw == "" || raw == "null" {
			continue
		}
		var s string
		if json.Unmarshal([]byte(raw), &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// chatUsage maps usage. prompt_tokens already includes cached tokens on
// every server we know, matching llm.Usage.InputTokens.
func chatUsage(u *openai.CompletionUsage) llm.Usage {
	out := llm.Usage{
		InputTokens:      u.PromptTokens,
		OutputTokens:     u.CompletionTokens,
		ReasoningTokens:  u.CompletionTokensDetails.ReasoningTokens,
		CacheReadTokens:  u.PromptTokensDetails.CachedTokens,
		CacheWriteTokens: u.PromptTokensDetails.CacheWriteTokens,
	}
	if out.CacheReadTokens == 0 { // DeepSeek
		if f, ok := u.JSON.ExtraFields["prompt_cache_hit_tokens"]; ok {
			out.CacheReadTokens, _ = strconv.ParseInt(f.Raw(), 10, 64)
		}
	}
	return out
}
