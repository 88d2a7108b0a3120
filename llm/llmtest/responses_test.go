package llmtest

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestResponsesBuilders(t *testing.T) {
	body := ResponsesReply(
		ResponsesReasoning("rs_1", "ENC", "a", "b"),
		ResponsesText("Hel", "lo"),
		ResponsesFunctionCall("call_1", "grep", `{"p":1}`),
		ResponsesCompletedCached(10, 2, 4, 1)).Body
	var types []string
	var text, args, summary string
	var done []map[string]any
	for _, d := range sseData(body) {
		var ev map[string]any
		if err := json.Unmarshal([]byte(d), &ev); err != nil {
			t.Fatalf("event is not JSON: %v", err)
		}
		typ := ev["type"].(string)
		if n := len(types); n == 0 || types[n-1] != typ {
			types = append(types, typ)
		}
		switch typ {
		case "response.output_text.delta":
			text += ev["delta"].(string)
		case "response.function_call_arguments.delta":
			args += ev["delta"].(string)
		case "response.reasoning_summary_text.delta":
			summary += ev["delta"].(string)
		case "response.output_item.done":
			done = append(done, ev["item"].(map[string]any))
		}
	}
	want := "response.created response.output_item.added response.reasoning_summary_text.delta response.output_item.done " +
		"response.output_item.added response.output_text.delta response.output_item.done " +
		"response.output_item.added response.function_call_arguments.delta response.function_call_arguments.done response.output_item.done response.completed"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("event types:\n got %s\nwant %s", got, want)
	}
	if text != "Hello" || args != `{"p":1}` || summary != "ab" {
		t.Errorf("text=%q args=%q summary=%q", text, args, summary)
	}
	if len(done) != 3 || done[0]["encrypted_content"] != "ENC" || done[2]["call_id"] != "call_1" || done[2]["arguments"] != `{"p":1}` {
		t.Errorf("done items = %v", done)
	}
	if ids := servedReasoning([]Reply{{Body: body}}); ids["rs_1"] != "ENC" {
		t.Errorf("servedReasoning = %v", ids)
	}
}
