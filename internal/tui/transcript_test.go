package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/fake"
)

func chatter(n int) []agent.Event {
	var evs []agent.Event
	for i := range n {
		evs = append(evs,
			agent.Event{Type: agent.EventTurnStarted, Turn: i + 1, Prompt: fmt.Sprintf("question %d", i)},
			agent.Event{Type: agent.EventModelResponse, Response: &agent.ResponseInfo{Text: fmt.Sprintf("answer %d with **markdown** and `code`", i)}},
		)
	}
	return evs
}

// replay draws events as a stored session (no deltas).
func replay(m *Model, evs []agent.Event) {
	for _, e := range evs {
		m.feed.apply(e, false)
	}
}

func TestScrollHoldsWhileTheAnswerStreams(t *testing.T) {
	m := staticModel(t, 60, 12)
	replay(m, chatter(30))
	bottom := plainScreen(m)
	if !strings.Contains(bottom, "answer 29") {
		t.Fatalf("the view does not follow the end:\n%s", bottom)
	}
	m.Update(keys["pgup"])
	up := plainScreen(m)
	if up == bottom || m.t.follow {
		t.Fatal("PgUp did not scroll")
	}
	feedEvents(m, agent.Event{Type: agent.EventTextDelta, Text: "streaming more\n\nand more"})
	if got := plainScreen(m); got != up {
		t.Errorf("streamed text moved a scrolled view:\nbefore:\n%s\nafter:\n%s", up, got)
	}
	m.Update(keys["esc"])
	if got := plainScreen(m); !m.t.follow || !strings.Contains(got, "and more") {
		t.Errorf("Esc did not go back to the end:\n%s", got)
	}
	for range 100 {
		m.Update(keys["pgup"])
	}
	if top := plainScreen(m); !strings.Contains(top, "question 0") {
		t.Errorf("PgUp does not reach the top:\n%s", top)
	}
	for range 100 {
		m.Update(keys["pgdown"])
	}
	if !m.t.follow {
		t.Error("PgDn to the end does not follow the end again")
	}
}

func TestHugeOutputOpensAndScrolls(t *testing.T) {
	const n = 50_000
	var out strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&out, "line %d\n", i)
	}
	m := staticModel(t, 80, 24)
	feedEvents(m,
		agent.Event{Type: agent.EventToolStarted, Tool: &agent.ToolInfo{CallID: "c", Name: "shell_exec", Summary: "run: seq"}},
		agent.Event{Type: agent.EventToolFinished, Tool: &agent.ToolInfo{CallID: "c", Name: "shell_exec", Summary: "run: seq", ExitCode: intp(0), Output: out.String()}},
	)
	screen := plainScreen(m)
	if !strings.Contains(screen, "50000 lines") || strings.Contains(screen, "line 1\n") {
		t.Fatalf("a long output should be one closed line:\n%s", screen)
	}
	m.Update(keys["ctrl+o"])
	screen = plainScreen(m)
	if !strings.Contains(screen, "│ line 1\n") {
		t.Fatalf("opened, the output should show from its start:\n%s", screen)
	}
	th := m.transcriptHeight()
	for range 1000 {
		m.Update(keys["pgdown"])
	}
	// 1000 pages of th-2 lines, from the header at the top.
	want := fmt.Sprintf("│ line %d\n", 1000*(th-2))
	if screen = plainScreen(m); !strings.Contains(screen, want) {
		t.Errorf("after 1000 pages the view lacks %q:\n%s", want, screen)
	}
	m.Update(keys["ctrl+o"])
	if screen = plainScreen(m); strings.Contains(screen, "│ line") {
		t.Errorf("closing did not hide the output:\n%s", screen)
	}
}

func TestResizeRewraps(t *testing.T) {
	m := staticModel(t, 80, 10)
	long := strings.Repeat("word ", 30)
	m.t.add(&userItem{text: long})
	wide := plainScreen(m)
	m.Update(teaSize(40, 10))
	narrow := plainScreen(m)
	for _, l := range strings.Split(narrow, "\n") {
		if len([]rune(l)) > 40 {
			t.Fatalf("a line passes the new width 40: %q", l)
		}
	}
	if strings.Count(narrow, "word") != 30 || wide == narrow {
		t.Errorf("rewrapping lost words or did nothing:\n%s", narrow)
	}
}

func TestStableCut(t *testing.T) {
	tests := []struct {
		name, text string
		want       int
	}{
		{"no blank line", "one line", 0},
		{"an unfinished paragraph", "para\n\nnext", len("para\n\n")},
		{"a fence open", "para\n\n```go\nx\n\ny\n", len("para\n\n")},
		{"a fence closed", "para\n\n```go\nx\n\ny\n```\n\nz", len("para\n\n```go\nx\n\ny\n```\n\n")},
		{"a blank line not yet ended", "a\n", 0},
		{"a fence holds another mark", "~~~\n```\n\nx\n~~~\n\ny", len("~~~\n```\n\nx\n~~~\n\n")},
		{"a longer fence holds a shorter one", "````\n```\n\n````\n\ny", len("````\n```\n\n````\n\n")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := stableCut([]byte(tc.text), 0); got != tc.want {
				t.Errorf("stableCut = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestStreamedMarkdownMatchesTheFinalRender(t *testing.T) {
	// Until a block ends (a blank line), its text shows as typed; so the
	// script ends with one.
	text := "# Title\n\nSome *text* here.\n\n```go\nfunc f() {}\n```\n\n```\n```\n\n- a\n- b\n\n"
	m := staticModel(t, 60, 30)
	for _, r := range text {
		feedEvents(m, agent.Event{Type: agent.EventTextDelta, Text: string(r)})
		_ = plainScreen(m) // render every step, as the screen would
	}
	streamed := plainScreen(m)
	feedEvents(m, agent.Event{Type: agent.EventModelResponse, Response: &agent.ResponseInfo{}})
	final := plainScreen(m)
	if streamed != final {
		t.Errorf("the streamed render differs from the final one:\nstreamed:\n%s\nfinal:\n%s", streamed, final)
	}
	if a := items[*assistantItem](m); len(a) != 1 || a[0].cut == 0 {
		t.Errorf("streaming rendered no stable block: %+v", a)
	}
}

func TestOpeningACutOutputLoadsAllOfIt(t *testing.T) {
	var big strings.Builder
	for i := 1; i <= 1500; i++ {
		fmt.Fprintf(&big, "row %d of the big file\n", i)
	}
	h := newHarness(t,
		fake.Step{ToolCalls: []llm.ToolCall{fake.Call("r1", "file_read", map[string]any{"path": "big.txt"})}},
		fake.Step{Text: "read it"},
	)
	if err := os.WriteFile(filepath.Join(h.ws, "big.txt"), []byte(big.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	h.send("read big.txt")
	h.idle()
	ti := items[*toolItem](h.m)[0]
	if ti.total == 0 || ti.full {
		t.Fatalf("the event should carry only the start of the output (total %d)", ti.total)
	}
	h.press("alt+up")
	h.press("ctrl+o")
	h.until("the whole output", func() bool { return ti.full })
	if len(ti.output) <= 4096 || !strings.Contains(ti.output, "row 1500 of") {
		t.Errorf("loaded %d bytes, ending %q", len(ti.output), ti.output[max(0, len(ti.output)-40):])
	}
}
