package main

import (
	"strings"
	"testing"
)

func TestWorkdayIsTheIssuesDay(t *testing.T) {
	turns := workday(1)
	reads, commands, logs, tokens := 0, 0, 0, 0
	for i, d := range turns[1:] {
		turn := i + 1
		switch {
		case d.file != "":
			reads++
		case d.command != "":
			commands++
		}
		if strings.Contains(d.prompt, "$LOG") {
			logs++
		}
		tokens += d.tokens
		if turn == 1 && d.prompt != rule || turn == dayChangeTurn && d.prompt != ruleChange || turn == dayTurns && d.prompt != dayAsk {
			t.Errorf("turn %d says %q", turn, d.prompt)
		}
	}
	// 97 turns that call a tool (two requests each) and three that do not:
	// 197 requests, as in the issue's table.
	if reads != 83 || commands != 14 || logs != 18 || tokens < 600_000 || tokens > 700_000 {
		t.Errorf("%d reads, %d commands, %d pasted logs, %d tokens of output", reads, commands, logs, tokens)
	}
}

// A model that needs a file again after its output was paged recalls the
// page its stub names, and gets the file back; it does not read the
// whole file again. The real binary, one process per turn.
func TestPagedFileIsRecalled(t *testing.T) {
	s := daySpec("recall", 200_000)
	s.Turns = 8
	s.prompts = map[int]string{8: "Look at pkg/f03.go again: what is its first function?"}
	f := attackScaled(t, 0.3, s)[0]
	turnsOK(t, f)
	if f.Recalls != 1 || f.BreakCauses[causeTurn] != 0 {
		t.Errorf("%d recalls, %d breaks at a turn boundary", f.Recalls, f.BreakCauses[causeTurn])
	}
	var stub, page string
	recalled := false
	for _, c := range f.reqs {
		at := 0 // turn 8's message: what follows it is the turn's work
		if c.turn == 8 {
			at, _ = inProgress(c.req.entries)
		}
		for i, e := range c.req.entries {
			switch {
			case i < at:
			case c.turn < 8 && e.role == "tool" && strings.Contains(e.text, `file_read "pkg/f03.go" output, lines 1-`):
				stub = e.text
				if m := pageRe.FindStringSubmatch(stub); m != nil {
					page = m[1]
				}
			case c.turn == 8 && e.isCall() && e.name == "file_read":
				t.Errorf("turn 8 read %s again", e.args)
			case c.turn == 8 && e.isCall() && e.name == "recall":
				recalled = callArg(e.args) == page && page != ""
			case c.turn == 8 && e.role == "tool" && recalled:
				if first := funcRe.FindString(e.text); !strings.Contains(e.text, "[page "+page) || first == "" {
					t.Errorf("recall %s returned:\n%.300s", page, e.text)
				}
			}
		}
	}
	if stub == "" || !recalled {
		t.Errorf("stub %q; recalled its page: %v", stub, recalled)
	}
}

// attackScaled is attack with files and the window scaled.
func attackScaled(t *testing.T, scale float64, ss ...spec) []figures {
	t.Helper()
	for i := range ss {
		ss[i] = scaled(ss[i], scale)
	}
	return attack(t, []string{fmtChat}, ss...)
}

// scaled is s with its window, files and logs shrunk by k.
func scaled(s spec, k float64) spec {
	s.Window = int(float64(s.Window) * k)
	s.fileTokens = int(float64(s.fileTokens) * k)
	s.logTokens = int(float64(s.logTokens) * k)
	s.scale = k
	return s
}
