package store

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/godwit/godwit/llm"
)

// decodeMessage decodes a message body as json.Unmarshal would; anything
// but json.Marshal's layout goes to encoding/json, and
// TestDecodeMessageMatchesJSON holds the results equal. It is kept
// because encoding/json alone costs a resumed turn of bench/turncost's
// session 21% more instructions at turn 301 (11% at turn 151).
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
	ascii := true
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == '"':
			out := d.s[start:d.i]
			d.i++
			if !ascii && !utf8.ValidString(out) {
				return "", false // encoding/json puts U+FFFD in
			}
			return out, true
		case c == '\\':
			return d.escaped(start)
		case c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
		d.i++
	}
	return "", false
}

// escaped reads the rest of a string that has escapes, from start (just
// after its quote). \u escapes are read by encoding/json's rules.
func (d *bodyReader) escaped(start int) (string, bool) {
	var b strings.Builder
	b.Grow(d.i - start + 16)
	b.WriteString(d.s[start:d.i])
	run := d.i
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == '"':
			b.WriteString(d.s[run:d.i])
			d.i++
			out := b.String()
			if !utf8.ValidString(out) {
				return "", false
			}
			return out, true
		case c < 0x20:
			return "", false
		case c != '\\':
			d.i++
			continue
		}
		b.WriteString(d.s[run:d.i])
		if d.i+1 >= len(d.s) {
			return "", false
		}
		switch e := d.s[d.i+1]; e {
		case '"', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			// As encoding/json: a surrogate pair is one rune, a lone
			// surrogate U+FFFD.
			r := getu4(d.s[d.i:])
			if r < 0 {
				return "", false
			}
			d.i += 6
			if utf16.IsSurrogate(r) {
				if dec := utf16.DecodeRune(r, getu4(d.s[d.i:])); dec != unicode.ReplacementChar {
					r = dec
					d.i += 6
				} else {
					r = unicode.ReplacementChar
				}
			}
			b.WriteRune(r)
			run = d.i
			continue
		default:
			return "", false
		}
		d.i += 2
		run = d.i
	}
	return "", false
}

// getu4 decodes \uXXXX at the start of s, or returns -1.
func getu4(s string) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range []byte(s[2:6]) {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
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
