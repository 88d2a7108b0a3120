package handoff

import (
	"fmt"
	"strings"
)

// Section headings, in the order a handoff shows them.
const (
	HeadTask         = "Current task"
	HeadCoordinates  = "Coordinates"
	HeadDecisions    = "Decisions"
	HeadVerification = "Verification"
	HeadProgress     = "Progress and blockers"
	HeadNext         = "Next step"
	HeadReferences   = "References"
)

// Budgets in bytes. Decisions has none: it is never cut. The sum (about
// 10 KB, some 2.5k o200k tokens) keeps a handoff, Decisions excluded,
// under 3k tokens.
const (
	BudgetTask         = 1500
	BudgetCoordinates  = 2048
	BudgetVerification = 2000
	BudgetProgress     = 2500
	BudgetNext         = 1000
	BudgetReferences   = 1000
)

// Coordinate is a place in the code the work is about.
type Coordinate struct {
	File   string
	Symbol string
	Line   int
	Note   string
}

func (c Coordinate) key() string { return c.File + "\x00" + c.Symbol }

func (c Coordinate) String() string {
	s := c.File
	if c.Line > 0 {
		s += fmt.Sprintf(":%d", c.Line)
	}
	if c.Symbol != "" {
		s += " " + c.Symbol
	}
	if c.Note != "" {
		s += " — " + c.Note
	}
	return s
}

// MergeCoordinates folds newer coordinates into older ones: deduplicated
// by file and symbol with the newest winning, newest first, and cut to
// budget bytes by dropping the oldest.
func MergeCoordinates(older, newer []Coordinate, budget int) []Coordinate {
	seen := map[string]bool{}
	var out []Coordinate
	size := 0
	for _, list := range [][]Coordinate{newer, older} {
		for _, c := range list {
			if c.File == "" || seen[c.key()] {
				continue
			}
			seen[c.key()] = true
			n := len(c.String()) + 3
			if size+n > budget {
				return out
			}
			size += n
			out = append(out, c)
		}
	}
	return out
}

// Handoff is the message that opens a segment.
type Handoff struct {
	Segment     int // the segment this handoff opens
	Task        string
	Coordinates []Coordinate
	// Decisions is the rendered ledger (RenderLedger).
	Decisions    string
	Verification string
	Progress     string
	Next         string
	References   []string
	// Notes are short engine notices (memory files changed, ...).
	Notes []string
}

// Render writes the handoff message. Every section but Decisions is cut
// to its budget here, whatever produced it.
func (h Handoff) Render() string {
	var b strings.Builder
	fmt.Fprintf(&b, "[godwit handoff: the context was reset; segment %d starts here. This is your memory of the session so far. The Decisions are the user's own words and the agreements made: they still bind you.]\n", h.Segment)
	section := func(head, body string, budget int) {
		body = strings.TrimSpace(body)
		if body == "" {
			body = "(none)"
		}
		if budget > 0 {
			body = Trim(body, budget)
		}
		fmt.Fprintf(&b, "\n## %s\n%s\n", head, body)
	}
	section(HeadTask, h.Task, BudgetTask)
	var coords []string
	for _, c := range h.Coordinates {
		coords = append(coords, "- "+c.String())
	}
	section(HeadCoordinates, strings.Join(coords, "\n"), BudgetCoordinates)
	section(HeadDecisions, h.Decisions, 0)
	section(HeadVerification, h.Verification, BudgetVerification)
	section(HeadProgress, h.Progress, BudgetProgress)
	section(HeadNext, h.Next, BudgetNext)
	section(HeadReferences, strings.Join(h.References, "\n"), BudgetReferences)
	for _, n := range h.Notes {
		fmt.Fprintf(&b, "\n%s\n", n)
	}
	return b.String()
}

// Trim cuts s to at most n bytes at a line (or rune) boundary, saying so.
func Trim(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = "\n[… cut to fit]"
	cut := n - len(mark)
	if cut < 0 {
		cut = 0
	}
	for cut > 0 && (s[cut]&0xC0) == 0x80 { // not inside a rune
		cut--
	}
	if i := strings.LastIndexByte(s[:cut], '\n'); i > cut/2 {
		cut = i
	}
	return s[:cut] + mark
}

// trimMiddle cuts s to at most n bytes by keeping its head and its tail,
// at line (or rune) boundaries, and saying what was cut. A user's message
// is often a paste with the question after it ("<log>\nwhich test
// failed?") or before it: a head alone would keep the log and lose the
// question.
func trimMiddle(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const markLen = 40 // "\n[… 123456 bytes cut …]\n"
	keep := n - markLen
	if keep <= 0 {
		return Trim(s, n)
	}
	headN, tailN := keep/3, keep-keep/3
	head := s[:headN]
	for len(head) > 0 && (s[len(head)]&0xC0) == 0x80 {
		head = head[:len(head)-1]
	}
	if i := strings.LastIndexByte(head, '\n'); i > len(head)/2 {
		head = head[:i]
	}
	from := len(s) - tailN
	for from < len(s) && (s[from]&0xC0) == 0x80 {
		from++
	}
	if i := strings.IndexByte(s[from:], '\n'); i >= 0 && i < tailN/2 {
		from += i + 1
	}
	return head + fmt.Sprintf("\n[… %d bytes cut …]\n", from-len(head)) + s[from:]
}
