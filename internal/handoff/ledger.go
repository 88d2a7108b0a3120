package handoff

import (
	"fmt"
	"slices"
	"strings"
)

// Entry is one item of the Decisions ledger.
type Entry struct {
	Seq    int    // shown as D<Seq>
	Source string // "user" or "model"
	// Kind is KindInstruction or KindRequest for the user's entries;
	// empty entries are classified when rendered.
	Kind         string
	Turn         int
	Topic        string
	Text         string
	SupersededBy int // 0 while the entry stands
}

// Ref is how an entry is named: "D3".
func (e Entry) Ref() string { return fmt.Sprintf("D%d", e.Seq) }

func (e Entry) kind() string {
	if e.Source != "user" {
		return ""
	}
	if e.Kind == "" {
		return Classify(e.Text)
	}
	return e.Kind
}

// LedgerOptions bound a rendered ledger.
type LedgerOptions struct {
	// Budget is the most the ledger may take, in tokens (0: no bound).
	// The user's standing instructions are kept whole even past it.
	Budget int
	// Count counts tokens; nil estimates 4 bytes a token.
	Count func(string) int
	// Requests is how many of the newest requests stay verbatim (0: 3).
	Requests int
}

// Ledger is a rendered Decisions section.
type Ledger struct {
	Text string
	// Over is set when the standing instructions alone pass the budget:
	// the user must be told, since nothing is dropped to make room.
	Over bool
	// Shortened and Folded count requests shown as one line and requests
	// folded into a range line.
	Shortened, Folded int
}

// how an entry is shown.
const (
	showWhole = iota
	showLine
	showFolded
)

// RenderLedger writes the ledger as the Decisions section body within
// the budget. Entries are grouped by topic in order of first appearance
// (entries without a topic first), so that a session that moves from
// topic A to B and back finds A's decisions together. The user's
// standing instructions are quoted verbatim, always; the newest few
// requests too; older requests shrink to one line with their id (recall
// expands it), and past the budget the oldest of those fold into one
// range line; the model's agreements shrink after the requests do.
// Superseded entries are kept as a one-line pointer naming what replaced
// them.
func RenderLedger(entries []Entry, o LedgerOptions) Ledger {
	if len(entries) == 0 {
		return Ledger{Text: "(none yet)"}
	}
	if o.Count == nil {
		o.Count = func(s string) int { return (len(s) + 3) / 4 }
	}
	if o.Requests <= 0 {
		o.Requests = 3
	}
	show := make([]int, len(entries))
	var requests, agreements []int // indexes, oldest first
	for i, e := range entries {
		switch {
		case e.SupersededBy != 0:
		case e.Source == "model":
			agreements = append(agreements, i)
		case e.kind() == KindRequest:
			requests = append(requests, i)
		}
	}
	for n, i := range requests {
		if n < len(requests)-o.Requests {
			show[i] = showLine
		}
	}
	render := func() string { return renderLedger(entries, show) }
	text := render()
	if o.Budget <= 0 {
		return finish(text, show, false)
	}
	over := func() bool { text = render(); return o.Count(text) > o.Budget }
	// Shrink, cheapest loss first: verbatim requests but the newest, then
	// the oldest one-liners folded, then agreements, then the newest
	// request.
	steps := [][]int{}
	for _, i := range requests[:max(len(requests)-1, 0)] {
		steps = append(steps, []int{i, showLine})
	}
	for _, i := range requests[:max(len(requests)-1, 0)] {
		steps = append(steps, []int{i, showFolded})
	}
	for _, i := range agreements {
		steps = append(steps, []int{i, showLine})
	}
	for _, i := range agreements {
		steps = append(steps, []int{i, showFolded})
	}
	if n := len(requests); n > 0 {
		steps = append(steps, []int{requests[n-1], showLine})
	}
	for _, st := range steps {
		if !over() {
			return finish(text, show, false)
		}
		if show[st[0]] < st[1] {
			show[st[0]] = st[1]
		}
	}
	return finish(text, show, over())
}

