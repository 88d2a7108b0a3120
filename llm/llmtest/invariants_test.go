package llmtest

import (
	"fmt"
	"strings"
	"testing"
)

// errLog is a testing.TB that keeps Errorf messages instead of failing.
type errLog struct {
	testing.TB
	errs []string
}

func (r *errLog) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *errLog) Helper() {}

func reqs(bodies ...string) []Captured {
	out := make([]Captured, len(bodies))
	for i, b := range bodies {
		out[i] = Captured{Body: []byte(b)}
	}
	return out
}

// expect runs check and compares the reported errors with want, a list of
// substrings, one per expected error.
func expect(t *testing.T, check func(testing.TB), want ...string) {
	t.Helper()
	r := &errLog{TB: t}
	check(r)
	if len(r.errs) != len(want) {
		t.Fatalf("got %d errors, want %d:\n%s", len(r.errs), len(want), strings.Join(r.errs, "\n"))
	}
	for i, w := range want {
		if !strings.Contains(r.errs[i], w) {
			t.Errorf("error %d = %q, want it to contain %q", i, r.errs[i], w)
		}
	}
}

func TestCheckChat(t *testing.T) {
	call := func(id, args string) string {
		return `{"id":"` + id + `","type":"function","function":{"name":"f","arguments":` + args + `}}`
	}
	asst := func(calls ...string) string {
		return `{"role":"assistant","tool_calls":[` + strings.Join(calls, ",") + `]}`
	}
	tool := func(id string) string { return `{"role":"tool","tool_call_id":"` + id + `","content":"ok"}` }
	body := func(msgs ...string) string {
		return `{"messages":[{"role":"user","content":"hi"},` + strings.Join(msgs, ",") + `]}`
	}
	tests := []struct {
		name string
		body string
		want []string
	}{
		{"answered", body(asst(call("a", `"{}"`), call("b", `"{\"x\":1}"`)), tool("a"), tool("b"), `{"role":"assistant","content":"done"}`), nil},
		{"unanswered", body(asst(call("a", `"{}"`)), `{"role":"user","content":"?"}`), []string{`call "a" has no tool message`}},
		{"answered twice", body(asst(call("a", `"{}"`)), tool("a"), tool("a")), []string{`call "a" answered twice`}},
		{"orphan", body(asst(call("a", `"{}"`)), tool("a"), `{"role":"user","content":"x"}`, tool("a")), []string{`answers "a", which is not a call`}},
		{"null arguments", body(asst(call("a", `"null"`)), tool("a")), []string{`arguments are "null"`}},
		{"empty arguments", body(asst(call("a", `""`)), tool("a")), []string{`arguments are ""`}},
		{"arguments not a string", body(asst(call("a", `{}`)), tool("a")), []string{"must be a JSON string"}},
		{"not JSON", `{`, []string{"not JSON"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expect(t, func(tb testing.TB) { CheckChat(tb, reqs(tt.body)) }, tt.want...)
		})
	}
}

func TestCheckResponses(t *testing.T) {
	served := ResponsesReply(ResponsesReasoning("rs_1", "ENC"), ResponsesFunctionCall("c1", "f", `{}`), ResponsesCompleted(1, 1))
	fc := func(id, args string) string {
		return `{"type":"function_call","call_id":"` + id + `","name":"f","arguments":` + args + `}`
	}
	out := func(id string) string { return `{"type":"function_call_output","call_id":"` + id + `","output":"ok"}` }
	rs := func(id, enc string) string {
		return `{"type":"reasoning","id":"` + id + `","summary":[],"encrypted_content":"` + enc + `"}`
	}
	body := func(items ...string) string {
		return `{"store":false,"input":[{"role":"user","content":"hi"},` + strings.Join(items, ",") + `]}`
	}
	tests := []struct {
		name string
		body string
		want []string
	}{
		{"good", body(rs("rs_1", "ENC"), fc("c1", `"{}"`), out("c1")), nil},
		{"unanswered", body(fc("c1", `"{}"`)), []string{`call "c1" has no function_call_output`}},
		{"orphan output", body(out("zz")), []string{`answers "zz", which no earlier function_call made`}},
		{"answered twice", body(fc("c1", `"{}"`), out("c1"), out("c1")), []string{`call "c1" answered twice`}},
		{"null input", body(fc("c1", `null`), out("c1")), []string{"missing or JSON null"}},
		{"object input", body(fc("c1", `{}`), out("c1")), []string{"must be a JSON string"}},
		{"reasoning changed", body(rs("rs_1", "ENC2"), fc("c1", `"{}"`), out("c1")), []string{`reasoning "rs_1": encrypted_content was changed`}},
		{"reasoning without content", body(rs("rs_9", ""), fc("c1", `"{}"`), out("c1")), []string{`reasoning "rs_9" has no encrypted_content`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expect(t, func(tb testing.TB) { CheckResponses(tb, reqs(tt.body), served) }, tt.want...)
		})
	}
}

func TestCheckAppendOnly(t *testing.T) {
	tests := []struct {
		name   string
		bodies []string
		want   []string
	}{
		{"chat grows", []string{`{"tools":[1],"messages":[{"a":1}]}`, `{"tools":[1], "messages":[{"a": 1},{"b":2}]}`}, nil},
		{"responses grows", []string{`{"input":[{"a":1}]}`, `{"input":[{"a":1},{"b":2}]}`, `{"input":[{"a":1},{"b":2},{"c":3}]}`}, nil},
		{"element changed", []string{`{"messages":[{"a":1},{"b":2}]}`, `{"messages":[{"a":1},{"b":3},{"c":4}]}`}, []string{"messages[1] differs from request 0"}},
		{"key order counts", []string{`{"messages":[{"a":1,"b":2}]}`, `{"messages":[{"b":2,"a":1}]}`}, []string{"messages[0] differs"}},
		{"shrank", []string{`{"input":[{"a":1},{"b":2}]}`, `{"input":[{"a":1}]}`}, []string{"fewer than the 2"}},
		{"tools changed", []string{`{"tools":[1],"messages":[]}`, `{"tools":[2],"messages":[]}`}, []string{`"tools" differs`}},
		{"no history", []string{`{"prompt":"x"}`}, []string{`neither "messages" nor "input"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expect(t, func(tb testing.TB) { CheckAppendOnly(tb, reqs(tt.bodies...)) }, tt.want...)
		})
	}
}
