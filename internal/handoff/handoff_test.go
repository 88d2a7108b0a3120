package handoff

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/godwit/godwit/llm"
)

const modelText = `Here is the handoff.

## Current task
Add retries to the HTTP client in net/client.go; done when go test ./net passes.

## Coordinates
- net/client.go:42 Client.Do — the retry loop goes here
- net/client_test.go TestRetry — new test, failing
- not a path line

## Verification
go test ./net: FAIL TestRetry (expected 3 attempts, got 1)

## Progress and blockers
Wrote the test. Loop not written.

## Next step
Write the loop in Client.Do.

## Decisions
+ [net] use exponential backoff capped at 30s
~ D1 by D3
@ D2 net
`

func TestParse(t *testing.T) {
	d := Parse(modelText)
	if !strings.HasPrefix(d.Task, "Add retries") || !strings.HasPrefix(d.Next, "Write the loop") {
		t.Errorf("task/next = %q / %q", d.Task, d.Next)
	}
	want := []Coordinate{
		{File: "net/client.go", Line: 42, Symbol: "Client.Do", Note: "the retry loop goes here"},
		{File: "net/client_test.go", Symbol: "TestRetry", Note: "new test, failing"},
	}
	if len(d.Coordinates) != len(want) {
		t.Fatalf("coordinates = %+v", d.Coordinates)
	}
	for i := range want {
		if d.Coordinates[i] != want[i] {
			t.Errorf("coordinate %d = %+v, want %+v", i, d.Coordinates[i], want[i])
		}
	}
	if len(d.Proposals) != 1 || d.Proposals[0] != (Proposal{Topic: "net", Text: "use exponential backoff capped at 30s"}) {
		t.Errorf("proposals = %+v", d.Proposals)
	}
	if len(d.Supersede) != 1 || d.Supersede[0] != (Supersession{Old: 1, By: 3}) {
		t.Errorf("supersede = %+v", d.Supersede)
	}
	if d.Topics[2] != "net" {
		t.Errorf("topics = %v", d.Topics)
	}
}

func TestParseWithoutHeadingsKeepsEverything(t *testing.T) {
	d := Parse("just some prose about the work")
	if d.Progress != "just some prose about the work" {
		t.Errorf("progress = %q", d.Progress)
	}
}

func TestValidate(t *testing.T) {
	ledger := []Entry{
		{Seq: 1, Source: "user", Kind: KindInstruction, Text: "never use tabs in Go files"},
		{Seq: 2, Source: "model", Text: "agreed: spaces"},
		{Seq: 3, Source: "user", Kind: KindInstruction, Text: "tabs are fine now in `main.go`"},
		{Seq: 4, Source: "user", Kind: KindInstruction, Text: "x", SupersededBy: 5},
		{Seq: 5, Source: "user", Kind: KindInstruction, Text: "y"},
		{Seq: 6, Source: "user", Kind: KindRequest, Text: "read notes.txt and summarise it"},
		{Seq: 7, Source: "user", Kind: KindInstruction, Text: "never push to main"},
	}
	tests := []struct {
		s    Supersession
		fail string
	}{
		{Supersession{1, 3}, ""},
		{Supersession{2, 3}, "different things"},
		{Supersession{1, 2}, "only the user's words"},
		{Supersession{3, 1}, "cannot supersede the later"},
		{Supersession{4, 5}, "already superseded"},
		{Supersession{9, 5}, "no entry D9"},
		{Supersession{1, 9}, "no entry D9"},
		{Supersession{1, 6}, "a request, not an instruction"},
		{Supersession{1, 7}, "does not say that anything changes"},
	}
	for _, tc := range tests {
		err := Validate(ledger, tc.s)
		switch {
		case tc.fail == "" && err != nil:
			t.Errorf("%+v: %v", tc.s, err)
		case tc.fail != "" && (err == nil || !strings.Contains(err.Error(), tc.fail)):
			t.Errorf("%+v: err = %v, want %q", tc.s, err, tc.fail)
		}
	}
}

