package llm

import (
	"bytes"
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
	Image      *Image      `json:"image,omitempty"`
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
	// Details is OpenRouter's reasoning_details: a JSON array of the
	// upstream model's reasoning blocks (Anthropic's signed thinking,
	// Gemini's thought signatures, OpenAI's encrypted reasoning), to be
	// sent back unchanged on the assistant message. A string, not a
	// json.RawMessage, so that the store gives back the very bytes.
	Details string `json:"details,omitempty"`
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

// MarshalJSON keeps Args byte for byte. encoding/json compacts a
// RawMessage (and escapes <, > and &), so arguments the model wrote as
// {"path": "a"} would come back from the store as {"path":"a"}, and a
// resumed session would send other bytes than the first process did,
// breaking the provider's prompt cache. When compacting would change Args,
// the exact text travels beside it in args_text.
func (c ToolCall) MarshalJSON() ([]byte, error) {
	type plain ToolCall
	w := struct {
		plain
		ArgsText string `json:"args_text,omitempty"`
	}{plain: plain(c)}
	w.plain.Args, w.ArgsText = exact(c.Args)
	return json.Marshal(w)
}

// UnmarshalJSON restores Args from args_text when it is there.
func (c *ToolCall) UnmarshalJSON(b []byte) error {
	type plain ToolCall
	var w struct {
		plain
		ArgsText *string `json:"args_text"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*c = ToolCall(w.plain)
	if w.ArgsText != nil {
		c.Args = json.RawMessage(*w.ArgsText)
	}
	return nil
}

// exact returns raw as the store writes it and, when encoding/json would
// change its bytes, the exact text to keep beside it. Invalid JSON (what
// the model sent) is stored as its JSON string, so the record stays valid
// JSON.
func exact(raw json.RawMessage) (json.RawMessage, string) {
	switch {
	case len(raw) == 0:
		return nil, ""
	case !json.Valid(raw):
		q, _ := json.Marshal(string(raw))
		return q, string(raw)
	case !isCompact(raw):
		return raw, string(raw)
	}
	return raw, ""
}

// isCompact reports whether encoding/json would leave b as it is: it
// compacts, and escapes <, >, &, U+2028 and U+2029.
func isCompact(b []byte) bool {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil || !bytes.Equal(buf.Bytes(), b) {
		return false
	}
	return !bytes.ContainsAny(b, "<>&\u2028\u2029")
}

// ToolResult answers one ToolCall.
type ToolResult struct {
	CallID  string `json:"call_id"`
	Name    string `json:"name,omitempty"`
	Content string `json:"content"`
	IsError bool   `json:"is_error,omitempty"`
	// Untrusted is the verdict of untrusted.Suspicious on Content, made
	// once when the result entered the session and kept with it: the
	// window heads a marked output with untrusted.Note.
	Untrusted bool `json:"untrusted,omitempty"`
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

// MarshalJSON keeps Schema byte for byte, as ToolCall does its Args: a
// segment's tool table is stored and sent again by a later process.
func (t ToolSpec) MarshalJSON() ([]byte, error) {
	type plain ToolSpec
	w := struct {
		plain
		SchemaText string `json:"schema_text,omitempty"`
	}{plain: plain(t)}
	w.plain.Schema, w.SchemaText = exact(t.Schema)
	return json.Marshal(w)
}

// UnmarshalJSON restores Schema from schema_text when it is there.
func (t *ToolSpec) UnmarshalJSON(b []byte) error {
	type plain ToolSpec
	var w struct {
		plain
		SchemaText *string `json:"schema_text"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*t = ToolSpec(w.plain)
	if w.SchemaText != nil {
		t.Schema = json.RawMessage(*w.SchemaText)
	}
	return nil
}

// SpecsJSON renders a tool table as vendors receive it (schemas compact,
// without the exact-bytes copy MarshalJSON keeps for the store): what
// godwit counts the table's tokens on.
func SpecsJSON(specs []ToolSpec) string {
	type spec struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Schema      json.RawMessage `json:"schema"`
	}
	out := make([]spec, len(specs))
	for i, t := range specs {
		out[i] = spec{t.Name, t.Description, ArgsOrEmpty(t.Schema)}
	}
	b, _ := json.Marshal(out)
	return string(b)
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
