package llm

import (
	"encoding/json"
	"testing"
)

// A history goes through the store as JSON; tool-call arguments must come
// back as the model wrote them, or a resumed session breaks the cache.
func TestToolCallArgsRoundTripByteForByte(t *testing.T) {
	for _, args := range []string{
		`{"path":"a"}`,
		`{"path": "a"}`,
		"{\n  \"command\": \"go test ./...\"\n}",
		`{"command":"echo '<b>' && ls"}`,
		"{\"text\":\"a\u2028b\"}",
		`not json at all`,
	} {
		m := Message{Role: RoleAssistant, Parts: []Part{{Kind: PartToolCall, ToolCall: &ToolCall{ID: "c1", Name: "x", Args: json.RawMessage(args)}}}}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		if !json.Valid(b) {
			t.Fatalf("%q: invalid record %s", args, b)
		}
		var back Message
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		if got := string(back.Parts[0].ToolCall.Args); got != args {
			t.Errorf("args %q came back as %q (record %s)", args, got, b)
		}
	}
}

func TestCompactArgsAddNothing(t *testing.T) {
	if b, err := json.Marshal(ToolCall{ID: "c", Args: json.RawMessage("")}); err != nil || string(b) != `{"id":"c","name":"","args":null}` {
		t.Errorf("empty args: %s, %v", b, err)
	}
	b, _ := json.Marshal(ToolCall{ID: "c", Name: "x", Args: json.RawMessage(`{"a":1}`)})
	if string(b) != `{"id":"c","name":"x","args":{"a":1}}` {
		t.Errorf("record = %s", b)
	}
}

func TestToolSpecSchemaRoundTripsByteForByte(t *testing.T) {
	for _, schema := range []string{`{"type":"object"}`, "{\n  \"type\": \"object\"\n}", ``} {
		b, err := json.Marshal(ToolSpec{Name: "x", Schema: json.RawMessage(schema)})
		if err != nil {
			t.Fatal(err)
		}
		var back ToolSpec
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if got := string(back.Schema); got != schema && !(schema == "" && got == "null") {
			t.Errorf("schema %q came back as %q", schema, got)
		}
	}
}
