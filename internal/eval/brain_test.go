package eval

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/godwit/godwit/internal/handoff"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/fake"
)

// script reads a Script from YAML.
func script(t *testing.T, src string) *Script {
	t.Helper()
	var s Script
	dec := yaml.NewDecoder(strings.NewReader(src))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// Requests, built as the engine builds them.
func userReq(msgs ...llm.Message) llm.Request { return llm.Request{System: "sys", Messages: msgs} }

func toolTurn(name, output string, failed bool) []llm.Message {
	return []llm.Message{
		llm.UserText("do it"),
		{Role: llm.RoleAssistant, Parts: []llm.Part{{Kind: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "c1", Name: name, Args: json.RawMessage(`{}`)}}}},
		{Role: llm.RoleTool, Parts: []llm.Part{{Kind: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: "c1", Content: output, IsError: failed}}}},
	}
}

var ledger = []handoff.Entry{
	{Seq: 1, Source: "user", Turn: 1, Text: "Rule: never edit vendor/."},
	{Seq: 2, Source: "user", Turn: 2, Topic: "A", Text: "Topic A: tabs are fine."},
	{Seq: 3, Source: "user", Turn: 3, Topic: "B", Text: "Topic B: use LRU."},
	{Seq: 4, Source: "user", Turn: 4, Text: "New rule: vendor/acme is fine."},
}

const brainScript = `
rules:
  - when: {handoff: true}
    handoff:
      task: "Turn {{.Turn}} work"
      coordinates: ["a.go:3 F — here"]
      decisions:
        - '~ {{ref "Rule:"}} by {{ref "New rule:"}}'
        - '~ {{ref "Rule:"}} by {{ref "Never said"}}'
        - each: '^Topic (\w+):'
          line: '@ {{.Entry}} {{index .Match 1}}'
  - when: {user: 'read (\S+)', turn: 1}
    think: planning
    say: Reading {{index .Match 1}}.
    call:
      - file_read: {path: '{{index .Match 1}}', opts: {lines: [1, '{{.Turn}}']}}
  - when: {user: 'read', request: 'secret'}
    say: I see the secret.
  - when: {user: 'read'}
    unless: {turn: 1}
    say: not turn one
  - when: {tool: shell_exec, failed: true}
    say: "failed: {{lines 1 .Output}}"
  - when: {tool: shell_exec, output: '(\d+) passed'}
    say: "{{index .Match 1}} tests pass; you asked: {{.User}}"
  - when: {engine: 'changed files'}
    say: nothing to test
  - when: {user: 'break'}
    fail: provider down
  - when: {user: 'bad ref'}
    say: '{{ref "nothing like this"}}'
`

func TestBrain(t *testing.T) {
	t.Parallel()
	instr := llm.UserText(handoff.Instruction(handoff.RenderLedger(ledger, handoff.LedgerOptions{}).Text))
	cases := []struct {
		name string
		turn int
		req  llm.Request
		want fake.Step
		err  string
	}{
		{
			name: "handoff refs, dropped line, each",
			turn: 5,
			req:  userReq(llm.UserText("hi"), instr),
			want: fake.Step{Text: "## Current task\nTurn 5 work\n## Coordinates\n- a.go:3 F — here\n## Verification\nnone\n" +
				"## Progress and blockers\nnone\n## Next step\nnone\n## Decisions\n~ D1 by D4\n@ D2 A\n@ D3 B\n"},
		},
		{
			name: "user match into thinking, text and nested args",
			turn: 1,
			req:  userReq(llm.UserText("please read a.go now")),
			want: fake.Step{Thinking: "planning", Text: "Reading a.go.", ToolCalls: []llm.ToolCall{
				fake.Call("call_1", "file_read", map[string]any{"path": "a.go", "opts": map[string]any{"lines": []any{1, "1"}}})}},
		},
		{name: "request condition", turn: 2, req: userReq(llm.UserText("the secret"), llm.UserText("read it")), want: fake.Step{Text: "I see the secret."}},
		{name: "not condition", turn: 2, req: userReq(llm.UserText("read it")), want: fake.Step{Text: "not turn one"}},
		{name: "failed tool", req: userReq(toolTurn("shell_exec", "boom\nmore", true)...), want: fake.Step{Text: "failed: boom"}},
		{name: "tool output match and the user's words", req: userReq(toolTurn("shell_exec", "12 passed", false)...), want: fake.Step{Text: "12 tests pass; you asked: do it"}},
		{name: "engine note", req: userReq(llm.UserText("x"), llm.UserText("[godwit check] You changed files but ran nothing")), want: fake.Step{Text: "nothing to test"}},
		{name: "fail action", req: userReq(llm.UserText("break")), err: "provider down"},
		{name: "ref outside decisions fails", req: userReq(llm.UserText("bad ref")), err: `no standing ledger entry contains the text "nothing like this"`},
		{name: "no rule", turn: 3, req: userReq(toolTurn("file_read", "x", false)...), err: `no model rule answers request 3 (tool result "file_read: x") in turn 3`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := NewBrain("s/t", script(t, brainScript))
			if err != nil {
				t.Fatal(err)
			}
			b.SetTurn(c.turn)
			got := b.Step(c.req)
			if c.err != "" {
				if got.Err == nil || !strings.Contains(got.Err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", got.Err, c.err)
				}
				return
			}
			if got.Err != nil {
				t.Fatal(got.Err)
			}
			if g, w := mustJSON(t, got), mustJSON(t, c.want); g != w {
				t.Errorf("step\n got %s\nwant %s", g, w)
			}
		})
	}
}

