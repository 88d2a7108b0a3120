package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/godwit/godwit/llm"
)

// The request types declare their fields in the order the openai-go SDK
// wrote them (testdata/wire pins the bytes), so recorded sessions send
// the same bytes and the provider's prompt cache still hits.

type chatRequest struct {
	Messages            []chatMessage `json:"messages,omitempty"`
	Model               string        `json:"model"`
	MaxCompletionTokens int           `json:"max_completion_tokens,omitempty"`
	MaxTokens           int           `json:"max_tokens,omitempty"`
	PromptCacheKey      string        `json:"prompt_cache_key,omitempty"`
	Temperature         *float64      `json:"temperature,omitempty"`
	ReasoningEffort     string        `json:"reasoning_effort,omitempty"`
	StreamOptions       struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Tools     []chatTool `json:"tools,omitempty"`
	Reasoning *effort    `json:"reasoning,omitempty"`
	Stream    bool       `json:"stream"`
}

type effort struct {
	Effort string `json:"effort,omitempty"`
	// Summary is set on Responses only.
	Summary string `json:"summary,omitempty"`
}

type chatTool struct {
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
	Type string `json:"type"`
}

// chatMessage is any role's message; Content is a string or a list of
// chatParts, and absent (nil) on an assistant message without text.
type chatMessage struct {
	Content          any             `json:"content,omitempty"`
	ToolCalls        []chatToolCall  `json:"tool_calls,omitempty"`
	ToolCallID       string          `json:"tool_call_id,omitempty"`
	Role             string          `json:"role"`
	ReasoningContent *extraString    `json:"reasoning_content,omitempty"`
	ReasoningDetails json.RawMessage `json:"reasoning_details,omitempty"`
}

type chatPart struct {
	ImageURL *imageURL `json:"image_url,omitempty"`
	Text     *string   `json:"text,omitempty"`
	Type     string    `json:"type"`
}

type imageURL struct {
	URL string `json:"url"`
}

type chatToolCall struct {
	ID       string `json:"id"`
	Function struct {
		Arguments string `json:"arguments"`
		Name      string `json:"name"`
	} `json:"function"`
	Type string `json:"type"`
}

// body encodes req as the Chat Completions request. The same llm.Request
// always gives the same bytes, in the caller's order.
func (p *provider) chatBody(req llm.Request) ([]byte, error) {
	if req.Model == "" {
		return nil, fmt.Errorf("openai: request has no model: set the model name in the provider config")
	}
	r := chatRequest{Model: req.Model, Temperature: temperature(req.Temperature), Stream: true}
	r.StreamOptions.IncludeUsage = true
	for _, t := range req.Tools {
		schema, err := toolSchema(t)
		if err != nil {
			return nil, err
		}
		var ct chatTool
		ct.Function.Name, ct.Function.Description, ct.Function.Parameters = t.Name, t.Description, schema
		ct.Type = "function"
		r.Tools = append(r.Tools, ct)
	}
	if req.System != "" {
		r.Messages = append(r.Messages, chatMessage{Content: req.System, Role: "system"})
	}
	dropped := 0
	for i, m := range req.Messages {
		msgs, d, err := chatMessages(m)
		if err != nil {
			return nil, fmt.Errorf("openai: message %d: %w", i, err)
		}
		r.Messages = append(r.Messages, msgs...)
		dropped += d
	}
	if dropped > 0 {
		p.log.Debug("openai: dropped thinking blocks from another wire format", "provider", p.name, "count", dropped)
	}
	if req.MaxOutputTokens > 0 {
		// OpenAI's reasoning models refuse max_tokens; everything else,
		// compatible servers included, knows max_tokens best.
		if p.isOpenAI || reasoningModel(req.Model) {
			r.MaxCompletionTokens = req.MaxOutputTokens
		} else {
			r.MaxTokens = req.MaxOutputTokens
		}
	}
	if p.sendCacheKey {
		r.PromptCacheKey = req.CacheKey
	}
	if req.Reasoning != "" && p.openRouter {
		// OpenRouter's unified parameter, which it maps to each
		// upstream's own (Anthropic's thinking budget, Gemini's
		// thinking level, OpenAI's effort).
		r.Reasoning = &effort{Effort: req.Reasoning}
	} else {
		r.ReasoningEffort = req.Reasoning
	}
	return encode(r)
}

