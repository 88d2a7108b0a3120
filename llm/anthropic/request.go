package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/godwit/godwit/llm"
)

// thinkingProvider is the Thinking.Provider of blocks this adapter produces
// and the only one it sends back.
const thinkingProvider = "anthropic"

// thinkingBudget maps Request.Reasoning to an extended-thinking budget in
// tokens: "minimal" 1024 (the API's minimum), "low" 2048, "medium" 8192,
// "high" 24576. Empty means thinking off.
func thinkingBudget(effort string) (int64, error) {
	budget, ok := map[string]int64{"": 0, "minimal": 1024, "low": 2048, "medium": 8192, "high": 24576}[effort]
	if !ok {
		return 0, fmt.Errorf("unknown reasoning effort %q; use low, medium or high (or leave it empty for no thinking)", effort)
	}
	return budget, nil
}

// buildParams translates req into a Messages request and returns the
// thinking budget it chose (0 for none). max_tokens is req.MaxOutputTokens,
// else defaultMax; the API wants budget < max_tokens, so a cap not above
// the budget gets the budget added on top.
func buildParams(req llm.Request, defaultMax int64) (request, int64, error) {
	var params request
	if req.Model == "" {
		return params, 0, errors.New("request has no model; set Request.Model (e.g. \"claude-sonnet-4-5\")")
	}
	if req.MaxOutputTokens < 0 {
		return params, 0, fmt.Errorf("MaxOutputTokens is %d; use 0 for the default or a positive count", req.MaxOutputTokens)
	}
	budget, err := thinkingBudget(req.Reasoning)
	if err != nil {
		return params, 0, err
	}
	maxTokens := int64(req.MaxOutputTokens)
	if maxTokens == 0 {
		maxTokens = defaultMax
	}
	if budget > 0 && maxTokens <= budget {
		maxTokens += budget
	}
	msgs, err := buildMessages(req.Messages)
	if err != nil {
		return params, 0, err
	}
	tools, err := buildTools(req.Tools)
	if err != nil {
		return params, 0, err
	}
	params = request{Model: req.Model, MaxTokens: maxTokens, Messages: msgs, Tools: tools, Stream: true}
	if req.System != "" {
		params.System = []block{{Type: "text", Text: req.System}}
	}
	switch {
	case budget > 0:
		params.Thinking = &thinkingConfig{Type: "enabled", BudgetTokens: budget}
		// Thinking requires the default temperature: Temperature is dropped.
	case req.Temperature != nil:
		// API version 2026-10-21 no longer lists temperature; sent because
		// the caller asked for it explicitly.
		params.Temperature = req.Temperature
	}
	placeCacheBreakpoints(&params)
	return params, budget, nil
}

func buildTools(specs []llm.ToolSpec) ([]tool, error) {
	tools := make([]tool, 0, len(specs))
	for i, s := range specs {
		if s.Name == "" {
			return nil, fmt.Errorf("tool %d has no name; every ToolSpec needs one", i)
		}
		schema := bytes.TrimSpace(s.Schema)
		if len(schema) == 0 || string(schema) == "null" {
			schema = []byte(`{"type":"object","properties":{}}`)
		} else if !isJSONObject(schema) {
			return nil, fmt.Errorf("tool %q: schema is not a JSON object; give a JSON Schema such as {\"type\":\"object\",\"properties\":{...}}", s.Name)
		}
		// The schema goes out as the caller wrote it, so its bytes stay
		// stable.
		tools = append(tools, tool{Name: s.Name, Description: s.Description, InputSchema: json.RawMessage(schema)})
	}
	return tools, nil
}

// turn is one Messages API message being assembled.
type turn struct {
	user   bool
	blocks []block
}

// buildMessages maps the history to Messages API turns. Tool messages
// become user turns of tool_result blocks; consecutive messages on the
// same side are merged, in order, with a user turn's tool_result blocks
// first, as the API requires. Messages left with no blocks are skipped.
func buildMessages(msgs []llm.Message) ([]message, error) {
	var turns []turn
	for i, m := range msgs {
		blocks, err := convertMessage(m)
		if err != nil {
			return nil, fmt.Errorf("message %d (%s): %w", i, m.Role, err)
		}
		if len(blocks) == 0 {
			continue
		}
		user := m.Role != llm.RoleAssistant
		if n := len(turns); n > 0 && turns[n-1].user == user {
			turns[n-1].blocks = append(turns[n-1].blocks, blocks...)
			continue
		}
		turns = append(turns, turn{user: user, blocks: blocks})
	}
	out := make([]message, len(turns))
	for i, t := range turns {
		if t.user {
			out[i] = message{Role: "user", Content: toolResultsFirst(t.blocks)}
		} else {
			out[i] = message{Role: "assistant", Content: t.blocks}
		}
	}
	return out, nil
}

func convertMessage(m llm.Message) ([]block, error) {
	switch m.Role {
	case llm.RoleUser, llm.RoleAssistant, llm.RoleTool:
	default:
		return nil, fmt.Errorf("unknown role %q; use user, assistant or tool", m.Role)
	}
	blocks := make([]block, 0, len(m.Parts))
	for j, p := range m.Parts {
		b, ok, err := convertPart(m.Role, p)
		if err != nil {
			return nil, fmt.Errorf("part %d: %w", j, err)
		}
		if ok {
			blocks = append(blocks, b)
		}
	}
	return blocks, nil
}

