package llmtest

import (
	"encoding/json"
	"testing"
)

func TestContentText(t *testing.T) {
	for _, tc := range []struct{ raw, want string }{
		{`"hi"`, "hi"},
		{`[{"type":"text","text":"a"},{"type":"input_text","text":"b"}]`, "a\nb"},
		{`[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"out"}]}]`, "out"},
		{`[{"type":"tool_result","content":"plain"},{"type":"image"}]`, "plain"},
		{``, ""},
		{`null`, ""},
		{`5`, ""},
	} {
		if got := ContentText(json.RawMessage(tc.raw)); got != tc.want {
			t.Errorf("ContentText(%s) = %q, want %q", tc.raw, got, tc.want)
		}
	}
}
