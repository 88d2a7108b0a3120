package openai

import (
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"

	"github.com/godwit/godwit/llm"
)

// ProviderChat is Thinking.Provider for reasoning read from Chat
// Completions (reasoning_content / reasoning).
const ProviderChat = "openai-chat"

// chatChunk is a chat.completion.chunk, the fields of it that are read.
type chatChunk struct {
	Choices []struct {
		Index        num       `json:"index"`
		Delta        chatDelta `json:"delta"`
		FinishReason string    `json:"finish_reason"`
	} `json:"choices"`
	Usage *chatUsage `json:"usage"`
}

type chatDelta struct {
	Content string `json:"content"`
	Refusal string `json:"refusal"`
	// Reasoning comes as reasoning_content (DeepSeek, GLM, Kimi, vLLM,
	// llama.cpp) or reasoning (OpenRouter, Ollama, newer vLLM).
	ReasoningContent json.RawMessage `json:"reasoning_content"`
	Reasoning        json.RawMessage `json:"reasoning"`
	ReasoningDetails json.RawMessage `json:"reasoning_details"`
	ToolCalls        []chatToolDelta `json:"tool_calls"`
}

// chatToolDelta is a piece of a tool call, named by its index.
type chatToolDelta struct {
	Index    num    `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// chatUsage is the usage object; prompt_tokens already includes cached
// tokens on every server we know, matching llm.Usage.InputTokens.
type chatUsage struct {
	PromptTokens        num `json:"prompt_tokens"`
	CompletionTokens    num `json:"completion_tokens"`
	PromptTokensDetails struct {
		CachedTokens     num `json:"cached_tokens"`
		CacheWriteTokens num `json:"cache_write_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails struct {
		ReasoningTokens num `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
	PromptCacheHitTokens num `json:"prompt_cache_hit_tokens"` // DeepSeek
}

func (u *chatUsage) llm() *llm.Usage {
	out := &llm.Usage{
		InputTokens:      int64(u.PromptTokens),
		OutputTokens:     int64(u.CompletionTokens),
		ReasoningTokens:  int64(u.CompletionTokensDetails.ReasoningTokens),
		CacheReadTokens:  int64(u.PromptTokensDetails.CachedTokens),
		CacheWriteTokens: int64(u.PromptTokensDetails.CacheWriteTokens),
	}
	if out.CacheReadTokens == 0 {
		out.CacheReadTokens = int64(u.PromptCacheHitTokens)
	}
	return out
}

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
	calls        calls // keyed by the wire index
	finish       string
	refusal      bool
	usage        *llm.Usage
}

// failure implements decoder: Chat Completions reports errors out of
// band only.
func (*chatStream) failure() error { return nil }

// done implements decoder.
func (s *chatStream) done(log *slog.Logger, provider, model string) {
	if s.detailsError != nil {
		log.Warn("openai: reasoning_details not understood; the next request may lose the model's reasoning", "provider", provider, "err", s.detailsError)
	}
	log.Debug("openai: chat stream done", "provider", provider, "model", model, "finish", s.finish, "tool_calls", len(s.calls.order))
}

// add implements decoder.
func (s *chatStream) add(data []byte, out emit) (bool, error) {
	var c chatChunk
	if err := unmarshal(data, &c); err != nil {
		return false, err
	}
	if c.Usage != nil {
		s.usage = c.Usage.llm()
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 || s.finish != "" { // one choice; nothing counts after its finish
			continue
		}
		if !s.delta(&ch.Delta, out) {
			return false, nil
		}
		if ch.FinishReason != "" && s.finish == "" {
			s.finish = ch.FinishReason
			if !s.endThinking(out, true) || !s.calls.end(out) {
				return false, nil
			}
		}
	}
	return true, nil
}

func (s *chatStream) delta(d *chatDelta, out emit) bool {
	if raw := string(d.ReasoningDetails); raw != "" && raw != "null" && raw != "[]" {
		if err := s.details.add(raw); err != nil && s.detailsError == nil {
			s.detailsError = err
		}
		s.sawDetails = true
	}
	if r := reasoningDelta(d.ReasoningContent, d.Reasoning); r != "" {
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
		if !s.endThinking(out, false) || !s.toolCall(&d.ToolCalls[i], out) {
			return false
		}
	}
	return true
}

func (s *chatStream) text(t string, out emit) bool {
	return s.endThinking(out, false) && out(llm.Event{Type: llm.EventTextDelta, Text: t})
}

// toolCall assembles calls by index. The id and name come with the first
// delta of an index; some servers send a whole call in one delta, some
// repeat the id on every delta. A different id on a known index is a new
// call (servers that number every call 0).
func (s *chatStream) toolCall(tc *chatToolDelta, out emit) bool {
	key := strconv.FormatInt(int64(tc.Index), 10)
	c := s.calls.byKey[key]
	if c == nil || (tc.ID != "" && c.id != tc.ID) {
		var ok bool
		if c, ok = s.calls.add(key, tc.ID, tc.Function.Name, out); !ok {
			return false
		}
	} else if c.name == "" {
		c.name = tc.Function.Name
	}
	return c.delta(tc.Function.Arguments, out)
}

// endThinking ends the open thinking block. A stream that carried
// reasoning_details ends it only at the finish (final): its text and the
// merged details, once.
func (s *chatStream) endThinking(out emit, final bool) bool {
	if s.sawDetails {
		if !final || s.detailsDone {
			return true
		}
		s.detailsDone = true
	} else if !s.thinkingOpen {
		return true
	}
	s.thinkingOpen = false
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
	if s.endThinking(out, true) {
		finish(out, &s.calls, s.usage, s.stopReason())
	}
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
	if len(s.calls.order) > 0 {
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

// reasoningDelta is the delta's reasoning text. Servers that send both
// fields send the same text, so the first non-empty one wins.
func reasoningDelta(fields ...json.RawMessage) string {
	for _, raw := range fields {
		var s string
		if len(raw) > 0 && json.Unmarshal(raw, &s) == nil && s != "" {
			return s
		}
	}
	return ""
}
