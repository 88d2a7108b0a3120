package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/godwit/godwit/llm/llmtest"
)

// Wire formats, as -format names them.
const (
	fmtChat      = "chat"
	fmtResponses = "responses"
	fmtAnthropic = "anthropic"
)

var formats = []string{fmtChat, fmtResponses, fmtAnthropic}

// item is one piece of a request in the provider's cache order (tools,
// then system or instructions, then messages or input items), with its
// bytes as godwit sent them. Items are compared byte for byte: two
// requests share a cached prefix as far as their items are equal.
type item struct {
	kind string // "tool", "system", "msg"
	role string // Anthropic: the role of the message a block belongs to
	raw  []byte
}

func (a item) equal(b item) bool {
	return a.kind == b.kind && a.role == b.role && bytes.Equal(a.raw, b.raw)
}

// entry is the meaning of one piece of a conversation, decoded, for the
// scripted model and the checks.
type entry struct {
	role   string // "system", "user", "assistant", "tool" (a tool result)
	text   string // the text, or a tool result's output
	callID string // a call's or a result's id
	name   string // a call's tool name
	args   string // a call's arguments as sent
}

func (e entry) isCall() bool { return e.role == "assistant" && e.name != "" }

// request is a captured request, split into items and entries.
type request struct {
	items   []item
	entries []entry
}

// parseRequest splits a request body of the given wire format. The top
// level and the lists are decoded into json.RawMessage, never
// re-marshalled, so items keep godwit's bytes.
func parseRequest(format string, body []byte) (request, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return request{}, fmt.Errorf("not a JSON object: %w", err)
	}
	var r request
	tools, err := rawList(top["tools"])
	if err != nil {
		return r, fmt.Errorf("tools: %w", err)
	}
	for _, t := range tools {
		r.items = append(r.items, item{kind: "tool", raw: llmtest.StripCacheControl(t)})
	}
	switch format {
	case fmtChat:
		err = r.messages(top["messages"])
	case fmtResponses:
		err = r.responses(top)
	case fmtAnthropic:
		err = r.anthropic(top)
	default:
		err = fmt.Errorf("unknown format %q", format)
	}
	return r, err
}

func rawList(raw json.RawMessage) ([]json.RawMessage, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var out []json.RawMessage
	err := json.Unmarshal(raw, &out)
	return out, err
}

// messages reads Chat Completions messages or Responses input items: the
// two share enough fields to decode alike.
func (r *request) messages(list json.RawMessage) error {
	msgs, err := rawList(list)
	if err != nil {
		return err
	}
	for _, raw := range msgs {
		var m struct {
			Type       string          `json:"type"`
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			Output     json.RawMessage `json:"output"`
			CallID     string          `json:"call_id"`
			ToolCallID string          `json:"tool_call_id"`
			Name       string          `json:"name"`
			Arguments  string          `json:"arguments"`
			ToolCalls  []struct {
				ID       string                           `json:"id"`
				Function struct{ Name, Arguments string } `json:"function"`
			} `json:"tool_calls"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			return fmt.Errorf("message: %w", err)
		}
		kind, role := "msg", m.Role
		if m.Role == "system" || m.Role == "developer" {
			kind, role = "system", "system"
		}
		r.items = append(r.items, item{kind: kind, raw: raw})
		switch {
		case m.Type == "function_call":
			r.entries = append(r.entries, entry{role: "assistant", callID: m.CallID, name: m.Name, args: m.Arguments})
		case m.Role == "tool" || m.Type == "function_call_output":
			r.entries = append(r.entries, entry{role: "tool", callID: m.ToolCallID + m.CallID, text: llmtest.ContentText(m.Content) + llmtest.ContentText(m.Output)})
		case m.Type != "" && m.Type != "message": // reasoning
		default:
			if t := llmtest.ContentText(m.Content); t != "" || kind == "system" {
				r.entries = append(r.entries, entry{role: role, text: t})
			}
			for _, c := range m.ToolCalls {
				r.entries = append(r.entries, entry{role: "assistant", callID: c.ID, name: c.Function.Name, args: c.Function.Arguments})
			}
		}
	}
	return nil
}

func (r *request) responses(top map[string]json.RawMessage) error {
	if raw := top["instructions"]; len(raw) > 0 && string(raw) != "null" {
		r.items = append(r.items, item{kind: "system", raw: raw})
		r.entries = append(r.entries, entry{role: "system", text: llmtest.ContentText(raw)})
	}
	var s string
	if json.Unmarshal(top["input"], &s) == nil { // the string shorthand: one user message
		r.items = append(r.items, item{kind: "msg", raw: top["input"]})
		r.entries = append(r.entries, entry{role: "user", text: s})
		return nil
	}
	return r.messages(top["input"])
}

func (r *request) anthropic(top map[string]json.RawMessage) error {
	if raw := top["system"]; len(raw) > 0 && string(raw) != "null" {
		blocks, err := rawList(raw)
		if err != nil { // the string shorthand
			blocks = []json.RawMessage{raw}
		}
		for _, b := range blocks {
			r.items = append(r.items, item{kind: "system", raw: llmtest.StripCacheControl(b)})
		}
		r.entries = append(r.entries, entry{role: "system", text: llmtest.ContentText(raw)})
	}
	msgs, err := rawList(top["messages"])
	if err != nil {
		return fmt.Errorf("messages: %w", err)
	}
	for _, raw := range msgs {
		var m struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			return fmt.Errorf("message: %w", err)
		}
		blocks, err := rawList(m.Content)
		if err != nil { // the string shorthand
			blocks = []json.RawMessage{m.Content}
		}
		// The cache sees blocks, not messages: the API joins consecutive
		// messages of one role, so each block is an item of its own.
		for _, b := range blocks {
			r.items = append(r.items, item{kind: "msg", role: m.Role, raw: llmtest.StripCacheControl(b)})
			r.entries = append(r.entries, anthropicEntry(m.Role, b))
		}
	}
	return nil
}

func anthropicEntry(role string, raw json.RawMessage) entry {
	var b struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
		ToolUseID string          `json:"tool_use_id"`
		Content   json.RawMessage `json:"content"`
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return entry{role: role, text: s}
	}
	_ = json.Unmarshal(raw, &b)
	switch b.Type {
	case "tool_use":
		return entry{role: "assistant", callID: b.ID, name: b.Name, args: string(b.Input)}
	case "tool_result":
		return entry{role: "tool", callID: b.ToolUseID, text: llmtest.ContentText(b.Content)}
	}
	return entry{role: role, text: b.Text}
}