func TestRenderLedgerGroupsTopicsAndKeepsWordsVerbatim(t *testing.T) {
	got := RenderLedger([]Entry{
		{Seq: 1, Source: "user", Turn: 1, Text: "Never edit files under vendor/."},
		{Seq: 2, Source: "user", Turn: 2, Topic: "A", Text: "A: use JSON"},
		{Seq: 3, Source: "user", Turn: 4, Topic: "B", Text: "B: use YAML"},
		{Seq: 4, Source: "model", Topic: "A", Text: "A: keys are snake_case"},
		{Seq: 5, Source: "user", Turn: 6, Text: "line one\nline two", SupersededBy: 0},
		{Seq: 6, Source: "user", Turn: 7, Topic: "B", Text: "old", SupersededBy: 7},
	}, LedgerOptions{}).Text
	want := `- D1 (user, turn 1): Never edit files under vendor/.
- D5 (user, turn 6):
  > line one
  > line two

Topic A:
- D2 (user, turn 2): A: use JSON
- D4 (agreed): A: keys are snake_case

Topic B:
- D3 (user, turn 4): B: use YAML
- D6 (user, turn 7) SUPERSEDED by D7: "old"`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestMergeCoordinates(t *testing.T) {
	older := []Coordinate{{File: "a.go", Symbol: "F", Line: 1}, {File: "b.go", Line: 2}}
	newer := []Coordinate{{File: "a.go", Symbol: "F", Line: 9, Note: "moved"}, {File: "c.go"}}
	got := MergeCoordinates(older, newer, 1000)
	if len(got) != 3 || got[0].Line != 9 || got[1].File != "c.go" || got[2].File != "b.go" {
		t.Errorf("merged = %+v", got)
	}
	// Budget: the oldest go first.
	if got := MergeCoordinates(older, newer, 30); len(got) != 2 {
		t.Errorf("budgeted = %+v", got)
	}
}

func TestRenderCutsSectionsButNeverDecisions(t *testing.T) {
	long := strings.Repeat("word ", 2000)
	rule := "Never push to main." + strings.Repeat(" Really never.", 500)
	h := Handoff{Segment: 3, Task: long, Progress: long, Next: long, Verification: long,
		Decisions: RenderLedger([]Entry{{Seq: 1, Source: "user", Turn: 1, Text: rule}}, LedgerOptions{Budget: 10}).Text}
	out := h.Render()
	if !strings.Contains(out, rule) {
		t.Error("the Decisions entry was not kept verbatim")
	}
	withoutDecisions := len(out) - len(rule)
	if max := BudgetTask + BudgetCoordinates + BudgetVerification + BudgetProgress + BudgetNext + BudgetReferences + 800; withoutDecisions > max {
		t.Errorf("handoff without Decisions is %d bytes; budgets allow %d", withoutDecisions, max)
	}
	for _, head := range []string{HeadTask, HeadCoordinates, HeadDecisions, HeadVerification, HeadProgress, HeadNext, HeadReferences} {
		if !strings.Contains(out, "\n## "+head+"\n") {
			t.Errorf("section %q missing", head)
		}
	}
	at := func(h string) int { return strings.Index(out, "\n## "+h+"\n") }
	if at(HeadTask) > at(HeadDecisions) || at(HeadDecisions) > at(HeadNext) {
		t.Error("sections out of order")
	}
}

func TestTrimKeepsUTF8(t *testing.T) {
	s := strings.Repeat("é", 100)
	got := Trim(s, 51)
	if !strings.HasSuffix(got, "[… cut to fit]") || len(got) > 51 || !json.Valid([]byte(`"`+strings.TrimSuffix(got, "\n[… cut to fit]")+`"`)) {
		t.Errorf("Trim = %q", got)
	}
}

func TestFromModelFallsBackToTheEngine(t *testing.T) {
	history := []llm.Message{
		llm.UserText("fix the parser"),
		{Role: llm.RoleAssistant, Parts: []llm.Part{
			{Kind: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "1", Name: "file_read", Args: json.RawMessage(`{"path":"parse.go","start_line":1,"end_line":80}`)}},
			{Kind: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "2", Name: "shell_exec", Args: json.RawMessage(`{"command":"go test ./..."}`)}},
			{Kind: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "3", Name: "file_edit", Args: json.RawMessage(`{"path":"parse.go"}`)}},
		}},
		{Role: llm.RoleTool, Parts: []llm.Part{
			{Kind: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: "1", Content: "1\tpackage p"}},
			{Kind: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: "2", Content: "--- FAIL: TestParse\nFAIL\n[exit 1 · 0.2s]"}},
			{Kind: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: "3", Content: "edited"}},
		}},
	}
	facts := FactsFrom(history)
	facts.Request, facts.Ref, facts.Turn = "now make the parser accept tabs", "D4", 3
	facts.Plan = []string{"run go test again"}
	facts.Pages = []PageRef{{ID: "p3", What: `file_read "parse.go"`}}
	facts.Outputs = []string{"1\tpackage p", "--- FAIL: TestParse\nFAIL\n[exit 1 · 0.2s]", strings.Repeat("the parser reads one token at a time and keeps the position for errors\n", 20)}
	for _, answer := range []string{"", "ok", "Done.", "## Progress\nok",
		// only headings; only whitespace
		"## Current task\n## Coordinates\n## Verification\n## Progress and blockers\n## Next step\n## Decisions\n",
		" \n\t\n  ",
		// hollow: the headings, words, and nothing the work is about
		"## Current task\nContinue with the work as it was planned.\n## Progress and blockers\nThe work is in progress and going well so far.\n## Next step\nContinue with the next thing that needs doing.",
		// a copy of what a tool printed
		"## Current task\n" + strings.Repeat("the parser reads one token at a time and keeps the position for errors\n", 6) + "## Next step\nthe parser reads one token at a time and keeps the position for errors",
	} {
		d, fromModel := FromModel(answer, facts)
		if fromModel {
			t.Errorf("%q counted as the model's draft", answer)
		}
		all := d.Task + d.Progress + d.Next + d.Verification
		if !strings.Contains(d.Task, "now make the parser accept tabs") || !strings.Contains(d.Task, "D4") ||
			len(d.Coordinates) != 1 || d.Coordinates[0].File != "parse.go" || d.Coordinates[0].Note != "edited" ||
			!strings.Contains(d.Verification, "`go test ./...` → exit 1: FAIL") ||
			!strings.Contains(d.Progress, "run go test again") || !strings.Contains(strings.Join(d.Pages(), " "), "p3") ||
			strings.Contains(strings.ToLower(all), "re-read") {
			t.Errorf("engine draft for %q = %+v", answer, d)
		}
	}
	if _, ok := FromModel(modelText, facts); !ok {
		t.Error("a real draft was replaced")
	}
}

