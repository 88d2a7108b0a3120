package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// OpenRouter streams reasoning_details, an array of reasoning blocks, in
// fragments: each delta holds pieces of one or more blocks, a block
// named by its "index". Text and summaries come in pieces; a signature,
// encrypted data, an id or a format come once, often after the text (an
// empty "signature": "" may come first). detailsMerger puts the pieces
// back together, keeping each block's keys in the order they first came
// and every key it does not know, so the block goes back as the upstream
// model wrote it.
type detailsMerger struct {
	blocks []*detailBlock
}

type detailBlock struct {
	index string // the raw "index" value; "" for a block without one
	keys  []string
	vals  map[string]json.RawMessage
}

// concatenated reports whether the string pieces of key k join:
// everything else is whole in one fragment.
func concatenated(k string) bool { return k == "text" || k == "summary" }

// add merges one delta's reasoning_details (a JSON array, or null).
func (m *detailsMerger) add(raw string) error {
	raw = strings.TrimSpace(raw)
	if raw == "" || raw == "null" {
		return nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal([]byte(raw), &items); err != nil {
		return fmt.Errorf("reasoning_details is not an array: %w", err)
	}
	for _, it := range items {
		keys, vals, err := orderedObject(it)
		if err != nil {
			return fmt.Errorf("a reasoning_details entry: %w", err)
		}
		idx := ""
		if v, ok := vals["index"]; ok {
			idx = string(v)
		}
		b := m.block(idx)
		for _, k := range keys {
			b.set(k, vals[k])
		}
	}
	return nil
}

// block returns the block of index idx, adding one when idx is new (or
// empty: a block without an index stands alone).
func (m *detailsMerger) block(idx string) *detailBlock {
	if idx != "" {
		for _, b := range m.blocks {
			if b.index == idx {
				return b
			}
		}
	}
	b := &detailBlock{index: idx, vals: map[string]json.RawMessage{}}
	m.blocks = append(m.blocks, b)
	return b
}

func (b *detailBlock) set(k string, v json.RawMessage) {
	old, seen := b.vals[k]
	if !seen {
		b.keys = append(b.keys, k)
		b.vals[k] = v
		return
	}
	if empty(v) {
		return // a later null or "" never erases what came
	}
	if concatenated(k) {
		var a, c string
		if json.Unmarshal(old, &a) == nil && json.Unmarshal(v, &c) == nil {
			b.vals[k] = jsonString(a + c)
			return
		}
	}
	b.vals[k] = v
}

func empty(v json.RawMessage) bool {
	s := strings.TrimSpace(string(v))
	return s == "null" || s == `""`
}

// jsonString encodes s as encoding/json does, without escaping <, > and
// & (reasoning is prose).
func jsonString(s string) json.RawMessage {
	b, _ := encode(s) // a string always encodes
	return b
}

// JSON returns the merged array, "" when no block came.
func (m *detailsMerger) JSON() string {
	if len(m.blocks) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteByte('[')
	for i, blk := range m.blocks {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('{')
		for j, k := range blk.keys {
			if j > 0 {
				b.WriteByte(',')
			}
			b.Write(jsonString(k))
			b.WriteByte(':')
			var c bytes.Buffer
			if json.Compact(&c, blk.vals[k]) == nil {
				b.Write(c.Bytes())
			} else {
				b.Write(blk.vals[k])
			}
		}
		b.WriteByte('}')
	}
	b.WriteByte(']')
	return b.String()
}

// orderedObject decodes a JSON object into its keys, in order, and raw
// values.
func orderedObject(raw json.RawMessage) ([]string, map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	t, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return nil, nil, fmt.Errorf("not an object: %s", raw)
	}
	var keys []string
	vals := map[string]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		if _, dup := vals[k]; !dup {
			keys = append(keys, k)
		}
		vals[k] = v
	}
	return keys, vals, nil
}

// joinDetails concatenates reasoning_details arrays (one per thinking
// block of a message) into the one array the message sends back, compact.
func joinDetails(arrays []string) (json.RawMessage, error) {
	var all []json.RawMessage
	for _, a := range arrays {
		var items []json.RawMessage
		if err := json.Unmarshal([]byte(a), &items); err != nil {
			return nil, fmt.Errorf("stored reasoning_details is not an array: %w", err)
		}
		all = append(all, items...)
	}
	return json.Marshal(all)
}
