package openai

import (
	"fmt"
	"strconv"

	"github.com/godwit/godwit/llm"
)

// body encodes req as the Responses request, in the bytes the openai-go
// SDK wrote (testdata/wire), like the chat body. Nothing is stored on the
// server (store:false), so the whole history goes in every request,
// reasoning items included as encrypted content; the items keep the
// caller's order so the prompt cache sees an append-only prefix.
func (p *responsesProvider) body(req llm.Request) ([]byte, error) {
	if req.Model == "" {
		return nil, fmt.Errorf("openai: request has no model: set the model name in the provider config")
	}
	var items []byte
	n := 0
	if req.System != "" {
		items = appendContent(items, req.System, "system")
		n++
	}
	dropped := 0
	for i, m := range req.Messages {
		var d int
		var err error
		if items, n, d, err = appendItems(items, n, m); err != nil {
			return nil, fmt.Errorf("openai: message %d: %w", i, err)
		}
		dropped += d
	}
	if dropped > 0 {
		p.log.Debug("openai: dropped thinking blocks that cannot be sent back", "provider", p.name, "count", dropped)
	}
	var tools []byte
	for i, t := range req.Tools {
		schema, err := toolSchema(t)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			tools = append(tools, ',')
		}
		tools = append(tools, `{"strict":false,"name":`...)
		tools = appendString(tools, t.Name)
		if t.Description != "" {
			tools = append(tools, `,"description":`...)
			tools = appendString(tools, t.Description)
		}
		tools = append(tools, `,"type":"function","parameters":`...)
		tools = append(tools, schema...)
		tools = append(tools, '}')
	}
	b := make([]byte, 0, len(items)+len(tools)+256)
	b = append(b, '{')
	if req.MaxOutputTokens > 0 {
		b = append(b, `"max_output_tokens":`...)
		b = strconv.AppendInt(b, int64(req.MaxOutputTokens), 10)
		b = append(b, ',')
	}
	if req.CacheKey != "" {
		b = append(b, `"prompt_cache_key":`...)
		b = appendString(b, req.CacheKey)
		b = append(b, ',')
	}
	b = append(b, `"store":false`...)
	if req.Temperature != nil {
		b = append(b, `,"temperature":`...)
		b = appendFloat(b, *req.Temperature)
	}
	// Non-reasoning models refuse include and reasoning; reasoning models
	// need the encrypted content to carry their reasoning across the tool
	// calls of a turn, and say what they reason only when asked for
	// summaries (as Codex asks, model_reasoning_summary = "auto").
	reasoning := req.Reasoning != "" || reasoningModel(req.Model)
	if reasoning {
		b = append(b, `,"include":["reasoning.encrypted_content"]`...)
	}
	if n > 0 {
		b = append(b, `,"input":[`...)
		b = append(b, items...)
		b = append(b, ']')
	}
	b = append(b, `,"model":`...)
	b = appendString(b, req.Model)
	if reasoning {
		b = append(b, `,"reasoning":{`...)
		if req.Reasoning != "" {
			b = append(b, `"effort":`...)
			b = appendString(b, req.Reasoning)
			b = append(b, ',')
		}
		b = append(b, `"summary":"auto"}`...)
	}
	if len(tools) > 0 {
		b = append(b, `,"tools":[`...)
		b = append(b, tools...)
		b = append(b, ']')
	}
	return append(b, `,"stream":true}`...), nil
}

// appendItems appends m's input items (n written so far) in part order,
// so a reasoning item stays right before the function calls it led to;
// consecutive texts make one message. dropped counts thinking parts that
// cannot be sent: another wire format's, or ours without encrypted
// content (with store:false the server cannot look an id up).
func appendItems(b []byte, n int, m llm.Message) (_ []byte, _ int, dropped int, err error) {
	switch m.Role {
	case llm.RoleUser, llm.RoleAssistant, llm.RoleTool:
	default:
		return b, n, 0, fmt.Errorf("unknown role %q", m.Role)
	}
	sep := func() {
		if n > 0 {
			b = append(b, ',')
		}
		n++
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
			sep()
			b = append(b, `{"content":[`...)
			for i, t := range texts {
				if i > 0 {
					b = append(b, ',')
				}
				if t.Kind == llm.PartImage {
					b = append(b, `{"detail":"auto","image_url":`...)
					b = appendString(b, t.Image.DataURL())
					b = append(b, `,"type":"input_image"}`...)
					continue
				}
				b = append(b, `{"text":`...)
				b = appendString(b, t.Text)
				b = append(b, `,"type":"input_text"}`...)
			}
			b = append(b, `],"role":"user"}`...)
		default:
			sep()
			b = append(b, `{"content":"`...)
			for _, t := range texts {
				b = appendStringBody(b, t.Text)
			}
			b = append(b, `","role":"`...)
			b = append(b, m.Role...)
			b = append(b, `"}`...)
		}
		texts, images = texts[:0], false
	}
	for _, part := range m.Parts {
		if part.Kind != llm.PartText && part.Kind != llm.PartImage {
			flush()
		}
		switch part.Kind {
		case llm.PartText:
			if m.Role == llm.RoleTool {
				return b, n, 0, fmt.Errorf("a tool message may hold only tool results")
			}
			texts = append(texts, part)
		case llm.PartImage:
			if m.Role != llm.RoleUser || part.Image == nil {
				return b, n, 0, fmt.Errorf("an image may go only in a user message")
			}
			texts, images = append(texts, part), true
		case llm.PartThinking:
			t := part.Thinking
			if t == nil || t.Provider != ProviderResponses || t.Signature == "" || t.ID == "" {
				dropped++
				continue
			}
			sep()
			b = append(b, `{"id":`...)
			b = appendString(b, t.ID)
			b = append(b, `,"summary":[`...)
			for i, s := range t.Summary {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, `{"text":`...)
				b = appendString(b, s)
				b = append(b, `,"type":"summary_text"}`...)
			}
			b = append(b, `],"encrypted_content":`...)
			b = appendString(b, t.Signature)
			b = append(b, `,"type":"reasoning"}`...)
		case llm.PartToolCall:
			c := part.ToolCall
			if c == nil {
				continue
			}
			sep()
			b = append(b, `{"arguments":`...)
			b = appendString(b, string(llm.ArgsOrEmpty(c.Args)))
			b = append(b, `,"call_id":`...)
			b = appendString(b, c.ID)
			b = append(b, `,"name":`...)
			b = appendString(b, c.Name)
			b = append(b, `,"type":"function_call"}`...)
		case llm.PartToolResult:
			r := part.ToolResult
			if r == nil {
				continue
			}
			if r.CallID == "" {
				return b, n, 0, fmt.Errorf("tool result for %q has no call id", r.Name)
			}
			sep()
			b = append(b, `{"output":`...)
			b = appendString(b, r.Content)
			b = append(b, `,"call_id":`...)
			b = appendString(b, r.CallID)
			b = append(b, `,"type":"function_call_output"}`...)
		default:
			return b, n, 0, fmt.Errorf("unknown part kind %q", part.Kind)
		}
	}
	flush()
	return b, n, dropped, nil
}
