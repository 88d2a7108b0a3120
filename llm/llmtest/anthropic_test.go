package llmtest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

type anthEv struct {
	Type         string
	Index        int
	ContentBlock map[string]any `json:"content_block"`
	Delta        map[string]any
	Message      struct{ Usage map[string]int64 }
	Usage        map[string]int64
}

func parseAnthEvents(t *testing.T, events []string) []anthEv {
	t.Helper()
	var out []anthEv
	for _, e := range events {
		name, data, ok := strings.Cut(strings.TrimSuffix(e, "\n\n"), "\ndata: ")
		if !ok || !strings.HasPrefix(name, "event: ") {
			t.Fatalf("not an SSE event: %q", e)
		}
		var ev anthEv
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("event data %q: %v", data, err)
		}
		if ev.Type != strings.TrimPrefix(name, "event: ") {
			t.Errorf("event name %q but type %q", name, ev.Type)
		}
		out = append(out, ev)
	}
	return out
}

func TestAnthropicEvents(t *testing.T) {
	events := parseAnthEvents(t, AnthropicEvents(
		AnthropicThinking("hmm", "sig-1"),
		AnthropicText("Hel", "lo"),
		AnthropicToolUse("toolu_1", "file_read", `{"path":"é.go"}`),
		AnthropicUsage(100, 20, 80, 5),
	))
	var types []string
	input := ""
	for _, ev := range events {
		types = append(types, ev.Type)
		if ev.Type == "content_block_delta" && ev.Delta["type"] == "input_json_delta" {
			if ev.Index != 2 {
				t.Errorf("input delta at index %d, want 2", ev.Index)
			}
			input += ev.Delta["partial_json"].(string)
		}
	}
	want := "message_start content_block_start content_block_delta content_block_delta content_block_stop " +
		"content_block_start content_block_delta content_block_delta content_block_stop " +
		"content_block_start content_block_delta content_block_delta content_block_stop message_delta message_stop"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("event sequence:\n got %s\nwant %s", got, want)
	}
	if input != `{"path":"é.go"}` {
		t.Errorf("tool input fragments join to %q", input)
	}
	if u := events[0].Message.Usage; u["input_tokens"] != 100 || u["cache_read_input_tokens"] != 80 || u["cache_creation_input_tokens"] != 5 {
		t.Errorf("message_start usage = %v", u)
	}
	md := events[len(events)-2]
	if md.Delta["stop_reason"] != "tool_use" || md.Usage["output_tokens"] != 20 {
		t.Errorf("message_delta = %+v; want stop tool_use, 20 output tokens", md)
	}
}

func TestAnthropicStopOverride(t *testing.T) {
	events := parseAnthEvents(t, AnthropicEvents(AnthropicStop("max_tokens"), AnthropicToolUse("t", "f", "")))
	if got := events[len(events)-2].Delta["stop_reason"]; got != "max_tokens" {
		t.Errorf("stop_reason = %v, want max_tokens", got)
	}
}

// recorder is a testing.TB that keeps the errors a check reports.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func anthBody(messages string) Captured {
	return Captured{Body: []byte(`{"model":"m","max_tokens":10,"messages":[` + messages + `]}`)}
}

func TestCheckAnthropic(t *testing.T) {
	const user = `{"role":"user","content":"hi"}`
	use := func(id, input string) string {
		return `{"type":"tool_use","id":"` + id + `","name":"f","input":` + input + `}`
	}
	result := func(id string) string { return `{"type":"tool_result","tool_use_id":"` + id + `","content":"ok"}` }
	asst := func(blocks ...string) string {
		return `{"role":"assistant","content":[` + strings.Join(blocks, ",") + `]}`
	}
	answer := func(blocks ...string) string { return `{"role":"user","content":[` + strings.Join(blocks, ",") + `]}` }
	think := func(text, sig string) string {
		return `{"type":"thinking","thinking":"` + text + `","signature":"` + sig + `"}`
	}
	cc := `,"cache_control":{"type":"ephemeral"}`
	tests := []struct {
		name   string
		reqs   []Captured
		served []Reply
		want   string // substring of the one expected error, "" for none
	}{
		{name: "valid loop", reqs: []Captured{anthBody(user + "," + asst(think("t", "s1"), use("a", `{}`), use("b", `{"x":1}`)) + "," + answer(result("a"), result("b")))}},
		{name: "unanswered", reqs: []Captured{anthBody(user + "," + asst(use("a", `{}`), use("b", `{}`)) + "," + answer(result("a")))}, want: "tool_use b answered 0 times"},
		{name: "answered twice", reqs: []Captured{anthBody(user + "," + asst(use("a", `{}`)) + "," + answer(result("a"), result("a")))}, want: "answered 2 times"},
		{name: "orphan result", reqs: []Captured{anthBody(user + "," + asst(use("a", `{}`)) + "," + answer(result("a"), result("z")))}, want: `tool_result for "z"`},
		{name: "null input", reqs: []Captured{anthBody(user + "," + asst(use("a", `null`)) + "," + answer(result("a")))}, want: "input is null"},
		{name: "no answer message", reqs: []Captured{anthBody(user + "," + asst(use("a", `{}`)))}, want: "not followed by a user message"},
		{name: "unsigned thinking", reqs: []Captured{anthBody(user + "," + asst(think("t", "")))}, want: "without a signature"},
		{name: "signature changed", reqs: []Captured{
			anthBody(user + "," + asst(think("t", "s1"), `{"type":"text","text":"x"}`) + "," + user),
			anthBody(user + "," + asst(think("t", "s2"), `{"type":"text","text":"x"}`) + "," + user),
		}, want: "signature changed"},
		{name: "five breakpoints", reqs: []Captured{{Body: []byte(`{"system":[{"type":"text","text":"s"` + cc + `}],` +
			`"tools":[{"name":"a"` + cc + `},{"name":"b"` + cc + `}],"messages":[{"role":"user","content":[` +
			`{"type":"text","text":"1"` + cc + `},{"type":"text","text":"2"` + cc + `}]}]}`)}}, want: "5 cache_control breakpoints"},
		{name: "signature as served", reqs: []Captured{anthBody(user), anthBody(user + "," + asst(think("t", "sig-A")) + "," + user)},
			served: []Reply{AnthropicReply(AnthropicThinking("t", "sig-A"))}},
		{name: "signature altered", reqs: []Captured{anthBody(user), anthBody(user + "," + asst(think("t", "sig-B")) + "," + user)},
			served: []Reply{AnthropicReply(AnthropicThinking("t", "sig-A"))}, want: `"sig-B" is not one the model sent`},
		{name: "redacted as served", reqs: []Captured{anthBody(user), anthBody(user + "," + asst(`{"type":"redacted_thinking","data":"enc"}`) + "," + user)},
			served: []Reply{AnthropicReply(AnthropicRedactedThinking("enc"))}},
		{name: "not JSON", reqs: []Captured{{Body: []byte("{")}}, want: "not a Messages request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			CheckAnthropic(rec, tt.reqs, tt.served...)
			switch {
			case tt.want == "" && len(rec.errs) > 0:
				t.Errorf("unexpected errors: %q", rec.errs)
			case tt.want != "" && (len(rec.errs) != 1 || !strings.Contains(rec.errs[0], tt.want)):
				t.Errorf("errors %q; want one containing %q", rec.errs, tt.want)
			}
		})
	}
}
