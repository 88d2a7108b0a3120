package openai

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/godwit/godwit/llm"
)

// body encodes req as the Chat Completions request, in the bytes the
// openai-go SDK wrote (testdata/wire pins them: key order, escapes and
// all), so recorded sessions send the same bytes and the provider's
// prompt cache still hits. The same llm.Request always gives the same
// bytes, in the caller's order.
func (p *chatProvider) body(req llm.Request) ([]byte, error) {
	if req.Model == "" {
		return nil, fmt.Errorf("openai: request has no model: set the model name in the provider config")
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
		tools = append(tools, `{"function":{"name":`...)
		tools = appendString(tools, t.Name)
		if t.Description != "" {
			tools = append(tools, `,"description":`...)
			tools = appendString(tools, t.Description)
		}
		tools = append(tools, `,"parameters":`...)
		tools = append(tools, schema...)
		tools = append(tools, `},"type":"function"}`...)
	}
	size := len(tools) + len(req.System) + 256
	for _, m := range req.Messages {
		for _, part := range m.Parts {
			size += 64 + len(part.Text)
			if part.Image != nil {
				size += len(part.Image.Data) * 4 / 3
			}
			if part.ToolResult != nil {
				size += len(part.ToolResult.Content) + len(part.ToolResult.CallID)
			}
			if part.ToolCall != nil {
				size += 2*len(part.ToolCall.Args) + len(part.ToolCall.ID) + len(part.ToolCall.Name)
			}
		}
	}
	b := make([]byte, 0, size+size/8) // room for escapes
	b = append(b, `{"messages":[`...)
	n := 0
	if req.System != "" {
		b = appendContent(b, req.System, "system")
		n++
	}
	dropped := 0
	for i, m := range req.Messages {
		var d int
		var err error
		if b, n, d, err = appendChatMessage(b, n, m); err != nil {
			return nil, fmt.Errorf("openai: message %d: %w", i, err)
		}
		dropped += d
	}
	if dropped > 0 {
		p.log.Debug("openai: dropped thinking blocks from another wire format", "provider", p.name, "count", dropped)
	}
	if n == 0 {
		b = append(b[:0], '{') // no messages: the field is left out
	} else {
		b = append(b, "],"...)
	}
	b = append(b, `"model":`...)
	b = appendString(b, req.Model)
	if req.MaxOutputTokens > 0 {
		// OpenAI's reasoning models refuse max_tokens; everything else,
		// compatible servers included, knows max_tokens best.
		if p.isOpenAI || reasoningModel(req.Model) {
			b = append(b, `,"max_completion_tokens":`...)
		} else {
			b = append(b, `,"max_tokens":`...)
		}
		b = strconv.AppendInt(b, int64(req.MaxOutputTokens), 10)
	}
	if req.CacheKey != "" && p.sendCacheKey {
		b = append(b, `,"prompt_cache_key":`...)
		b = appendString(b, req.CacheKey)
	}
	if req.Temperature != nil {
		b = append(b, `,"temperature":`...)
		b = appendFloat(b, *req.Temperature)
	}
	if req.Reasoning != "" && !p.openRouter {
		b = append(b, `,"reasoning_effort":`...)
		b = appendString(b, req.Reasoning)
	}
	b = append(b, `,"stream_options":{"include_usage":true}`...)
	if len(tools) > 0 {
		b = append(b, `,"tools":[`...)
		b = append(b, tools...)
		b = append(b, ']')
	}
	if req.Reasoning != "" && p.openRouter {
		// OpenRouter's unified parameter, which it maps to each
		// upstream's own (Anthropic's thinking budget, Gemini's
		// thinking level, OpenAI's effort).
		b = append(b, `,"reasoning":{"effort":`...)
		b = appendString(b, req.Reasoning)
		b = append(b, '}')
	}
	return append(b, `,"stream":true}`...), nil
}

