package handoff

import (
	"strconv"
	"strings"
)

// Draft is what a model wrote for a handoff, parsed.
type Draft struct {
	Task         string
	Coordinates  []Coordinate
	Verification string
	Progress     string
	Next         string
	// Proposals are new ledger entries the model says were agreed.
	Proposals []Proposal
	// Supersede are the model's claims that an entry no longer holds.
	Supersede []Supersession
	// Topics label entries: seq -> topic.
	Topics map[int]string
	// pages the engine's draft names for References.
	pages []string
	// engine marks the engine's own draft, whose task is the user's
	// words: Sanitize leaves those be.
	engine bool
}

// Proposal is a new entry a model proposes for the ledger.
type Proposal struct {
	Topic string
	Text  string
}

// Instruction is appended to the segment's history as the last user
// message of the handoff call: the request then extends the segment's
// cached prefix, so writing the handoff costs little. ledger is the
// rendered Decisions ledger.
func Instruction(ledger string) string {
	return `[godwit: the context window is full and is about to be reset. Write the handoff your next self will start from; it will see nothing else of this conversation. Do not call tools. Use exactly these headings, and be specific: file paths, symbols, commands, numbers.

## Current task
What the user wants now, and what done looks like.
## Coordinates
One line each: - path:line Symbol — why it matters
## Verification
Commands run and what they showed.
## Progress and blockers
What is done, what is not, what blocks.
## Next step
The very next action.
## Decisions
godwit keeps the ledger below verbatim; you cannot edit it. Propose changes only, one per line, or write none:
+ [topic] a decision agreed with the user that is not in the ledger
~ D3 by D7 (the user's later entry D7 replaced D3)
@ D3 topic (label an entry with its topic)

Ledger:
` + ledger + "\n]"
}

var (
	headingRe    = lazy(`(?m)^#{1,4}\s*(.+?)\s*#*\s*$`)
	proposalRe   = lazy(`^\+\s*(?:\[([^\]]*)\]\s*)?(.+)$`)
	supersedeRe  = lazy(`(?i)^~\s*D(\d+)\s+(?:by|superseded by|->|→)\s*D(\d+)`)
	topicRe      = lazy(`(?i)^@\s*D(\d+)\s+(.+)$`)
	coordinateRe = lazy(`^[-*]\s*([^\s:]+?)(?::(\d+))?(?:\s+([^—–-]+?))?(?:\s*[—–-]+\s*(.+))?\s*$`)
)

// Degenerate reports whether a model's draft carries too little to
// work from: the core sections (task, progress, next step) mostly
// missing, or almost no words in them, as in "ok".
func Degenerate(d Draft) bool {
	present := 0
	for _, s := range []string{d.Task, d.Progress, d.Next} {
		if len(strings.Fields(s)) >= 3 {
			present++
		}
	}
	words := len(strings.Fields(d.Task + " " + d.Progress + " " + d.Next + " " + d.Verification))
	return present < 2 || words < 12
}

// Parse reads a model's handoff text. It is lenient: unknown headings are
// ignored, missing sections stay empty, and a text without headings is
// taken whole as Progress, so nothing the model wrote is lost.
func Parse(text string) Draft {
	d := Draft{Topics: map[int]string{}}
	locs := headingRe().FindAllStringSubmatchIndex(text, -1)
	if len(locs) == 0 {
		d.Progress = strings.TrimSpace(text)
		return d
	}
	for i, loc := range locs {
		end := len(text)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		head := strings.ToLower(strings.Trim(text[loc[2]:loc[3]], " *:"))
		body := strings.TrimSpace(text[loc[1]:end])
		switch {
		case strings.HasPrefix(head, "current task"), head == "task":
			d.Task = body
		case strings.HasPrefix(head, "coordinates"):
			d.Coordinates = parseCoordinates(body)
		case strings.HasPrefix(head, "verification"):
			d.Verification = body
		case strings.HasPrefix(head, "progress"):
			d.Progress = body
		case strings.HasPrefix(head, "next"):
			d.Next = body
		case strings.HasPrefix(head, "decision"):
			d.parseDecisions(body)
		}
	}
	return d
}

func parseCoordinates(body string) []Coordinate {
	var out []Coordinate
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimSpace(line)
		m := coordinateRe().FindStringSubmatch(line)
		if m == nil || !strings.ContainsAny(m[1], "./") {
			continue
		}
		c := Coordinate{File: strings.Trim(m[1], "`"), Symbol: strings.Trim(strings.TrimSpace(m[3]), "`"), Note: strings.TrimSpace(m[4])}
		c.Line, _ = strconv.Atoi(m[2])
		out = append(out, c)
	}
	return out
}

func (d *Draft) parseDecisions(body string) {
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimSpace(line)
		if m := supersedeRe().FindStringSubmatch(line); m != nil {
			old, _ := strconv.Atoi(m[1])
			by, _ := strconv.Atoi(m[2])
			d.Supersede = append(d.Supersede, Supersession{Old: old, By: by})
			continue
		}
		if m := topicRe().FindStringSubmatch(line); m != nil {
			seq, _ := strconv.Atoi(m[1])
			d.Topics[seq] = strings.Trim(strings.TrimSpace(m[2]), "\"'`[]")
			continue
		}
		if m := proposalRe().FindStringSubmatch(line); m != nil && strings.TrimSpace(m[2]) != "" {
			d.Proposals = append(d.Proposals, Proposal{Topic: strings.TrimSpace(m[1]), Text: strings.TrimSpace(m[2])})
		}
	}
}
