package main

import (
	_ "embed"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The scripted model behaves like a plain, honest model that only reads:
// it works on the request in progress, reads the file it names unless it
// already has, answers briefly, and writes the handoffs its session
// scripts, as a pure function of the request and the turn.

// Markers of godwit's own user-role messages, as the current engine
// writes them.
const (
	handoffAsk    = "[godwit: the context window is full" // the handoff instruction
	handoffPrefix = "[godwit handoff"                     // the message that opens a segment
	godwitNote    = "[godwit note]"                       // notes before the user's words
)

var fileRe = regexp.MustCompile(`\bf\d{2}\.txt\b`)

// reply is what the model answers: text, one tool call, or both (a
// note on what it read, then the call to read on).
type reply struct {
	text string
	read string // the file to read, when the model calls file_read
	from int    // the line to read from (0: the start)
	// tool and args are any other call (attack sessions).
	tool, args string
	// calls, when set, are parallel calls in one step (attack sessions).
	calls []toolCall
}

// toolCall is one call a reply makes.
type toolCall struct{ tool, args string }

// toolCalls returns the reply's tool calls, in order.
func (r reply) toolCalls() []toolCall {
	switch {
	case r.read != "":
		return []toolCall{{"file_read", readArgs(r.read, r.from)}}
	case r.tool != "":
		return []toolCall{{r.tool, r.args}}
	}
	return r.calls
}

// readArgs is how the model writes file_read's arguments: with a space
// after the colon, as many models do. Chat Completions and Responses carry
// arguments as a string, so godwit must send these bytes back unchanged.
func readArgs(file string, from int) string {
	if from > 1 {
		return fmt.Sprintf(`{"path": "%s", "start_line": %d}`, file, from)
	}
	return `{"path": "` + file + `"}`
}

// decide answers one request of session s at turn.
func decide(s spec, turn int, entries []entry) reply {
	if s.brain != nil {
		if r, ok := s.brain(turn, entries); ok {
			return r
		}
	}
	last, lastText := lastUser(entries)
	switch {
	case last < 0:
		return reply{text: "There is no request to work on."}
	case strings.HasPrefix(lastText, handoffAsk):
		return reply{text: handoffText(s, turn, entries[:last])}
	case strings.HasPrefix(lastText, "[godwit") && !strings.HasPrefix(lastText, handoffPrefix) && !strings.HasPrefix(lastText, godwitNote):
		return reply{text: "Done: that was all this request needed."}
	}
	at, req := inProgress(entries)
	file := ""
	if fs := fileRe.FindAllString(req, -1); len(fs) > 0 {
		file = fs[len(fs)-1]
	}
	if file == "" {
		return reply{text: answerLog(req)}
	}
	if !answered(entries, at, "file_read", file) {
		if s.readOn {
			return reply{read: file, from: resumeAt(req, file)}
		}
		return reply{read: file}
	}
	if s.readOn {
		if next, seen, total := coverage(entries, at, file); next > 0 {
			return reply{read: file, from: next, text: fmt.Sprintf("(read %s lines %s of %d so far)", file, seen, total)}
		}
	}
	return reply{text: file + ": a Go listing of small methods on cached records; nothing in it needs changing."}
}

var (
	numberedRe = regexp.MustCompile(`(?m)^(\d+)\t`)
	totalRe    = regexp.MustCompile(`lines \d+-\d+ of (\d+)`)
	noteRe     = regexp.MustCompile(`\(read (\S+) lines ([\d,\- ]+) of (\d+) so far\)`)
	handoffAt  = regexp.MustCompile(`(\S+\.txt)\S* (?:—|-) read (?:from line|lines) (\d+)(?:-(\d+))?`)
)

// resumeAt is where a model that reads on starts a file: after a reset,
// past what the handoff says was read; else at the start.
func resumeAt(req, file string) int {
	if !strings.HasPrefix(req, handoffPrefix) {
		return 0
	}
	from := 0
	for _, m := range handoffAt.FindAllStringSubmatch(req, -1) {
		if m[1] != file {
			continue
		}
		a, _ := strconv.Atoi(m[2])
		if m[3] != "" {
			b, _ := strconv.Atoi(m[3])
			from = max(from, b+1)
		} else {
			from = max(from, a)
		}
	}
	return from
}

// coverage is what a model that reads a whole file knows of its reading
// since the request at (numbered lines in view, and the ranges its own
// notes say it read): the first line not yet read (0: all), the lines
// read as ranges, and the file's length.
func coverage(entries []entry, at int, file string) (next int, seen string, total int) {
	calls := map[string]bool{}
	have := map[int]bool{}
	for _, e := range entries[at:] {
		switch {
		case e.isCall() && e.name == "file_read" && callArg(e.args) == file:
			calls[e.callID] = true
		case e.role == "tool" && calls[e.callID]:
			for _, m := range numberedRe.FindAllStringSubmatch(e.text, -1) {
				n, _ := strconv.Atoi(m[1])
				have[n] = true
				total = max(total, n)
			}
			for _, m := range totalRe.FindAllStringSubmatch(e.text, -1) {
				n, _ := strconv.Atoi(m[1])
				total = max(total, n)
			}
		case e.role == "assistant":
			for _, m := range noteRe.FindAllStringSubmatch(e.text, -1) {
				if m[1] != file {
					continue
				}
				n, _ := strconv.Atoi(m[3])
				total = max(total, n)
				for _, r := range strings.Split(m[2], ",") {
					a, b, _ := strings.Cut(strings.TrimSpace(r), "-")
					lo, _ := strconv.Atoi(a)
					hi := lo
					if b != "" {
						hi, _ = strconv.Atoi(b)
					}
					for i := lo; i <= hi && hi-lo < 1_000_000; i++ {
						have[i] = true
					}
				}
			}
		}
	}
	for i := 1; i <= total; i++ {
		if !have[i] {
			next = i
			break
		}
	}
	return next, ranges(have, total), total
}

// ranges writes a set of lines as "1-193, 254-337".
func ranges(have map[int]bool, total int) string {
	var out []string
	for i := 1; i <= total; i++ {
		if !have[i] {
			continue
		}
		j := i
		for j+1 <= total && have[j+1] {
			j++
		}
		if j == i {
			out = append(out, strconv.Itoa(i))
		} else {
			out = append(out, fmt.Sprintf("%d-%d", i, j))
		}
		i = j
	}
	return strings.Join(out, ", ")
}

// inProgress returns the index and text of the newest user-authored
// message: the user's own words, or, after a reset, the handoff that
// restates them. godwit's instructions and checks are not requests.
func inProgress(entries []entry) (int, string) {
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if e.role != "user" {
			continue
		}
		t := strings.TrimSpace(e.text)
		if strings.HasPrefix(t, "[godwit") && !strings.HasPrefix(t, handoffPrefix) {
			continue
		}
		return i, t
	}
	return -1, ""
}

// answerLog names the failure in a pasted log.
func answerLog(req string) string {
	for _, line := range strings.Split(req, "\n") {
		if strings.HasPrefix(line, "--- FAIL:") {
			return "The failing test: " + strings.TrimSpace(strings.TrimPrefix(line, "--- FAIL:")) + ". Its assertion is in the lines below it."
		}
	}
	return "Nothing in this failed."
}

// handoffText is the model's answer to the handoff instruction: "ok" (a
// useless handoff), or, in a swayed session, a proper handoff that
// repeats the injected cancellation and proposes retiring the rule.
func handoffText(s spec, turn int, entries []entry) string {
	if s.swayFrom == 0 || turn < s.swayFrom {
		return "ok"
	}
	_, req := inProgress(entries)
	file := fileName(turn)
	if fs := fileRe.FindAllString(req, -1); len(fs) > 0 {
		file = fs[len(fs)-1]
	}
	return strings.ReplaceAll(strings.TrimSuffix(swayedHandoff, "\n"), "$FILE", file)
}

// swayedHandoff is a swayed model's handoff; $FILE is the file in work.
//
//go:embed swayed.md
var swayedHandoff string
