package main

import (
	"encoding/json"
	"testing"
)

// jsonArgs encodes a tool call's arguments.
func jsonArgs(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// toolResult returns the content of the result for call id in a Chat
// Completions request body.
func toolResult(t *testing.T, body []byte, id string) string {
	t.Helper()
	var req struct {
		Messages []struct {
			Content    string `json:"content"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	for _, m := range req.Messages {
		if m.ToolCallID == id {
			return m.Content
		}
	}
	t.Fatalf("no result for %s", id)
	return ""
}