// The engine's handoff says which lines a read saw and an edit changed,
// from the tools' own outputs.
func TestFactsCarryLineRanges(t *testing.T) {
	call := func(id, name, args string) llm.Part {
		return llm.Part{Kind: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: id, Name: name, Args: json.RawMessage(args)}}
	}
	result := func(id, out string) llm.Part {
		return llm.Part{Kind: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: id, Content: out}}
	}
	f := FactsFrom([]llm.Message{
		{Role: llm.RoleAssistant, Parts: []llm.Part{call("1", "file_read", `{"path": "a.go"}`), call("2", "file_edit", `{"path": "b.go"}`), call("3", "file_read", `{"path": "c.go", "start_line": 334}`)}},
		{Role: llm.RoleTool, Parts: []llm.Part{
			result("1", "1\tpackage a\n2\t\n333\tfunc x() {}\n[truncated: lines 1-333 of 708 shown; call file_read with start_line=334]\n"),
			result("2", "edited b.go: 2 replacements, +3 -1 lines\n@@ -40,5 +40,7 @@\n x\n@@ -90 +92 @@\n-y\n+z\n"),
			result("3", "334\tx\n708\ty\n"),
		}},
	})
	got := fmt.Sprint(f.Files)
	want := "[{a.go read lines 1-333 of 708} {b.go edited lines 40-46, 92-92} {c.go read lines 334-708}]"
	if got != want {
		t.Errorf("files = %s\nwant    %s", got, want)
	}
}