func mustJSON(t *testing.T, v fake.Step) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(struct {
		Thinking, Text string
		Calls          []llm.ToolCall
	}{v.Thinking, v.Text, v.ToolCalls}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Once the engine marks an entry superseded it shows no text, so a
// supersession is proposed once; the engine parses what the brain wrote.
func TestBrainHandoffRoundTrip(t *testing.T) {
	t.Parallel()
	b, err := NewBrain("s/t", script(t, brainScript))
	if err != nil {
		t.Fatal(err)
	}
	step := b.Step(userReq(llm.UserText(handoff.Instruction(handoff.RenderLedger(ledger, handoff.LedgerOptions{}).Text))))
	d := handoff.Parse(step.Text)
	if len(d.Supersede) != 1 || d.Supersede[0] != (handoff.Supersession{Old: 1, By: 4}) || d.Topics[2] != "A" || d.Topics[3] != "B" {
		t.Fatalf("the engine read %+v from %q", d, step.Text)
	}
	after := append([]handoff.Entry(nil), ledger...)
	after[0].SupersededBy = 4
	step = b.Step(userReq(llm.UserText(handoff.Instruction(handoff.RenderLedger(after, handoff.LedgerOptions{}).Text))))
	if d := handoff.Parse(step.Text); len(d.Supersede) != 0 {
		t.Errorf("proposed again: %+v", d.Supersede)
	}
}

func TestParseLedger(t *testing.T) {
	t.Parallel()
	entries := []handoff.Entry{
		{Seq: 1, Source: "user", Turn: 1, Text: "Rule one."},
		{Seq: 2, Source: "user", Turn: 2, Topic: "A", Text: "line one\nline two"},
		{Seq: 3, Source: "model", Turn: 2, Topic: "A", Text: "agreed thing"},
		{Seq: 4, Source: "user", Turn: 3, Topic: "B", Text: "b stuff", SupersededBy: 5},
		{Seq: 5, Source: "user", Turn: 4, Topic: "B", Text: "b newer"},
	}
	h := handoff.Handoff{Segment: 2, Task: "t", Decisions: handoff.RenderLedger(entries, handoff.LedgerOptions{}).Text}
	// An older ledger earlier in the request loses to the newer one.
	older := handoff.Handoff{Segment: 1, Decisions: handoff.RenderLedger(entries[:1], handoff.LedgerOptions{}).Text}
	req := userReq(llm.UserText(older.Render()), llm.UserText("- D9 (user, turn 9): not a ledger, just text\nbut more"), llm.UserText(h.Render()))
	got := ledgerOf(req)
	want := []ledgerEntry{
		{Seq: 1, Turn: 1, User: true, Text: "Rule one."},
		{Seq: 2, Turn: 2, User: true, Text: "line one\nline two", Topic: "A"},
		{Seq: 3, Text: "agreed thing", Topic: "A"},
		{Seq: 4, Turn: 3, User: true, SupersededBy: 5, Topic: "B"},
		{Seq: 5, Turn: 4, User: true, Text: "b newer", Topic: "B"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}
