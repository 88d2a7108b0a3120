package tui

import (
	tea "charm.land/bubbletea/v2"
	"fmt"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/agent"
)

// session2000 is a stored session of 2,000 messages: 1,000 prompts and
// 1,000 markdown answers (every tenth with a code block), with a tool
// call after each answer.
func session2000() []agent.Event {
	var evs []agent.Event
	for i := range 1000 {
		answer := fmt.Sprintf("Answer %d: the **function** `f%d` now checks its input.\n\nIt returns an error when the input is empty.", i, i)
		if i%10 == 0 {
			answer += fmt.Sprintf("\n\n```go\nfunc f%d(s string) error {\n\tif s == \"\" {\n\t\treturn errEmpty\n\t}\n\treturn nil\n}\n```", i)
		}
		id := fmt.Sprintf("c%d", i)
		evs = append(evs,
			agent.Event{Type: agent.EventTurnStarted, Turn: i + 1, Prompt: fmt.Sprintf("make f%d check its input, and say what you changed", i)},
			agent.Event{Type: agent.EventModelResponse, Response: &agent.ResponseInfo{Text: answer}},
			agent.Event{Type: agent.EventToolStarted, Tool: &agent.ToolInfo{CallID: id, Name: "file_edit", Summary: "edit f.go"}},
			agent.Event{Type: agent.EventToolFinished, Tool: &agent.ToolInfo{CallID: id, Name: "file_edit", Summary: "edit f.go", DurationMS: 2,
				Output: "edited f.go", Diff: "--- a/f.go\n+++ b/f.go\n@@ -1 +1 @@\n-old\n+new\n"}},
		)
	}
	return evs
}

// BenchmarkRender2000Messages measures one frame of a 2,000-message
// session: at the end (what every streamed delta costs), while an answer
// streams, and scrolling through the whole session page by page.
func BenchmarkRender2000Messages(b *testing.B) {
	evs := session2000()
	setup := func(b *testing.B) *Model {
		m := staticModel(b, 120, 40)
		replay(m, evs)
		m.render()
		return m
	}
	b.Run("end", func(b *testing.B) {
		m := setup(b)
		for b.Loop() {
			m.render()
		}
	})
	b.Run("streaming", func(b *testing.B) {
		// A delta of a few words per frame, a new paragraph every 20.
		m := setup(b)
		i := 0
		for b.Loop() {
			text := "more words "
			if i++; i%20 == 0 {
				text = "end of paragraph.\n\n"
			}
			feedEvents(m, agent.Event{Type: agent.EventTextDelta, Text: text})
			m.render()
		}
	})
	b.Run("scroll", func(b *testing.B) {
		m := setup(b)
		for b.Loop() {
			m.Update(keys["pgup"])
			m.render()
			if m.t.top.i == 0 && m.t.top.l == 0 {
				m.Update(keys["esc"])
			}
		}
	})
	b.Run("first-pass", func(b *testing.B) {
		// One op: open the session and page from its end to its start,
		// rendering every message for the first time.
		for b.Loop() {
			b.StopTimer()
			m := staticModel(b, 120, 40)
			replay(m, evs)
			b.StartTimer()
			m.render()
			for m.t.follow || m.t.top.i > 0 || m.t.top.l > 0 {
				m.Update(keys["pgup"])
				m.render()
			}
		}
	})
}

// BenchmarkRender50kLineOutput measures one frame with a 50,000-line tool
// output on screen: closed, open, and paging through it.
func BenchmarkRender50kLineOutput(b *testing.B) {
	var out strings.Builder
	for i := 1; i <= 50_000; i++ {
		fmt.Fprintf(&out, "ok  \tgithub.com/example/pkg%d\t0.%03ds\n", i, i%1000)
	}
	setup := func(b *testing.B, open bool) *Model {
		m := staticModel(b, 120, 40)
		m.t.add(&userItem{text: "run the tests"})
		feedEvents(m,
			agent.Event{Type: agent.EventToolStarted, Tool: &agent.ToolInfo{CallID: "c", Name: "shell_exec", Summary: "run: go test ./..."}},
			agent.Event{Type: agent.EventToolFinished, Tool: &agent.ToolInfo{CallID: "c", Name: "shell_exec", Summary: "run: go test ./...", ExitCode: intp(0), Output: out.String()}},
		)
		if open {
			m.Update(keys["ctrl+o"])
		}
		m.render()
		return m
	}
	b.Run("closed", func(b *testing.B) {
		m := setup(b, false)
		for b.Loop() {
			m.render()
		}
	})
	b.Run("open", func(b *testing.B) {
		m := setup(b, true)
		for b.Loop() {
			m.render()
		}
	})
	b.Run("open-scroll", func(b *testing.B) {
		m := setup(b, true)
		for b.Loop() {
			m.Update(keys["pgdown"])
			m.render()
			if m.t.follow {
				m.t.show(0, m.width, m.transcriptHeight())
			}
		}
	})
	b.Run("open-first", func(b *testing.B) {
		// One op: the output arrives and is opened and drawn once.
		for b.Loop() {
			b.StopTimer()
			m := staticModel(b, 120, 40)
			b.StartTimer()
			feedEvents(m, agent.Event{Type: agent.EventToolFinished, Tool: &agent.ToolInfo{CallID: "c", Name: "shell_exec", ExitCode: intp(0), Output: out.String()}})
			m.Update(keys["ctrl+o"])
			m.render()
		}
	})
}

// BenchmarkMarkdown renders the rich answer of the markdown goldens
// (every construct, six code blocks) at 80 columns, and a long reply of
// 20 of them (1,700 lines, 37 KB).
func BenchmarkMarkdown(b *testing.B) {
	src := answer(b)
	for _, c := range []struct {
		name string
		th   Theme
	}{{"plain", PlainTheme()}, {"dark", DarkTheme()}, {"dark-long", DarkTheme()}} {
		if c.name == "dark-long" {
			src = strings.Repeat(src+"\n", 20)
		}
		b.Run(c.name, func(b *testing.B) {
			md := newMarkdown(c.th)
			b.ReportAllocs()
			for b.Loop() {
				md.render(src, 80)
			}
		})
	}
}

// BenchmarkKeyAfterBigPaste measures a key typed into a 1,400-line input
// (update and frame), as when Up recalls a long paste from the saved
// history (a paste itself enters as a marker): the textarea's wrap cache
// must hold every line, or each key rewraps them all.
func BenchmarkKeyAfterBigPaste(b *testing.B) {
	m := staticModel(b, 110, 60)
	var log strings.Builder
	for i := range 1400 {
		fmt.Fprintf(&log, "=== RUN   TestCache4_%d\n", i)
	}
	m.input.SetValue(log.String())
	m.render()
	for b.Loop() {
		m.Update(tea.KeyPressMsg{Code: 'x', Text: "x"})
		m.render()
	}
}
