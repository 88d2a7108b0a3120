package eval

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/godwit/godwit/llm"
)

// ledgerEntry is one line of the Decisions ledger as the engine rendered
// it into a request (handoff.RenderLedger).
type ledgerEntry struct {
	Seq  int
	Turn int // the user's turn; 0 for an agreed (model-proposed) entry
	User bool
	// Text is the entry verbatim; empty when superseded or shortened
	// (the engine then shows a pointer or one line).
	Text         string
	SupersededBy int
	Shortened    bool
	Topic        string
}

// Ref names the entry as the handoff's Decisions lines do: "D3".
func (e ledgerEntry) Ref() string { return "D" + strconv.Itoa(e.Seq) }

var (
	entryRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^- D(\d+) \((?:user, turn (\d+)|agreed)(, shortened)?\)(?:: (.*)| SUPERSEDED by D(\d+)(?:: .*)?|:)$`)
	})
	// foldRe is a range of entries folded into one line to fit.
	foldRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^- D\d+–D\d+: \d+ earlier `) })
	groupRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Topic (.+):$`) })
)

// ledgerOf returns the newest ledger in the request: the last block of
// ledger lines in any message (the handoff instruction's when the engine
// asks for a handoff, else the handoff that opened the segment).
func ledgerOf(req llm.Request) []ledgerEntry {
	var last []ledgerEntry
	for _, m := range req.Messages {
		if b := parseLedger(m.Text()); len(b) > 0 {
			last = b
		}
	}
	return last
}

// parseLedger returns the last ledger block of text.
func parseLedger(text string) []ledgerEntry {
	var last, cur []ledgerEntry
	topic := ""
	in := false
	end := func() {
		if len(cur) > 0 {
			last = cur
		}
		cur, topic, in = nil, "", false
	}
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		if m := entryRe().FindStringSubmatch(line); m != nil {
			e := ledgerEntry{Topic: topic, User: m[2] != "", Text: m[4], Shortened: m[3] != ""}
			if e.Shortened {
				e.Text = ""
			}
			e.Seq, _ = strconv.Atoi(m[1])
			e.Turn, _ = strconv.Atoi(m[2])
			e.SupersededBy, _ = strconv.Atoi(m[5])
			cur, in = append(cur, e), true
			continue
		}
		if in && foldRe().MatchString(line) {
			continue
		}
		if in && strings.HasPrefix(line, "  > ") && len(cur) > 0 {
			e := &cur[len(cur)-1]
			if e.Text != "" {
				e.Text += "\n"
			}
			e.Text += strings.TrimPrefix(line, "  > ")
			continue
		}
		if m := groupRe().FindStringSubmatch(line); m != nil && i+1 < len(lines) && entryRe().MatchString(lines[i+1]) {
			topic, in = m[1], true
			continue
		}
		if line == "" && in && i+1 < len(lines) && groupRe().MatchString(lines[i+1]) {
			continue // the blank line between topic groups
		}
		end()
	}
	end()
	return last
}

// requestText is everything the model reads in a request: the system
// prompt, every text part and every tool output, one per line.
func requestText(r llm.Request) string {
	var b strings.Builder
	b.WriteString(r.System)
	b.WriteString("\n")
	for _, m := range r.Messages {
		for _, p := range m.Parts {
			switch {
			case p.Kind == llm.PartText:
				b.WriteString(p.Text)
			case p.ToolResult != nil:
				b.WriteString(p.ToolResult.Content)
			default:
				continue
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}
