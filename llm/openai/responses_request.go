package openai

import (
	"fmt"
	"strings"

	"github.com/godwit/godwit/llm"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
)

// params builds the request body. Nothing is stored on the server
// (store:false), so the whole history goes in every request, reasoning
// items included as encrypted content; the items keep the caller's order
// so the prompt cache sees an append-only prefix.
func (p *responsesProvider) params(req llm.Request) (responses.ResponseNewParams, error) {
	var out responses.ResponseNewParams
	if req.Model == "" {
		return out, fmt.Errorf("openai: request has no model: set the model name in the provider config")
	}
	out.Model = shared.ResponsesModel(req.Model)
	out.Store = param.NewOpt(false)
	var items responses.ResponseInputParam
	if req.System != "" {
		items = append(items, responses.ResponseInputItemParamOfMessage(req.System, responses.EasyInputMessageRoleSystem))
	}
	dropped := 0
	for i, m := range req.Messages {
		its, d, err := responsesItems(m)
		if err != nil {
			return out, fmt.Errorf("openai: message %d: %w", i, err)
		}
		dropped += d
		items = append(items, its...)
	}
	if dropped > 0 {
		p.log.Debug("openai: dropped thinking blocks that cannot be sent back", "provider", p.name, "count", dropped)
	}
	out.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: items}
	for _, t := range req.Tools {
		schema, err := toolSchema(t)
		if err != nil {
			return out, err
		}
		fn := &responses.FunctionToolParam{Name: t.Name, Strict: param.NewOpt(false)}
		if t.Description != "" {
			fn.Description = param.NewOpt(t.Description)
		}
		fn.SetExtraFields(map[string]any{"parameters": schema})
		out.Tools = append(out.Tools, responses.ToolUnionParam{OfFunction: fn})
	}
	if req.Reasoning != "" || reasoningModel(req.Model) {
		// Non-reasoning models refuse these; reasoning models need the
		// encrypted content to carry their reasoning across the tool
		// calls of a turn, and say what they reason only when asked for
		// summaries (as Codex asks, model_reasoning_summary = "auto").
		out.Include = []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent}
		out.Reasoning = shared.ReasoningParam{Summary: shared.ReasoningSummaryAuto}
		if req.Reasoning != "" {
			out.Reasoning.Effort = shared.ReasoningEffort(req.Reasoning)
		}
	}
	if req.MaxOutputTokens > 0 {
		out.MaxOutputTokens = param.NewOpt(int64(req.MaxOutputTokens))
	}
	if req.Temperature != nil {
		out.Temperature = param.NewOpt(*req.Temperature)
	}
	if req.CacheKey != "" {
		out.PromptCacheKey = param.NewOpt(req.CacheKey)
	}
	return out, nil
}

// responsesItems maps one message to input items in part order, so a
// reasoning item stays right before the function calls it led to.
// dropped counts thinking parts that cannot be sent: another wire
// format's, or ours without encrypted content (with store:false the
// server cannot look an id up).
func responsesItems(m llm.Message) (items []responses.ResponseInputItemUnionParam, dropped int, err error) {
	var texts []string
	flush := func() {
		if len(texts) == 0 {
			return
		}
		if m.Role == llm.RoleUser {
			items = append(items, userItem(texts))
		} else {
			items = append(items, responses.ResponseInputItemParamOfMessage(strings.Join(texts, ""), responses.EasyInputMessageRoleAssistant))
		}
		texts = nil
	}
	switch m.Role {
	case llm.RoleUser, llm.RoleAssistant, llm.RoleTool:
	default:
		return nil, 0, fmt.Errorf("unknown role %q", m.Role)
	}
	for _, part := range m.Parts {
		if part.Kind != llm.PartText {
			flush()
		}
		switch part.Kind {
		case llm.PartText:
			if m.Role == llm.RoleTool {
				return nil, 0, fmt.Errorf("a tool message may hold only tool results")
			}
			texts = append(texts, part.Text)
		case llm.PartThinking:
			t := part.Thinking
			if t == nil || t.Provider != ProviderResponses || t.Signature == "" || t.ID == "" {
				dropped++
				continue
			}
			summary := make([]responses.ResponseReasoningItemSummaryParam, len(t.Summary))
			for i, s := range t.Summary {
				summary[i] = responses.ResponseReasoningItemSummaryParam{Text: s}
			}
			r := responses.ResponseReasoningItemParam{ID: t.ID, Summary: summary, EncryptedContent: param.NewOpt(t.Signature)}
			items = append(items, responses.ResponseInputItemUnionParam{OfReasoning: &r})
		case llm.PartToolCall:
			if c := part.ToolCall; c != nil {
				items = append(items, responses.ResponseInputItemParamOfFunctionCall(string(llm.ArgsOrEmpty(c.Args)), c.ID, c.Name))
			}
		case llm.PartToolResult:
			r := part.ToolResult
			if r == nil {
				continue
			}
			if r.CallID == "" {
				return nil, 0, fmt.Errorf("tool result for %q has no call id", r.Name)
			}
			it := responses.ResponseInputItemParamOfFunctionCallOutput(r.Content)
			it.OfFunctionCallOutput.CallID = param.NewOpt(r.CallID)
			items = append(items, it)
		default:
			return nil, 0, fmt.Errorf("unknown part kind %q", part.Kind)
		}
	}
	flush()
	return items, dropped, nil
}

func userItem(texts []string) responses.ResponseInputItemUnionParam {
	if len(texts) == 1 {
		return responses.ResponseInputItemParamOfMessage(texts[0], responses.EasyInputMessageRoleUser)
	}
	parts := make(responses.ResponseInputMessageContentListParam, len(texts))
	for i, t := range texts {
		parts[i] = responses.ResponseInputContentParamOfInputText(t)
	}
	return responses.ResponseInputItemParamOfMessage(parts, responses.EasyInputMessageRoleUser)
}
