package llmtest

import (
	"encoding/json"
	"strings"
)

// ContentText is the text of a message's content as any of the three
// wire formats writes it: a string, or parts whose text (or, in an
// Anthropic tool_result, nested content) is joined by newlines.
func ContentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text    string          `json:"text"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var texts []string
	for _, p := range parts {
		t := p.Text
		if t == "" && len(p.Content) > 0 {
			t = ContentText(p.Content)
		}
		if t != "" {
			texts = append(texts, t)
		}
	}
	return strings.Join(texts, "\n")
}
