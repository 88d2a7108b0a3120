package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// counter counts o200k tokens, cached by content: a session's history is
// counted once, item by item, not per request.
type counter struct {
	enc   tokenizer.Codec
	mu    sync.Mutex
	cache map[string]int
}

func newCounter() (*counter, error) {
	enc, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		return nil, fmt.Errorf("loading the o200k tokenizer: %w", err)
	}
	return &counter{enc: enc, cache: map[string]int{}}, nil
}

// count is the o200k count of s.
func (c *counter) count(s string) int {
	if s == "" {
		return 0
	}
	c.mu.Lock()
	n, ok := c.cache[s]
	c.mu.Unlock()
	if ok {
		return n
	}
	n, err := c.enc.Count(s)
	if err != nil {
		n = (len(s) + 3) / 4
	}
	c.mu.Lock()
	c.cache[s] = n
	c.mu.Unlock()
	return n
}

// perItem is what a provider adds for each message or block (role
// markers, separators), roughly.
const perItem = 4

// itemTokens is what the provider bills for an item: the o200k count of
// the text it carries (JSON strings decoded; a tool definition's keys
// count too, as its schema is shown to the model), not of its JSON
// syntax, plus a few tokens of framing.
func (c *counter) itemTokens(it item) int {
	return c.count(renderText(it.raw, it.kind == "tool")) + perItem
}

// skipValue names keys whose string values are wire bookkeeping the model
// does not read as text.
var skipValue = map[string]bool{"type": true, "role": true, "id": true, "call_id": true, "tool_call_id": true,
	"tool_use_id": true, "status": true}

// renderText writes the strings (and numbers) of a JSON value in order,
// decoded, one per line; with keys, object keys too.
func renderText(raw []byte, keys bool) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var b strings.Builder
	// value writes the next value; key is the object key it is under
	// ("" in an array or at the top).
	var value func(key string) error
	value = func(key string) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch v := tok.(type) {
		case json.Delim:
			for dec.More() {
				k := ""
				if v == '{' {
					kt, _ := dec.Token()
					k, _ = kt.(string)
					if keys {
						b.WriteString(k)
						b.WriteString(": ")
					}
				}
				if err := value(k); err != nil {
					return err
				}
			}
			_, err = dec.Token() // the closing delimiter
			return err
		case string:
			if !skipValue[key] {
				b.WriteString(v)
				b.WriteByte('\n')
			}
		case json.Number:
			b.WriteString(v.String())
			b.WriteByte('\n')
		}
		return nil
	}
	_ = value("")
	return b.String()
}
