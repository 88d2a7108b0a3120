package llm

import (
	"encoding/json"
	"strings"
)

// Role says who authored a message.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	// RoleTool messages carry only ToolResult parts, answering the tool
	// calls of the assistant message before them. Adapters map them to the
	// vendor's shape (Anthropic: a user message; OpenAI chat: one "tool"
	// message per result; Responses: function_call_output items).
	RoleTool Role = "tool"
)

// PartKind discriminates the content of a Part.
type PartKind string

const (
	PartText       PartKind = "text"
	PartThinking   PartKind = "thinking"
	PartToolCall   PartKind = "tool_call"
	PartToolResult PartKind = "tool_result"
)

// Part is one piece of a message. Exactly one payload is set, the one Kind
// names. It is a struct rather than an interface so that a history
// round-trips through JSON (the store) without a type registry.
type Part struct {
	Kind       PartKind    `json:"kind"`
	Text       string      `json:"text,omitempty"`
	Thinking   *Thinking   `json:"thinking,omitempty"`
	ToolCall   *ToolCall   `json:"tool_call,omitempty"`
	ToolResult *ToolResult `json:"tool_result,omitempty"`
}

// Thinking is a model's reasoning. Everything but Text is opaque vendor
// state that must be sent back byte for byte in later requests of the same
// turn; Provider records which wire format produced it so that an adapter
// never sends another vendor's signature.
type Thinking struct {
	Text string `json:"text,omitempty"`
	// Signature is Anthropic's thinking signature, or for a redacted block
	// its data; for OpenAI Responses it is the reasoning item's
	// encrypted_content.
	Signature string `json:"signature,omitempty"`
	// Redacted marks an Anthropic redacted_thinking block.
	Redacted bool `json:"redacted,omitempty"`
	// ID is the OpenAI Responses reasoning item id.
	ID string `json:"id,omitempty"`
	// Summary holds the Responses reasoning summary parts, in order.
	Summary []string `json:"summary,omitempty"`
	// Provider is the wire format that produced the block ("anthropic",
	// "openai-responses", "openai-chat").
	Provider string `json:"provider,omitempty"`
}

// ToolCall is the model's request to run a tool. Args is the raw JSON the
// model produced; it may be invalid, and the tool runner says so to the
// model instead of failing the turn.
type ToolCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// ToolResult answers one ToolCall.
type ToolResult struct {
	CallID  string `json:"call_id"`
	Name    string `json:"name,omitempty"`
	Content string `json:"content"`
	IsError bool   `json:"is_error,omitempty"`
}

// Message is one entry of a conversation.
type Message struct {
	Role  Role   `json:"role"`
	Parts []Part `json:"parts"`
}

// TextPart returns a text Part.
func TextPart(s string) Part { return Part{Kind: PartText, Text: s} }

// UserText returns a user message holding one text part.
func UserText(s string) Message {
	return Message{Role: RoleUser, Parts: []Part{TextPart(s)}}
}

// AssistantText returns an assistant message holding one text part.
func AssistantText(s string) Message {
	return Message{Role: RoleAssistant, Parts: []Part{TextPart(s)}}
}

// Text concatenates the message's text parts.
func (m Message) Text() string {
	var b strings.Builder
	for _, p := range m.Parts {
		if p.Kind == PartText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// ToolCalls returns the message's tool calls in order.
func (m Message) ToolCalls() []ToolCall {
	var calls []ToolCall
	for _, p := range m.Parts {
		if p.Kind == PartToolCall && p.ToolCall != nil {
			calls = append(calls, *p.ToolCall)
		}
	}
	return calls
}

// ToolSpec describes a tool to the model. Schema is a JSON Schema object.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
}

// ArgsOrEmpty returns args, or the empty JSON object when args is empty or
// JSON null: vendors reject a null tool input in the history.
func ArgsOrEmpty(args json.RawMessage) json.RawMessage {
	s := strings.TrimSpace(string(args))
	if s == "" || s == "null" {
		return json.RawMessage("{}")
	}
	return args
}