// chatMessages maps m to Chat Completions messages: a user message, an
// assistant message with its tool calls, and then each tool result as a
// message of its own. dropped counts thinking parts that came from
// another wire format and cannot be sent here.
func chatMessages(m llm.Message) (_ []chatMessage, dropped int, err error) {
	var texts, images []llm.Part
	var calls []chatToolCall
	var results []chatMessage
	var thinking, details []string
	for _, part := range m.Parts {
		switch part.Kind {
		case llm.PartText:
			texts = append(texts, part)
		case llm.PartImage:
			if m.Role != llm.RoleUser || part.Image == nil {
				return nil, 0, fmt.Errorf("an image may go only in a user message")
			}
			images = append(images, part)
		case llm.PartThinking:
			switch {
			case part.Thinking == nil || part.Thinking.Provider != ProviderChat:
				dropped++
			case part.Thinking.Details != "":
				details = append(details, part.Thinking.Details)
			default:
				thinking = append(thinking, part.Thinking.Text)
			}
		case llm.PartToolCall:
			if c := part.ToolCall; c != nil {
				tc := chatToolCall{ID: c.ID, Type: "function"}
				tc.Function.Arguments, tc.Function.Name = string(llm.ArgsOrEmpty(c.Args)), c.Name
				calls = append(calls, tc)
			}
		case llm.PartToolResult:
			r := part.ToolResult
			if r == nil {
				continue
			}
			if r.CallID == "" {
				return nil, 0, fmt.Errorf("tool result for %q has no call id", r.Name)
			}
			results = append(results, chatMessage{Content: r.Content, ToolCallID: r.CallID, Role: "tool"})
		default:
			return nil, 0, fmt.Errorf("unknown part kind %q", part.Kind)
		}
	}
	var out []chatMessage
	switch m.Role {
	case llm.RoleUser:
		switch {
		case len(texts) == 1 && len(images) == 0:
			out = append(out, chatMessage{Content: texts[0].Text, Role: "user"})
		case len(texts) > 1 || len(images) > 0:
			var parts []chatPart
			for _, part := range m.Parts {
				switch part.Kind {
				case llm.PartImage:
					parts = append(parts, chatPart{ImageURL: &imageURL{part.Image.DataURL()}, Type: "image_url"})
				case llm.PartText:
					parts = append(parts, chatPart{Text: &part.Text, Type: "text"})
				}
			}
			out = append(out, chatMessage{Content: parts, Role: "user"})
		}
	case llm.RoleAssistant:
		if len(texts) == 0 && len(calls) == 0 {
			break // thinking alone (a cut answer) has nothing to send
		}
		msg := chatMessage{ToolCalls: calls, Role: "assistant"}
		if len(texts) > 0 {
			msg.Content = llm.Message{Parts: texts}.Text()
		}
		if len(calls) > 0 && len(thinking) > 0 {
			// DeepSeek answers 400 when a tool-calling turn loses its
			// reasoning; GLM and Kimi use it too.
			rc := extraString(strings.Join(thinking, ""))
			msg.ReasoningContent = &rc
		}
		if len(details) > 0 {
			// OpenRouter: the blocks go back as received, so Anthropic's
			// signatures and Gemini's thought signatures survive the
			// turn (it refuses a Gemini tool call without them).
			d, err := joinDetails(details)
			if err != nil {
				return nil, 0, err
			}
			msg.ReasoningDetails = d
		}
		out = append(out, msg)
	case llm.RoleTool:
		if len(texts) > 0 || len(calls) > 0 {
			return nil, 0, fmt.Errorf("a tool message may hold only tool results")
		}
	default:
		return nil, 0, fmt.Errorf("unknown role %q", m.Role)
	}
	return append(out, results...), dropped, nil
}

// toolSchema checks a tool's schema and returns it compact, as it is
// sent (encoding/json's form of a raw value: HTML characters escaped);
// its keys keep the caller's order.
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
	return json.Marshal(json.RawMessage(t.Schema))
}

// emptySchema is sent for a tool without parameters.
const emptySchema = `{"type":"object","properties":{}}`

// extraString is written as the SDK wrote the fields it had no name for
// (reasoning_content): as is when every byte is printable ASCII other
// than quote and backslash, else as json.Marshal writes it, HTML escapes
// included.
type extraString string

func (s extraString) MarshalJSON() ([]byte, error) {
	if strings.IndexFunc(string(s), func(r rune) bool { return r < 0x20 || r > 0x7f || r == '"' || r == '\\' }) >= 0 {
		return json.Marshal(string(s))
	}
	return []byte(`"` + s + `"`), nil
}

// temperature is t as sent: NaN and the infinities have no JSON, and go
// as 0.
func temperature(t *float64) *float64 {
	if t != nil && (math.IsNaN(*t) || math.IsInf(*t, 0)) {
		return new(float64)
	}
	return t
}

// encode writes v as the SDK's encoder did: encoding/json without HTML
// escaping, without the trailing newline.
func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
