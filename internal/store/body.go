package store

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/godwit/godwit/llm"
)

// decodeMessage decodes a message body as json.Unmarshal would; anything
// but json.Marshal's layout goes to encoding/json, and
// TestDecodeMessageMatchesJSON holds the results equal. It is kept
// because encoding/json alone costs a resumed turn 9% more instructions
// (bench/turncost, turn 301: 271M against 248M), which takes the late
// turns past the per-turn target of 1.5x the first.
func decodeMessage(body string) (llm.Message, error) {
	d := bodyReader{s: body}
	if m, ok := d.message(); ok && d.end() {
		return m, nil
	}
	var m llm.Message
	err := json.Unmarshal([]byte(body), &m)
	return m, err
}

// bodyReader reads JSON from s at i; each method reports false on
// anything it does not read itself.
type bodyReader struct {
	s string
	i int
}

func (d *bodyReader) ws() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *bodyReader) end() bool {
	d.ws()
	return d.i == len(d.s)
}

func (d *bodyReader) byte(c byte) bool {
	d.ws()
	if d.i < len(d.s) && d.s[d.i] == c {
		d.i++
		return true
	}
	return false
}

// object reads {"key": value, ...}, calling field for each key with the
// reader at its value.
func (d *bodyReader) object(field func(key string) bool) bool {
	if !d.byte('{') {
		return false
	}
	if d.byte('}') {
		return true
	}
	for {
		key, ok := d.str()
		if !ok || !d.byte(':') || !field(key) {
			return false
		}
		if d.byte('}') {
			return true
		}
		if !d.byte(',') {
			return false
		}
	}
}

// str reads a string: a slice of s when it has no escapes.
func (d *bodyReader) str() (string, bool) {
	if !d.byte('"') {
		return "", false
	}
	start := d.i
	ascii, escaped, u := true, false, false
	for ; d.i < len(d.s); d.i++ {
		switch c := d.s[d.i]; {
		case c == '"':
			d.i++
			out := d.s[start : d.i-1]
			switch {
			case u:
				return unquote(d.s[start-1 : d.i])
			case escaped:
				out = unescape(out)
			case ascii:
				return out, true
			}
			return out, utf8.ValidString(out) // else encoding/json puts U+FFFD in
		case c == '\\':
			d.i++
			if d.i == len(d.s) || !strings.ContainsRune(`"\/bfnrtu`, rune(d.s[d.i])) {
				return "", false
			}
			escaped, u = true, u || d.s[d.i] == 'u'
		case c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return "", false
}

// unquote decodes a quoted string with \u escapes as encoding/json
// does.
func unquote(q string) (string, bool) {
	var s string
	err := json.Unmarshal([]byte(q), &s)
	return s, err == nil
}

// unescape undoes the one-letter escapes of a string str has checked.
func unescape(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' {
			i++
			c = s[i] // ", \ and / stand for themselves
			if j := strings.IndexByte("bfnrt", c); j >= 0 {
				c = "\b\f\n\r\t"[j]
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

func (d *bodyReader) bool() (bool, bool) {
	d.ws()
	switch {
	case strings.HasPrefix(d.s[d.i:], "true"):
		d.i += 4
		return true, true
	case strings.HasPrefix(d.s[d.i:], "false"):
		d.i += 5
		return false, true
	}
	return false, false
}

// raw reads a tool call's args as json.RawMessage keeps them: an object
// or array (checked by json.Valid), a string, or null.
func (d *bodyReader) raw() (json.RawMessage, bool) {
	d.ws()
	start := d.i
	if strings.HasPrefix(d.s[d.i:], "null") {
		d.i += 4
		return json.RawMessage("null"), true
	}
	if d.i < len(d.s) && d.s[d.i] == '"' {
		if _, ok := d.str(); !ok {
			return nil, false
		}
		return json.RawMessage(d.s[start:d.i]), true
	}
	depth := 0
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case '"':
			if _, ok := d.str(); !ok {
				return nil, false
			}
			continue
		}
		d.i++
		if depth == 0 {
			break
		}
	}
	v := d.s[start:d.i]
	if depth != 0 || v == "" || (v[0] != '{' && v[0] != '[') || !json.Valid([]byte(v)) {
		return nil, false
	}
	return json.RawMessage(v), true
}

func (d *bodyReader) message() (llm.Message, bool) {
	var m llm.Message
	ok := d.object(func(key string) bool {
		switch key {
		case "role":
			s, ok := d.str()
			m.Role = llm.Role(s)
			return ok
		case "parts":
			if !d.byte('[') {
				return false
			}
			m.Parts = []llm.Part{}
			if d.byte(']') {
				return true
			}
			for {
				p, ok := d.part()
				if !ok {
					return false
				}
				m.Parts = append(m.Parts, p)
				if d.byte(']') {
					return true
				}
				if !d.byte(',') {
					return false
				}
			}
		}
		return false
	})
	return m, ok
}

func (d *bodyReader) part() (llm.Part, bool) {
	var p llm.Part
	ok := d.object(func(key string) bool {
		var ok bool
		switch key {
		case "kind":
			var s string
			s, ok = d.str()
			p.Kind = llm.PartKind(s)
		case "text":
			p.Text, ok = d.str()
		case "thinking":
			p.Thinking, ok = d.thinking()
		case "tool_call":
			p.ToolCall, ok = d.toolCall()
		case "tool_result":
			p.ToolResult, ok = d.toolResult()
		case "image":
			p.Image, ok = d.image()
		}
		return ok
	})
	return p, ok
}

func (d *bodyReader) image() (*llm.Image, bool) {
	im := &llm.Image{}
	ok := d.object(func(key string) bool {
		switch key {
		case "media_type":
			var ok bool
			im.MediaType, ok = d.str()
			return ok
		case "data":
			s, ok := d.str()
			if !ok {
				return false
			}
			b, err := base64.StdEncoding.DecodeString(s) // as encoding/json reads []byte
			im.Data = b
			return err == nil
		}
		return false
	})
	return im, ok
}

func (d *bodyReader) thinking() (*llm.Thinking, bool) {
	t := &llm.Thinking{}
	ok := d.object(func(key string) bool {
		var ok bool
		switch key {
		case "text":
			t.Text, ok = d.str()
		case "signature":
			t.Signature, ok = d.str()
		case "redacted":
			t.Redacted, ok = d.bool()
		case "id":
			t.ID, ok = d.str()
		case "details":
			t.Details, ok = d.str()
		case "provider":
			t.Provider, ok = d.str()
		}
		return ok // summary and the rest: encoding/json
	})
	return t, ok
}

func (d *bodyReader) toolCall() (*llm.ToolCall, bool) {
	c := &llm.ToolCall{}
	var text string
	hasText := false
	ok := d.object(func(key string) bool {
		var ok bool
		switch key {
		case "id":
			c.ID, ok = d.str()
		case "name":
			c.Name, ok = d.str()
		case "args":
			c.Args, ok = d.raw()
		case "args_text":
			text, ok = d.str()
			hasText = true
		}
		return ok
	})
	if hasText {
		c.Args = json.RawMessage(text)
	}
	return c, ok
}

func (d *bodyReader) toolResult() (*llm.ToolResult, bool) {
	r := &llm.ToolResult{}
	ok := d.object(func(key string) bool {
		var ok bool
		switch key {
		case "call_id":
			r.CallID, ok = d.str()
		case "name":
			r.Name, ok = d.str()
		case "content":
			r.Content, ok = d.str()
		case "is_error":
			r.IsError, ok = d.bool()
		case "untrusted":
			r.Untrusted, ok = d.bool()
		}
		return ok
	})
	return r, ok
}
