package window

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/godwit/godwit/llm"
)

func call(id string) llm.Part {
	return llm.Part{Kind: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: id, Name: "t", Args: json.RawMessage(`{}`)}}
}

func result(id string) llm.Part {
	return llm.Part{Kind: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: id, Content: "r" + id}}
}

func asst(parts ...llm.Part) llm.Message  { return llm.Message{Role: llm.RoleAssistant, Parts: parts} }
func tools(parts ...llm.Part) llm.Message { return llm.Message{Role: llm.RoleTool, Parts: parts} }

// shape renders a history compactly: u, a[c1 c2], t[c1 c2!] (! = cancelled).
func shape(msgs []llm.Message) string {
	var out []string
	for _, m := range msgs {
		var ids []string
		for _, p := range m.Parts {
			switch p.Kind {
			case llm.PartToolCall:
				ids = append(ids, p.ToolCall.ID)
			case llm.PartToolResult:
				id := p.ToolResult.CallID
				if p.ToolResult.Content == CancelledResult {
					id += "!"
				}
				ids = append(ids, id)
			}
		}
		s := string(m.Role[0])
		if len(ids) > 0 {
			s += "[" + strings.Join(ids, " ") + "]"
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

func TestRepair(t *testing.T) {
	tests := []struct {
		name      string
		in        []llm.Message
		want      string
		wantAdded string
	}{
		{"whole history unchanged",
			[]llm.Message{llm.UserText("q"), asst(call("1")), tools(result("1")), llm.AssistantText("done")},
			"u a[1] t[1] a", ""},
		{"dangling call at the end is answered and persisted",
			[]llm.Message{llm.UserText("q"), asst(call("1"), call("2"))},
			"u a[1 2] t[1! 2!]", "t[1! 2!]"},
		{"missing result in the middle is filled in call order",
			[]llm.Message{llm.UserText("q"), asst(call("1"), call("2")), tools(result("2")), llm.UserText("next")},
			"u a[1 2] t[1! 2] u", ""},
		{"orphan results are dropped",
			[]llm.Message{llm.UserText("q"), tools(result("9")), llm.AssistantText("a")},
			"u a", ""},
		{"results for unknown calls and duplicates are dropped",
			[]llm.Message{asst(call("1")), tools(result("1"), result("1"), result("7"))},
			"a[1] t[1]", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := json.Marshal(tc.in)
			got, added := Repair(tc.in)
			if s := shape(got); s != tc.want {
				t.Errorf("Repair = %s, want %s", s, tc.want)
			}
			if s := shape(added); s != tc.wantAdded {
				t.Errorf("added = %q, want %q", s, tc.wantAdded)
			}
			after, _ := json.Marshal(tc.in)
			if string(before) != string(after) {
				t.Error("Repair mutated its input")
			}
		})
	}
}
