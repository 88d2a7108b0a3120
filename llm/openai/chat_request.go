package openai

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/godwit/godwit/llm"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"
)

// params builds the request body. System, tools and messages keep the
// caller's order, and the same llm.Request always gives the same bytes, so
// the provider's prompt cache sees an append-only prefix.
func (p *chatProvider) params(req llm.Request) (openai.ChatCompletionNewParams, error) {
	var out openai.ChatCompletionNewParams
	if req.Model == "" {
		return out, fmt.Errorf("openai: request has no model: set the model name in the provider config")
	}
	out.Model = shared.ChatModel(req.Model)
	out.StreamOptions.IncludeUsage = param.NewOpt(true)
	if req.System != "" {
		out.Messages = append(out.Messages, openai.SystemMessage(req.System))
	}
	dropped := 0
	for i, m := range req.Messages {
		msgs, d, err := chatMessages(m)
		if err != nil {
			return out, fmt.Errorf("openai: message %d: %w", i, err)
		}
		dropped += d
		out.Messages = append(out.Messages, msgs...)
	}
	if dropped > 0 {
		p.log.Debug("openai: dropped thinking blocks from another wire format", "provider", p.name, "count", dropped)
	}
	for _, t := range req.Tools {
		tool, err := chatTool(t)
		if err != nil {
			return out, err
		}
		out.Tools = append(out.Tools, tool)
	}
	if req.MaxOutputTokens > 0 {
		// OpenAI's reasoning models refuse max_tokens; everything else,
		// compatible servers included, knows max_tokens best.
		if p.isOpenAI || reasoningModel(req.Model) {
			out.MaxCompletionTokens = param.NewOpt(int64(req.MaxOutputTokens))
		} else {
			out.MaxTokens = param.NewOpt(int64(req.MaxOutputTokens))
		}
	}
	if req.Temperature != nil {
		out.Temperature = param.NewOpt(*req.Temperature)
	}
	if req.Reasoning != "" {
		if p.openRouter {
			// OpenRouter's unified parameter, which it maps to each
			// upstream's own (Anthropic's thinking budget, Gemini's
			// thinking level, OpenAI's effort).
			out.SetExtraFields(map[string]any{"reasoning": json.RawMessage(`{"effort":` + strconv.Quote(req.Reasoning) + `}`)})
		} else {
			out.ReasoningEffort = shared.ReasoningEffort(req.Reasoning)
		}
	}
	if req.CacheKey != "" && p.sendCacheKey {
		out.PromptCacheKey = param.NewOpt(req.CacheKey)
	}
	return out, nil
}

// chatMessages maps one message; dropped counts thinking parts that came
// from another wire format and cannot be sent here.
func chatMessages(m llm.Message) (msgs []openai.ChatCompletionMessageParamUnion, dropped int, err error) {
	var texts, thinking, details []string
	var calls []openai.ChatCompletionMessageToolCallUnionParam
	var results []openai.ChatCompletionMessageParamUnion
	for _, part := range m.Parts {
		switch part.Kind {
		case llm.PartText:
			texts = append(texts, part.Text)
		case llm.PartThinking:
			if part.Thinking == nil || part.Thinking.Provider != ProviderChat {
				dropped++
				continue
			}
			if d := part.Thinking.Details; d != "" {
				details = append(details, d)
				continue
			}
			thinking = append(thinking, part.Thinking.Text)
		case llm.PartToolCall:
			if part.ToolCall == nil {
				continue
			}
			c := part.ToolCall
			calls = append(calls, openai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
					ID: c.ID,
					Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{
						Name:      c.Name,
						Arguments: string(llm.ArgsOrEmpty(c.Args)),
					},
				},
			})
		case llm.PartToolResult:
			if part.ToolResult == nil {
				continue
			}
			if part.ToolResult.CallID == "" {
				return nil, 0, fmt.Errorf("tool result for %q has no call id", part.ToolResult.Name)
			}
			results = append(results, openai.ToolMessage(part.ToolResult.Content, part.ToolResult.CallID))
		default:
			return nil, 0, fmt.Errorf("unknown part kind %q", part.Kind)
		}
	}
	switch m.Role {
	case llm.RoleUser:
		if len(texts) > 0 {
			msgs = append(msgs, userMessage(texts))
		}
	case llm.RoleAssistant:
		if len(texts) == 0 && len(calls) == 0 {
			break // thinking alone (a cut answer) has nothing to send
		}
		var a openai.ChatCompletionAssistantMessageParam
		if len(texts) > 0 {
			a.Content.OfString = param.NewOpt(strings.Join(texts, ""))
		}
		a.ToolCalls = calls
		extra := map[string]any{}
		if len(details) > 0 {
			// OpenRouter: the blocks go back as received, so Anthropic's
			// signatures and Gemini's thought signatures survive the
			// turn (it refuses a Gemini tool call without them).
			d, err := joinDetails(details)
			if err != nil {
				return nil, 0, err
			}
			extra["reasoning_details"] = d
		}
		if len(calls) > 0 && len(thinking) > 0 {
			// DeepSeek answers 400 when a tool-calling turn loses its
			// reasoning; GLM and Kimi use it too. The SDK has no field
			// for it, so it goes in as an extra field.
			extra["reasoning_content"] = strings.Join(thinking, "")
		}
		if len(extra) > 0 {
			a.SetExtraFields(extra)
		}
		msgs = append(msgs, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
	case llm.RoleTool:
		if len(texts) > 0 || len(calls) > 0 {
			return nil, 0, fmt.Errorf("a tool message may hold only tool results")
		}
	default:
		return nil, 0, fmt.Errorf("unknown role %q", m.Role)
	}
	return append(msgs, results...), dropped, nil
}

func userMessage(texts []string) openai.ChatCompletionMessageParamUnion {
	if len(texts) == 1 {
		return openai.UserMessage(texts[0])
	}
	parts := make([]openai.ChatCompletionContentPartUnionParam, len(texts))
	for i, t := range texts {
		parts[i] = openai.TextContentPart(t)
	}
	return openai.UserMessage(parts)
}

// emptySchema is sent for a tool without parameters.
const emptySchema = `{"type":"object","properties":{}}`

// toolSchema checks a tool's schema; the raw bytes are sent as given (the
// SDK's map type would reorder keys).
func toolSchema(t llm.ToolSpec) (json.RawMessage, error) {
	if t.Name == "" {
		return nil, fmt.Errorf("openai: a tool has no name")
	}
	s := strings.TrimSpace(string(t.Schema))
	if s == "" || s == "null" {
		return json.RawMessage(emptySchema), nil
	}
	if !json.Valid(t.Schema) || s[0] != '{' {
		return nil, fmt.Errorf("openai: tool %q: schema is not a JSON object", t.Name)
	}
	return t.Schema, nil
}

func chatTool(t llm.ToolSpec) (openai.ChatCompletionToolUnionParam, error) {
	schema, err := toolSchema(t)
	if err != nil {
		return openai.ChatCompletionToolUnionParam{}, err
	}
	fn := shared.FunctionDefinitionParam{Name: t.Name}
	if t.Description != "" {
		fn.Description = param.NewOpt(t.Description)
	}
	fn.SetExtraFields(map[string]any{"parameters": schema})
	return openai.ChatCompletionFunctionTool(fn), nil
}
