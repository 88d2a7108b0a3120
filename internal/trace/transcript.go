package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/digits"
	"github.com/godwit/godwit/internal/store"
)

// How much of a tool's output, a diff or a verify run the transcript
// keeps: the head and the tail, each line clipped.
const (
	headLines = 6
	tailLines = 6
	lineMax   = 200
)

// WriteTranscript writes t as plain text to paste into a review or hand
// to another agent: each turn's prompt, the model's text, each tool call
// as one line with its arguments and a trimmed result, errors and verify
// runs. It walks the page's View; the output depends on t alone.
func WriteTranscript(w io.Writer, t *Trace) error {
	b := bufio.NewWriter(w)
	v := newView(t)
	s := v.Session
	fmt.Fprintf(b, "# Session %s: %s\n", s.ID, s.Title)
	fmt.Fprintf(b, "workspace %s · model %s · started %s\n", s.Workspace, s.Model, s.CreatedAt.UTC().Format(time.RFC3339))

	segment := 0
	for _, tr := range v.Turns {
		if tr.Segment != segment {
			if segment != 0 {
				writeSegment(b, t, tr.Segment)
			}
			segment = tr.Segment
		}
		writeTurn(b, tr)
	}
	return b.Flush()
}

func writeSegment(b *bufio.Writer, t *Trace, seq int) {
	for _, g := range t.Segments {
		if g.Seq == seq-1 && g.Handoff != "" {
			fmt.Fprintf(b, "\n--- segment %d ends; its handoff:\n", g.Seq)
			writeTrimmed(b, "    ", g.Handoff, 4*headLines, 4*tailLines)
		}
	}
	reason := ""
	for _, g := range t.Segments {
		if g.Seq == seq && g.Reason != "" {
			reason = " (" + g.Reason + ")"
		}
	}
	fmt.Fprintf(b, "--- segment %d%s\n", seq, reason)
}

func writeTurn(b *bufio.Writer, tr TurnView) {
	fmt.Fprintf(b, "\n## Turn %d · %s", tr.Seq, tr.Status)
	if u := tr.Usage; u.InputTokens+u.OutputTokens > 0 {
		fmt.Fprintf(b, " · %s in, %s out", digits.Group(u.InputTokens), digits.Group(u.OutputTokens))
	}
	if tr.Cost > 0 {
		fmt.Fprintf(b, " · %s", usd(tr.Cost))
	}
	fmt.Fprintf(b, "\n\nUser:\n")
	writeIndented(b, "  ", tr.Prompt)
	writeNotes(b, tr.Before)
	for _, step := range tr.Steps {
		fmt.Fprintf(b, "\nAssistant (step %d):\n", step.Step)
		for _, c := range step.Calls {
			if c.Purpose != "" {
				fmt.Fprintf(b, "  [%s call: %s in, %s out]\n", c.Purpose, digits.Group(c.Usage.InputTokens), digits.Group(c.Usage.OutputTokens))
			} else if c.Text != "" {
				writeIndented(b, "  ", c.Text)
			}
			if c.Error != "" {
				fmt.Fprintf(b, "  ERROR model call: %s\n", oneLine(c.Error))
			}
		}
		for _, c := range step.Tools {
			writeCall(b, c)
		}
		writeNotes(b, step.After)
	}
	for _, v := range tr.Verify {
		writeNotes(b, []Note{v.note()})
	}
	if tr.Error != "" {
		fmt.Fprintf(b, "\nTurn %s: %s\n", tr.Status, tr.Error)
	}
}

// writeNotes writes what the engine did after a step.
func writeNotes(b *bufio.Writer, notes []Note) {
	for _, n := range notes {
		switch n.Kind {
		case agent.EventVerify:
			fmt.Fprintf(b, "\n%s\n", n.Text)
			if n.Detail != "" {
				writeTrimmed(b, "  | ", n.Detail, headLines, tailLines)
			}
		case agent.EventNudge:
			fmt.Fprintf(b, "\nC%s:\n", n.Text[1:])
			writeIndented(b, "  ", n.Detail)
		case agent.EventSegmentReset:
			fmt.Fprintf(b, "\n--- %s\n", n.Text)
		default:
			fmt.Fprintf(b, "\n[%s]\n", n.Text)
		}
	}
}

// writeCall writes one tool call: a line with its arguments and outcome,
// then its output (or diff) trimmed.
func writeCall(b *bufio.Writer, c ToolCallView) {
	mark := "→"
	if c.IsError {
		mark = "✗"
	}
	fmt.Fprintf(b, "  %s %s %s", mark, c.Name, c.Summary)
	switch {
	case c.IsError && c.Code != "":
		fmt.Fprintf(b, " [%s]", c.Code)
	case c.ExitCode != nil:
		fmt.Fprintf(b, " [exit %d]", *c.ExitCode)
	}
	b.WriteByte('\n')
	out := c.Output
	if c.Diff != "" && !c.IsError {
		out = c.Diff
	}
	if out != "" {
		writeTrimmed(b, "    | ", out, headLines, tailLines)
	}
}

// argsSummary renders a call's arguments in one line: the path or command
// for the tools the trace knows, compact JSON otherwise.
func argsSummary(c store.ToolCall) string {
	var a map[string]any
	if json.Unmarshal(c.Args, &a) == nil {
		str := func(k string) string { s, _ := a[k].(string); return s }
		switch c.Name {
		case toolRead:
			s := str("path")
			from, _ := a["start_line"].(float64)
			to, _ := a["end_line"].(float64)
			if from > 0 || to > 0 {
				s += fmt.Sprintf(":%s-%s", lineNum(from), lineNum(to))
			}
			return s
		case toolWrite:
			return fmt.Sprintf("%s (%d bytes)", str("path"), len(str("content")))
		case toolEdit:
			return str("path")
		case toolShell:
			if cmd, ok := commandOf(c); ok {
				return clip(cmd, lineMax)
			}
		}
	}
	var buf bytes.Buffer
	if json.Compact(&buf, c.Args) != nil {
		return clip(oneLine(string(c.Args)), lineMax)
	}
	return clip(buf.String(), lineMax)
}

func lineNum(f float64) string {
	if f <= 0 {
		return ""
	}
	return fmt.Sprint(int(f))
}

// writeTrimmed writes text with prefix on each line, keeping head and
// tail lines and saying how many were left out between.
func writeTrimmed(b *bufio.Writer, prefix, text string, head, tail int) {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) > head+tail+1 {
		omitted := len(lines) - head - tail
		kept := append(append([]string{}, lines[:head]...), fmt.Sprintf("… %d lines omitted …", omitted))
		lines = append(kept, lines[len(lines)-tail:]...)
	}
	for _, l := range lines {
		fmt.Fprintf(b, "%s%s\n", prefix, clip(strings.TrimRight(l, "\r"), lineMax))
	}
}

func writeIndented(b *bufio.Writer, prefix, text string) {
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		fmt.Fprintf(b, "%s%s\n", prefix, l)
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