// appendChatMessage appends m's Chat Completions messages (n written so
// far): a user message, an assistant message with its tool calls, and
// then each tool result as a message of its own. dropped counts thinking
// parts that came from another wire format and cannot be sent here.
func appendChatMessage(b []byte, n int, m llm.Message) (_ []byte, _ int, dropped int, err error) {
	var texts, images, calls, results int
	var thinking, details []string
	for _, part := range m.Parts {
		switch part.Kind {
		case llm.PartText:
			texts++
		case llm.PartImage:
			if m.Role != llm.RoleUser || part.Image == nil {
				return b, n, 0, fmt.Errorf("an image may go only in a user message")
			}
			images++
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
			if part.ToolCall != nil {
				calls++
			}
		case llm.PartToolResult:
			if part.ToolResult == nil {
				continue
			}
			if part.ToolResult.CallID == "" {
				return b, n, 0, fmt.Errorf("tool result for %q has no call id", part.ToolResult.Name)
			}
			results++
		default:
			return b, n, 0, fmt.Errorf("unknown part kind %q", part.Kind)
		}
	}
	sep := func() {
		if n > 0 {
			b = append(b, ',')
		}
		n++
	}
	switch m.Role {
	case llm.RoleUser:
		switch {
		case texts == 1 && images == 0:
			sep()
			for _, part := range m.Parts {
				if part.Kind == llm.PartText {
					b = appendContent(b, part.Text, "user")
				}
			}
		case texts > 1 || images > 0:
			sep()
			b = append(b, `{"content":[`...)
			k := 0
			for _, part := range m.Parts {
				if part.Kind != llm.PartText && part.Kind != llm.PartImage {
					continue
				}
				if k > 0 {
					b = append(b, ',')
				}
				k++
				if part.Kind == llm.PartImage {
					b = append(b, `{"image_url":{"url":`...)
					b = appendString(b, part.Image.DataURL())
					b = append(b, `},"type":"image_url"}`...)
					continue
				}
				b = append(b, `{"text":`...)
				b = appendString(b, part.Text)
				b = append(b, `,"type":"text"}`...)
			}
			b = append(b, `],"role":"user"}`...)
		}
	case llm.RoleAssistant:
		if texts == 0 && calls == 0 {
			break // thinking alone (a cut answer) has nothing to send
		}
		sep()
		b = append(b, '{')
		if texts > 0 {
			b = append(b, `"content":"`...)
			for _, part := range m.Parts {
				if part.Kind == llm.PartText {
					b = appendStringBody(b, part.Text)
				}
			}
			b = append(b, '"')
		}
		if calls > 0 {
			if texts > 0 {
				b = append(b, ',')
			}
			b = append(b, `"tool_calls":[`...)
			k := 0
			for _, part := range m.Parts {
				c := part.ToolCall
				if part.Kind != llm.PartToolCall || c == nil {
					continue
				}
				if k > 0 {
					b = append(b, ',')
				}
				k++
				b = append(b, `{"id":`...)
				b = appendString(b, c.ID)
				b = append(b, `,"function":{"arguments":`...)
				b = appendString(b, string(llm.ArgsOrEmpty(c.Args)))
				b = append(b, `,"name":`...)
				b = appendString(b, c.Name)
				b = append(b, `},"type":"function"}`...)
			}
			b = append(b, ']')
		}
		b = append(b, `,"role":"assistant"`...)
		if calls > 0 && len(thinking) > 0 {
			// DeepSeek answers 400 when a tool-calling turn loses its
			// reasoning; GLM and Kimi use it too.
			b = append(b, `,"reasoning_content":`...)
			b = appendExtraString(b, strings.Join(thinking, ""))
		}
		if len(details) > 0 {
			// OpenRouter: the blocks go back as received, so Anthropic's
			// signatures and Gemini's thought signatures survive the
			// turn (it refuses a Gemini tool call without them).
			d, err := joinDetails(details)
			if err == nil {
				d, err = json.Marshal(d) // compact, as a raw value is sent
			}
			if err != nil {
				return b, n, 0, err
			}
			b = append(b, `,"reasoning_details":`...)
			b = append(b, d...)
		}
		b = append(b, '}')
	case llm.RoleTool:
		if texts > 0 || calls > 0 {
			return b, n, 0, fmt.Errorf("a tool message may hold only tool results")
		}
	default:
		return b, n, 0, fmt.Errorf("unknown role %q", m.Role)
	}
	if results == 0 {
		return b, n, dropped, nil
	}
	for _, part := range m.Parts {
		r := part.ToolResult
		if part.Kind != llm.PartToolResult || r == nil {
			continue
		}
		sep()
		b = append(b, `{"content":`...)
		b = appendString(b, r.Content)
		b = append(b, `,"tool_call_id":`...)
		b = appendString(b, r.CallID)
		b = append(b, `,"role":"tool"}`...)
	}
	return b, n, dropped, nil
}

// emptySchema is sent for a tool without parameters.
const emptySchema = `{"type":"object","properties":{}}`

// toolSchema checks a tool's schema and returns it compact, as it is
// sent (encoding/json's form of a raw value: HTML characters escaped);
// its keys keep the caller's order.
func toolSchema(t llm.ToolSpec) ([]byte, error) {
	if t.Name == "" {
		return nil, fmt.Errorf("openai: a tool has no name")
	}
	s := strings.TrimSpace(string(t.Schema))
	if s == "" || s == "null" {
		return []byte(emptySchema), nil
	}
	if !json.Valid(t.Schema) || s[0] != '{' {
		return nil, fmt.Errorf("openai: tool %q: schema is not a JSON object", t.Name)
	}
	return json.Marshal(json.RawMessage(t.Schema))
}

// appendExtraString appends s as the SDK wrote the fields it had no name
// for (reasoning_content): as is when every byte is printable ASCII
// other than quote and backslash, else as encoding/json writes it, HTML
// escapes included.
func appendExtraString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7f || c == '"' || c == '\\' {
			enc, _ := json.Marshal(s) // a string always encodes
			return append(b, enc...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendFloat appends f as encoding/json writes a float64.
func appendFloat(b []byte, f float64) []byte {
	enc, err := json.Marshal(f)
	if err != nil { // NaN or an infinity: no JSON for it
		return append(b, '0')
	}
	return append(b, enc...)
}

// appendContent appends {"content":s,"role":role}.
func appendContent(b []byte, s, role string) []byte {
	b = append(b, `{"content":`...)
	b = appendString(b, s)
	b = append(b, `,"role":"`...)
	b = append(b, role...)
	return append(b, `"}`...)
}

func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	b = appendStringBody(b, s)
	return append(b, '"')
}

// appendStringBody appends s escaped as the SDK's encoder escapes a
// string (encoding/json without HTML escaping): quote, backslash and
// control bytes; invalid UTF-8 as U+FFFD; U+2028 and U+2029 escaped.
func appendStringBody(b []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(b, s[start:]...)
}

const hexDigits = "0123456789abcdef"