// A request in progress too long for the task section keeps its head and
// its tail: the question a user types after a pasted log survives.
func TestTrimMiddle(t *testing.T) {
	log := strings.Repeat("--- PASS: TestCache (0.01s)\n", 80)
	tests := []struct {
		name, in string
		n        int
		want     []string
		dontWant []string
	}{
		{"short stays whole", "fix the parser", 900, []string{"fix the parser"}, []string{"cut"}},
		{"question after a paste", log + "Which test failed? Then read f07.txt. [t09]", 900,
			[]string{"--- PASS: TestCache", "bytes cut", "Which test failed? Then read f07.txt. [t09]"}, nil},
		{"question before a paste", "Why does this fail? [t10]\n" + log, 900,
			[]string{"Why does this fail? [t10]", "bytes cut"}, nil},
		{"runes kept whole", strings.Repeat("é", 1000), 300, []string{"bytes cut"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := trimMiddle(tt.in, tt.n)
			if len(got) > tt.n {
				t.Errorf("%d bytes, over %d", len(got), tt.n)
			}
			if !utf8.ValidString(got) {
				t.Errorf("cut inside a rune: %q", got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tt.dontWant {
				if strings.Contains(got, w) {
					t.Errorf("has %q:\n%s", w, got)
				}
			}
		})
	}
}

// A shortened request that was a pasted log shows the question typed
// with it, not only the log's first line.
func TestShortenedPasteShowsTheQuestion(t *testing.T) {
	log := strings.Repeat("=== RUN   TestCache\n--- PASS: TestCache (0.01s)\n", 20)
	var es []Entry
	for i := 1; i <= 5; i++ {
		es = append(es, Entry{Seq: i, Source: "user", Turn: i, Text: log + "Which test failed? Then read f0" + strconv.Itoa(i) + ".txt."})
	}
	l := RenderLedger(es, LedgerOptions{Budget: 90})
	if l.Shrunk == 0 || !regexp.MustCompile(`D(\d) \(user, turn \d, shortened\): \[40-line paste\] Which test failed\? Then read f0\d\.txt\. recall\("D\d"\)`).MatchString(l.Text) {
		t.Errorf("the shortened paste lost its question:\n%s", l.Text)
	}
}

// Within its budget the ledger shrinks nothing.
func TestRenderLedgerWithinBudgetShrinksNothing(t *testing.T) {
	es := []Entry{
		{Seq: 1, Source: "user", Turn: 1, Kind: KindInstruction, Text: "Never edit vendor/.", SupersededBy: 3},
		{Seq: 2, Source: "user", Turn: 2, Kind: KindRequest, Text: "read a.txt"},
		{Seq: 3, Source: "user", Turn: 3, Kind: KindInstruction, Text: "vendor/ may now be edited."},
	}
	l := RenderLedger(es, LedgerOptions{Budget: 1000})
	if l.Shrunk != 0 || !strings.Contains(l.Text, "- D2 (user, turn 2): read a.txt") || !strings.Contains(l.Text, "D1 (user, turn 1) SUPERSEDED by D3") {
		t.Errorf("%+v", l)
	}
}

// BenchmarkRenderLedger renders a day's ledger past a 16k window's
// budget: 300 messages, a rule in every third, the others with a
// 20-line log.
//
//	go test -run '^$' -bench RenderLedger ./internal/handoff
func BenchmarkRenderLedger(b *testing.B) {
	log := strings.Repeat("2026-11-30T02:00:01Z ERROR store: open a.db: locked\n", 20)
	var es []Entry
	for i := 1; i <= 300; i++ {
		text := fmt.Sprintf("CI failed again on run %d, here is the log:\n```\n%s```\nWhat failed?", i, log)
		if i%3 == 1 {
			text = fmt.Sprintf("Rule %d: never touch module%d/ without asking.", i, i)
		}
		es = append(es, Entry{Seq: i, Source: "user", Turn: i, Kind: Classify(text), Text: text})
	}
	for b.Loop() {
		if l := RenderLedger(es, LedgerOptions{Budget: 1280}); !l.Over {
			b.Fatal("100 rules fit 1280 tokens?")
		}
	}
}

// TestRulesText: the ids line up once they reach two digits, and the
// hints name the commands of where the list is shown (the chat's
// slash commands, or the CLI's flags).
func TestRulesText(t *testing.T) {
	var es []Entry
	for i := 1; i <= 10; i++ {
		kind := KindRequest
		if i == 1 || i == 10 {
			kind = KindInstruction
		}
		es = append(es, Entry{Seq: i, Source: "user", Kind: kind, Turn: i, Text: fmt.Sprintf("message %d", i)})
	}
	es[1].SupersededBy = 10
	es = append(es, Entry{Seq: 11, Source: "model", Turn: 10, Text: "tests pass"})
	chat := `Rules that stand (2); /unpin Dn if one is not a rule:
  D1   turn 1: message 1
  D10  turn 10: message 10

Superseded:
  D2   turn 2, replaced by D10: message 2

Requests, the newest (/pin Dn keeps one as a rule):
  D3   turn 3: message 3
  D4   turn 4: message 4
  D5   turn 5: message 5
  D6   turn 6: message 6
  D7   turn 7: message 7
  D8   turn 8: message 8
  D9   turn 9: message 9

Agreed by the model on its own work:
  D11  tests pass`
	if got := RulesText(es, ChatHints()); got != chat {
		t.Errorf("chat:\n%s\nwant:\n%s", got, chat)
	}
	cli := RulesText(es, Hints{Pin: "godwit rules 0a1b --pin Dn", Unpin: "godwit rules 0a1b --unpin Dn"})
	for _, want := range []string{"Rules that stand (2); godwit rules 0a1b --unpin Dn if one is not a rule:", "Requests, the newest (godwit rules 0a1b --pin Dn keeps one as a rule):"} {
		if !strings.Contains(cli, want) {
			t.Errorf("cli lacks %q:\n%s", want, cli)
		}
	}
	if strings.Contains(cli, "/pin") || strings.Contains(cli, "/unpin") {
		t.Errorf("cli names the chat's commands:\n%s", cli)
	}
}
