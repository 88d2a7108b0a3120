package openai

import (
	"encoding/json"
	"fmt"

	"github.com/godwit/godwit/llm"
)

// The Responses request, its fields in the SDK's order, like the chat
// request's.
type respRequest struct {
	MaxOutputTokens int        `json:"max_output_tokens,omitempty"`
	PromptCacheKey  string     `json:"prompt_cache_key,omitempty"`
	Store           bool       `json:"store"`
	Temperature     *float64   `json:"temperature,omitempty"`
	Include         []string   `json:"include,omitempty"`
	Input           []any      `json:"input,omitempty"`
	Model           string     `json:"model"`
	Reasoning       *effort    `json:"reasoning,omitempty"`
	Tools           []respTool `json:"tools,omitempty"`
	Stream          bool       `json:"stream"`
}

type respTool struct {
	Strict      bool            `json:"strict"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Type        string          `json:"type"`
	Parameters  json.RawMessage `json:"parameters"`
}

// inputMessage's Content is a string or a list of inputParts.
type inputMessage struct {
	Content any    `json:"content"`
	Role    string `json:"role"`
}

type inputPart struct {
	Detail   string  `json:"detail,omitempty"`
	ImageURL string  `json:"image_url,omitempty"`
	Text     *string `json:"text,omitempty"`
	Type     string  `json:"type"`
}

type inputReasoning struct {
	ID               string         `json:"id"`
	Summary          []inputSummary `json:"summary"`
	EncryptedContent string         `json:"encrypted_content"`
	Type             string         `json:"type"`
}

type inputSummary struct {
	Text string `json:"text"`
	Type string `json:"type"`
}

type inputCall struct {
	Arguments string `json:"arguments"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Type      string `json:"type"`
}

type inputOutput struct {
	Output string `json:"output"`
	CallID string `json:"call_id"`
	Type   string `json:"type"`
}

// body encodes req as the Responses request. Nothing is stored on the
// server (store:false), so the whole history goes in every request,
// reasoning items included as encrypted content; the items keep the
// caller's order so the prompt cache sees an append-only prefix.
func (p *provider) responsesBody(req llm.Request) ([]byte, error) {
	if req.Model == "" {
		return nil, fmt.Errorf("openai: request has no model: set the model name in the provider config")
	}
	r := respRequest{Model: req.Model, PromptCacheKey: req.CacheKey, Temperature: temperature(req.Temperature), Stream: true}
	if req.System != "" {
		r.Input = append(r.Input, inputMessage{Content: req.System, Role: "system"})
	}
	dropped := 0
	for i, m := range req.Messages {
		items, d, err := inputItems(m)
		if err != nil {
			return nil, fmt.Errorf("openai: message %d: %w", i, err)
		}
		r.Input = append(r.Input, items...)
		dropped += d
	}
	if dropped > 0 {
		p.log.Debug("openai: dropped thinking blocks that cannot be sent back", "provider", p.name, "count", dropped)
	}
	for _, t := range req.Tools {
		schema, err := toolSchema(t)
		if err != nil {
			return nil, err
		}
		r.Tools = append(r.Tools, respTool{Name: t.Name, Description: t.Description, Type: "function", Parameters: schema})
	}
	if req.MaxOutputTokens > 0 {
		r.MaxOutputTokens = req.MaxOutputTokens
	}
	// Non-reasoning models refuse include and reasoning; reasoning models
	// need the encrypted content to carry their reasoning across the tool
	// calls of a turn, and say what they reason only when asked for
	// summaries (as Codex asks, model_reasoning_summary = "auto").
	if req.Reasoning != "" || reasoningModel(req.Model) {
		r.Include = []string{"reasoning.encrypted_content"}
		r.Reasoning = &effort{Effort: req.Reasoning, Summary: "auto"}
	}
	return encode(r)
}

// inputItems maps m to input items in part order, so a reasoning item
// stays right before the function calls it led to; consecutive texts make
// one message. dropped counts thinking parts that cannot be sent: another
// wire format's, or ours without encrypted content (with store:false the
// server cannot look an id up).
func inputItems(m llm.Message) (items []any, dropped int, err error) {
	switch m.Role {
	case llm.RoleUser, llm.RoleAssistant, llm.RoleTool:
	default:
		return nil, 0, fmt.Errorf("unknown role %q", m.Role)
	}
	// A user message's texts and images go together, as one message;
	// the assistant's texts as one message of their own.
	var texts []llm.Part
	images := false
	flush := func() {
		switch {
		case len(texts) == 0:
			return
		case m.Role == llm.RoleUser && (len(texts) > 1 || images):
			var parts []inputPart
			for _, t := range texts {
				if t.Kind == llm.PartImage {
					parts = append(parts, inputPart{Detail: "auto", ImageURL: t.Image.DataURL(), Type: "input_image"})
				} else {
					parts = append(parts, inputPart{Text: &t.Text, Type: "input_text"})
				}
			}
			items = append(items, inputMessage{Content: parts, Role: "user"})
		default:
			items = append(items, inputMessage{Content: llm.Message{Parts: texts}.Text(), Role: string(m.Role)})
		}
		texts, images = nil, false
	}
	for _, part := range m.Parts {
		if part.Kind != llm.PartText && part.Kind != llm.PartImage {
			flush()
		}
		switch part.Kind {
		case llm.PartText:
			if m.Role == llm.RoleTool {
				return nil, 0, fmt.Errorf("a tool message may hold only tool results")
			}
			texts = append(texts, part)
		case llm.PartImage:
			if m.Role != llm.RoleUser || part.Image == nil {
				return nil, 0, fmt.Errorf("an image may go only in a user message")
			}
			texts, images = append(texts, part), true
		case llm.PartThinking:
			t := part.Thinking
			if t == nil || t.Provider != ProviderResponses || t.Signature == "" || t.ID == "" {
				dropped++
				continue
			}
			summary := []inputSummary{}
			for _, s := range t.Summary {
				summary = append(summary, inputSummary{Text: s, Type: "summary_text"})
			}
			items = append(items, inputReasoning{ID: t.ID, Summary: summary, EncryptedContent: t.Signature, Type: "reasoning"})
		case llm.PartToolCall:
			if c := part.ToolCall; c != nil {
				items = append(items, inputCall{Arguments: string(llm.ArgsOrEmpty(c.Args)), CallID: c.ID, Name: c.Name, Type: "function_call"})
			}
		case llm.PartToolResult:
			r := part.ToolResult
			if r == nil {
				continue
			}
			if r.CallID == "" {
				return nil, 0, fmt.Errorf("tool result for %q has no call id", r.Name)
			}
			items = append(items, inputOutput{Output: r.Content, CallID: r.CallID, Type: "function_call_output"})
		default:
			return nil, 0, fmt.Errorf("unknown part kind %q", part.Kind)
		}
	}
	flush()
	return items, dropped, nil
}
