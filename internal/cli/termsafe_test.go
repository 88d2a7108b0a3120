package cli

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/policy"
	"github.com/godwit/godwit/internal/store"
)

// attack holds what a terminal obeys: a title, a clipboard write, a DCS
// passthrough, a C1 CSI, a carriage return that overprints, a bidi
// override.
const attack = "\x1b]0;PWNED\x07\x1b]52;c;eA==\x07\x1bPtmux;\x1b\x1b]2;X\x07\x1b\\\u009b2J\rfake\u202e"

func noControls(t *testing.T, where, s string) {
	t.Helper()
	if strings.ContainsAny(s, "\x1b\r\x07") || strings.ContainsRune(s, 0x9b) || strings.ContainsRune(s, 0x202e) {
		t.Errorf("%s carries what a terminal obeys: %q", where, s)
	}
}

// TestLinePrompterShowsWhatRuns: the line-mode question writes every
// hidden character of the call as a mark.
func TestLinePrompterShowsWhatRuns(t *testing.T) {
	q := policy.Question{Tool: "shell_exec", Summary: "run: curl x|sh;#\r? ok: ls", Preview: "ls\n" + attack,
		Reasons: []string{"runs " + attack}, Always: []string{"shell_exec command " + attack}}
	got := formatQuestion(q)
	noControls(t, "the question", got)
	for _, want := range []string{"run: curl x|sh;#⟨CR⟩? ok: ls", "⟨ESC⟩]0;PWNED⟨BEL⟩", "⟨U+009B⟩", "⟨U+202E⟩"} {
		if !strings.Contains(got, want) {
			t.Errorf("the question lacks %q:\n%s", want, got)
		}
	}
}

// TestPlainOutputIsSafe: the plain sink's lines on stderr, and the
// answer on a terminal, carry nothing a terminal obeys; a pipe gets the
// answer as the model wrote it.
func TestPlainOutputIsSafe(t *testing.T) {
	code := 3
	events := []agent.Event{
		{Type: agent.EventToolStarted, Tool: &agent.ToolInfo{CallID: "c", Name: "shell_exec", Summary: "run: " + attack}},
		{Type: agent.EventToolFinished, Tool: &agent.ToolInfo{CallID: "c", Name: "x" + attack, IsError: true, Output: attack, ExitCode: &code}},
		{Type: agent.EventApproval, Approval: &agent.ApprovalInfo{Summary: attack, Reason: attack}},
		{Type: agent.EventNotice, Text: attack},
		{Type: agent.EventTextDelta, Text: "between " + attack},
		{Type: agent.EventModelResponse, Response: &agent.ResponseInfo{ToolCalls: 1}},
		{Type: agent.EventTurnFinished, Finished: &agent.TurnInfo{Text: "answer " + attack}},
	}
	for _, tty := range []bool{true, false} {
		var out, log bytes.Buffer
		s := newAnswerSink(shown(&out, tty), safeWriter{&log})
		for _, e := range events {
			s.Emit(e)
		}
		noControls(t, "stderr", log.String())
		if !strings.Contains(log.String(), "between") || !strings.Contains(log.String(), "fake") {
			t.Errorf("stderr lost the text: %q", log.String())
		}
		if tty {
			noControls(t, "the answer on a terminal", out.String())
		} else if !strings.Contains(out.String(), attack) {
			t.Errorf("a pipe did not get the answer byte for byte: %q", out.String())
		}
	}
	var line bytes.Buffer
	lp := newPlainSink(shown(&line, true), safeWriter{&line})
	lp.Emit(agent.Event{Type: agent.EventTextDelta, Text: "stream \x1b"})
	lp.Emit(agent.Event{Type: agent.EventTextDelta, Text: "]52;c;eA==\x07 split"})
	noControls(t, "the chat's line mode", line.String())
}

// TestSessionTitlesAreSafe: a title is the first prompt, which mail from
// another session (a model's words) can set; on a terminal the list
// carries nothing a terminal obeys.
func TestSessionTitlesAreSafe(t *testing.T) {
	var out bytes.Buffer
	writeSessions(shown(&out, true), []store.SessionSummary{{Session: store.Session{ID: "s1", Title: "fix " + attack}}}, "/home/u")
	noControls(t, "godwit sessions", out.String())
	if !strings.Contains(out.String(), "fix") {
		t.Errorf("the title is gone: %q", out.String())
	}
}

// A shortened line ends on a whole character: cutting a title, a mail
// body or a ledger entry in the middle of one would print an invalid byte.
func TestShortenedLinesStayValidUTF8(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 100) // two bytes each: byte 60 of 61 splits one
	for _, tc := range []struct {
		name, got, want string
	}{
		{"firstLine", firstLine("x"+long, 60), "x" + strings.Repeat("é", 29) + "…"},
		{"oneLine", oneLine("x"+long, 100), "x" + strings.Repeat("é", 49) + "…"},
		{"short", firstLine("é\nrest", 60), "é"},
	} {
		if tc.got != tc.want || !utf8.ValidString(tc.got) {
			t.Errorf("%s = %q, want %q", tc.name, tc.got, tc.want)
		}
	}
	var out bytes.Buffer
	writeSessions(&out, []store.SessionSummary{{Session: store.Session{ID: "s1", Title: "x" + long}}}, "/home/u")
	if !utf8.Valid(out.Bytes()) {
		t.Errorf("godwit sessions printed invalid UTF-8: %q", out.String())
	}
}
