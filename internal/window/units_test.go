package window

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/godwit/godwit/llm"
)

func TestCounter(t *testing.T) {
	c := NewCounter()
	if n := c.Count("hello, world"); n < 2 || n > 5 || c.Count("hello, world") != n {
		t.Errorf("Count = %d", n)
	}
	if c.Count("") != 0 {
		t.Error("counts the empty string")
	}
	// The ratio moves toward what the provider reports and ignores
	// reports that cannot be a count of the same request.
	c.Calibrate(1000, 1200)
	if r := c.Ratio(); r <= 1 || r >= 1.2 {
		t.Errorf("ratio %f after one report of 1.2", r)
	}
	before := c.Ratio()
	c.Calibrate(1000, 100)
	c.Calibrate(0, 100)
	if c.Ratio() != before {
		t.Error("an odd report moved the ratio")
	}
}

func TestTrimLeadingResults(t *testing.T) {
	res := llm.Message{Role: llm.RoleTool, Parts: []llm.Part{{Kind: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: "c"}}}}
	got := TrimLeadingResults([]llm.Message{res, llm.AssistantText("a"), llm.UserText("u"), llm.AssistantText("b")})
	if len(got) != 2 || got[0].Text() != "u" {
		t.Errorf("got %+v", got)
	}
}

func TestStubSummaryDescribe(t *testing.T) {
	call := func(name, args string) llm.ToolCall {
		return llm.ToolCall{ID: "c", Name: name, Args: json.RawMessage(args)}
	}
	long := strings.Repeat("ok line\n", 30) + "FAIL: TestX expected 3\n" + strings.Repeat("more\n", 30)
	tests := []struct {
		c       llm.ToolCall
		raw     string
		stub    []string
		summary []string
	}{
		{call("shell_exec", `{"command": "go test ./..."}`), long,
			[]string{`shell_exec "go test ./..."`, "61 lines", "first error: FAIL: TestX expected 3", `recall("p3")`},
			[]string{"[summarized p3", "61 lines", "ok line", "FAIL: TestX expected 3", "more"}},
		{call("file_read", `{"path": "a.go"}`), "1\tpackage a\n", []string{`file_read "a.go" output, line 1;`}, []string{"1\tpackage a"}},
		// Source says "error" everywhere: a read's stub names no error line.
		{call("file_read", `{"path": "a.go"}`), "1\tfunc f() error {\n2\t}\n", []string{`file_read "a.go" output, lines 1-2; recall("p3")`}, nil},
		{call("grep", `{"pattern": "TODO"}`), "a.go:1: TODO", []string{`grep "TODO"`}, []string{"a.go:1: TODO"}},
		{call("plan", `{}`), "x", []string{"[paged out p3: plan output"}, []string{"plan output"}},
		{call("shell_exec", `{"command": "`+strings.Repeat("x", 100)+`"}`), "x", []string{"xxx…"}, nil},
	}
	for _, tc := range tests {
		st, sum := Stub(tc.c, tc.raw, "p3", 0), Summary(tc.c, tc.raw, "p3")
		for _, w := range tc.stub {
			if !strings.Contains(st, w) {
				t.Errorf("stub %q lacks %q", st, w)
			}
		}
		for _, w := range tc.summary {
			if !strings.Contains(sum, w) {
				t.Errorf("summary %q lacks %q", sum, w)
			}
		}
		if strings.Contains(st, "\n") {
			t.Errorf("stub spans lines: %q", st)
		}
	}
}

// items sees what the paging rules need: which outputs the model has
// answered from, which were read again later (stale), and how much that
// was already sent follows each.
func TestItemsAnsweredStaleAndAfter(t *testing.T) {
	w := New(Options{System: "sys", Budget: Scaled(32_000)})
	msgs := []llm.Message{llm.UserText("go")}
	add := func(id, name, args, out string) {
		msgs = append(msgs,
			llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{{Kind: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: id, Name: name, Args: json.RawMessage(args)}}}},
			llm.Message{Role: llm.RoleTool, Parts: []llm.Part{{Kind: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: id, Content: out}}}})
	}
	add("a", "file_read", `{"path": "x.go"}`, strings.Repeat("a", 400))
	add("b", "shell_exec", `{"command": "go test"}`, strings.Repeat("b", 400))
	add("c", "file_read", `{"path": "x.go"}`, strings.Repeat("c", 400)) // x.go again: a is stale
	add("d", "grep", `{"pattern": "q"}`, strings.Repeat("d", 400))      // not answered yet
	st := &segState{shown: map[string]Shown{"b": {CallID: "b", Level: LevelSummary, Text: "sum"}}, sent: 7}
	asm, acc := w.build(st, msgs)
	got := w.items(st, asm.Request.Messages, acc)
	type row struct {
		id              string
		answered, stale bool
		level, after    int
	}
	var rows []row
	for _, it := range got {
		rows = append(rows, row{it.id, it.answered, it.stale, it.level, it.after})
	}
	// after: the messages past the item's that the previous request had
	// (the first 7).
	want := []row{
		{"a", true, true, LevelRaw, acc.msgs[3] + acc.msgs[4] + acc.msgs[5] + acc.msgs[6]},
		{"b", true, false, LevelSummary, acc.msgs[5] + acc.msgs[6]},
		{"c", true, false, LevelRaw, 0},
		{"d", false, false, LevelRaw, 0},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("items = %+v\nwant    %+v", rows, want)
	}
}

// An output is live while the turn it came in works with it: not one of
// an earlier turn, not keepHorizon replies old, not run again since (a
// read on from another line is another call).
func TestLiveOutputs(t *testing.T) {
	w := New(Options{System: "sys", Budget: Scaled(32_000)})
	var msgs []llm.Message
	add := func(id, name, args string) {
		msgs = append(msgs,
			llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{{Kind: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: id, Name: name, Args: json.RawMessage(args)}}}},
			llm.Message{Role: llm.RoleTool, Parts: []llm.Part{{Kind: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: id, Content: strings.Repeat(id, 400)}}}})
	}
	msgs = append(msgs, llm.UserText("read y.go"))
	add("old", "file_read", `{"path": "y.go"}`) // an earlier turn's
	msgs = append(msgs, llm.AssistantText("ok"), llm.UserText("fix x.go"))
	st := &segState{shown: map[string]Shown{}, turnFrom: len(msgs) - 1}
	add("x", "file_read", `{"path": "x.go"}`) // keepHorizon replies follow it
	add("x2", "file_read", `{"path": "x.go","start_line":900}`)
	add("t1", "shell_exec", `{"command": "go test"}`)
	add("t2", "shell_exec", `{"command": "go test"}`) // t1 ran again
	for range keepHorizon - 3 {
		add("e", "file_edit", `{"path": "x.go"}`)
	}
	asm, acc := w.build(st, msgs)
	live := map[string]bool{}
	for _, it := range w.items(st, asm.Request.Messages, acc) {
		live[it.id] = it.live
	}
	want := map[string]bool{"old": false, "x": false, "x2": true, "t1": false, "t2": true}
	for id, l := range want {
		if live[id] != l {
			t.Errorf("%s: live %v, want %v", id, live[id], l)
		}
	}
}