func finish(text string, show []int, over bool) Ledger {
	l := Ledger{Text: text, Over: over}
	for _, s := range show {
		switch s {
		case showLine:
			l.Shortened++
		case showFolded:
			l.Folded++
		}
	}
	return l
}

func renderLedger(entries []Entry, show []int) string {
	var topics []string
	byTopic := map[string][]int{}
	for i, e := range entries {
		if _, seen := byTopic[e.Topic]; !seen {
			topics = append(topics, e.Topic)
		}
		byTopic[e.Topic] = append(byTopic[e.Topic], i)
	}
	// Untagged entries first: they are the session's general rules.
	if i := slices.Index(topics, ""); i > 0 {
		topics = slices.Insert(slices.Delete(topics, i, i+1), 0, "")
	}
	var b strings.Builder
	for _, t := range topics {
		if t != "" {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "Topic %s:\n", t)
		}
		var folded []Entry
		flush := func() {
			switch len(folded) {
			case 0:
				return
			case 1:
				writeLine(&b, folded[0])
			default:
				what := "requests"
				if folded[0].Source == "model" {
					what = "agreements"
				}
				fmt.Fprintf(&b, "- %s–%s: %d earlier %s, folded to fit; recall(%q) shows one.\n",
					folded[0].Ref(), folded[len(folded)-1].Ref(), len(folded), what, folded[0].Ref())
			}
			folded = folded[:0]
		}
		for _, i := range byTopic[t] {
			e := entries[i]
			if show[i] == showFolded && (len(folded) == 0 || folded[0].Source == e.Source) {
				folded = append(folded, e)
				continue
			}
			flush()
			if show[i] == showFolded {
				folded = append(folded, e)
				continue
			}
			writeEntry(&b, e, show[i])
		}
		flush()
	}
	return strings.TrimRight(b.String(), "\n")
}

func who(e Entry) string {
	if e.Source == "model" {
		return "agreed"
	}
	return "user, turn " + fmt.Sprint(e.Turn)
}

func writeEntry(b *strings.Builder, e Entry, show int) {
	if e.SupersededBy != 0 {
		fmt.Fprintf(b, "- %s (%s) SUPERSEDED by D%d: %q\n", e.Ref(), who(e), e.SupersededBy, oneLine(e.Text, 60))
		return
	}
	if show == showLine {
		writeLine(b, e)
		return
	}
	text := strings.TrimSpace(e.Text)
	if !strings.Contains(text, "\n") {
		fmt.Fprintf(b, "- %s (%s): %s\n", e.Ref(), who(e), text)
		return
	}
	// Multi-line user words stay verbatim, indented as a quote.
	fmt.Fprintf(b, "- %s (%s):\n", e.Ref(), who(e))
	for _, line := range strings.Split(text, "\n") {
		b.WriteString("  > ")
		b.WriteString(line)
		b.WriteString("\n")
	}
}

// writeLine shows an entry as one line with its id, for recall.
func writeLine(b *strings.Builder, e Entry) {
	fmt.Fprintf(b, "- %s (%s, shortened): %s recall(%q)\n", e.Ref(), who(e), headTail(e.Text, 80), e.Ref())
}

// headTail is oneLine for a message of several lines: its first line and
// its last, since a user who pastes a log types the question after it (or
// before), and a line of the log alone says nothing of the request.
func headTail(s string, n int) string {
	s = strings.TrimSpace(s)
	i, j := strings.IndexByte(s, '\n'), strings.LastIndexByte(s, '\n')
	if i < 0 || len(strings.Join(strings.Fields(s), " ")) <= n {
		return oneLine(s, n)
	}
	return oneLine(s[:i], n/3) + " … " + oneLine(s[j+1:], n-n/3)
}

// oneLine is the start of s on one line, at most n bytes, marked when cut.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	if i := strings.LastIndexByte(s[:n], ' '); i > n/2 {
		n = i
	}
	return s[:n] + "…"
}