// convertPart maps one part; ok is false for a part that is not sent.
func convertPart(role llm.Role, p llm.Part) (block, bool, error) {
	var none block
	wrongRole := func() (block, bool, error) {
		return none, false, fmt.Errorf("a %s part cannot appear in a message with role %s", p.Kind, role)
	}
	switch p.Kind {
	case llm.PartText:
		if role == llm.RoleTool {
			return wrongRole()
		}
		if p.Text == "" {
			return none, false, nil // the API rejects empty text blocks
		}
		return block{Type: "text", Text: p.Text}, true, nil
	case llm.PartThinking:
		if role != llm.RoleAssistant {
			return wrongRole()
		}
		return thinkingBlock(p.Thinking)
	case llm.PartToolCall:
		if role != llm.RoleAssistant {
			return wrongRole()
		}
		if p.ToolCall == nil {
			return none, false, errors.New("tool_call part has no ToolCall")
		}
		return block{Type: "tool_use", ID: p.ToolCall.ID, Name: p.ToolCall.Name, Input: toolInput(p.ToolCall.Args)}, true, nil
	case llm.PartImage:
		if role != llm.RoleUser {
			return wrongRole()
		}
		if p.Image == nil {
			return none, false, errors.New("image part has no Image")
		}
		return block{Type: "image", Source: &imageSource{Type: "base64", MediaType: p.Image.MediaType, Data: p.Image.Data}}, true, nil
	case llm.PartToolResult:
		if role == llm.RoleAssistant {
			return wrongRole()
		}
		r := p.ToolResult
		if r == nil {
			return none, false, errors.New("tool_result part has no ToolResult")
		}
		b := block{Type: "tool_result", ToolUseID: r.CallID, IsError: r.IsError}
		if r.Content != "" { // an empty text block is rejected; no content is allowed
			b.Content = []block{{Type: "text", Text: r.Content}}
		}
		return b, true, nil
	}
	return none, false, fmt.Errorf("unknown part kind %q", p.Kind)
}

// thinkingBlock sends back a thinking block this adapter received,
// unchanged: the signature is Anthropic's proof that the text is the
// model's own. Other vendors' reasoning, and a block whose signature never
// arrived (a stream cut mid-way), cannot be verified and are dropped.
func thinkingBlock(t *llm.Thinking) (block, bool, error) {
	var none block
	if t == nil {
		return none, false, errors.New("thinking part has no Thinking")
	}
	if t.Provider != thinkingProvider || t.Signature == "" {
		return none, false, nil
	}
	if t.Redacted {
		return block{Type: "redacted_thinking", Data: t.Signature}, true, nil
	}
	return block{Type: "thinking", Thinking: &t.Text, Signature: t.Signature}, true, nil
}

// toolInput is the tool_use input sent back: the model's own arguments as
// raw JSON, or {} when they are empty, null, or not a JSON object (the
// model produced invalid JSON, which the tool result already told it; the
// API accepts only an object here).
func toolInput(args json.RawMessage) json.RawMessage {
	args = llm.ArgsOrEmpty(args)
	if !isJSONObject(args) {
		return json.RawMessage("{}")
	}
	return args
}

func isJSONObject(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '{' && json.Valid(b)
}

// toolResultsFirst moves tool_result blocks to the front of a user turn,
// keeping the order within each group.
func toolResultsFirst(blocks []block) []block {
	other := func(b block) int {
		if b.Type == "tool_result" {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(blocks, func(a, b block) int { return other(a) - other(b) })
	return blocks
}

// request is a Messages API request body, as the API reference names its
// fields.
type request struct {
	Model       string          `json:"model"`
	MaxTokens   int64           `json:"max_tokens"`
	System      []block         `json:"system,omitempty"`
	Messages    []message       `json:"messages"`
	Tools       []tool          `json:"tools,omitempty"`
	Thinking    *thinkingConfig `json:"thinking,omitempty"`
	Temperature *float64        `json:"temperature,omitempty"`
	Stream      bool            `json:"stream"`
}

type thinkingConfig struct {
	Type         string `json:"type"`
	BudgetTokens int64  `json:"budget_tokens"`
}

type tool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

type message struct {
	Role    string  `json:"role"`
	Content []block `json:"content"`
}

// block is a content block of any type: text, image, tool_use,
// tool_result, thinking, redacted_thinking. Thinking is a pointer because a thinking
// block must carry the field even when its text is empty.
type block struct {
	Type         string          `json:"type"`
	Source       *imageSource    `json:"source,omitempty"`
	Text         string          `json:"text,omitempty"`
	ID           string          `json:"id,omitempty"`
	Name         string          `json:"name,omitempty"`
	Input        json.RawMessage `json:"input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	Content      []block         `json:"content,omitempty"`
	IsError      bool            `json:"is_error,omitempty"`
	Thinking     *string         `json:"thinking,omitempty"`
	Signature    string          `json:"signature,omitempty"`
	Data         string          `json:"data,omitempty"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

// imageSource is an image block's picture, sent inline; Data marshals as
// base64.
type imageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      []byte `json:"data"`
}

// cacheControl marks a prompt-cache breakpoint.
type cacheControl struct {
	Type string `json:"type"`
}
