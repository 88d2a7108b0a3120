package handoff

import (
	"fmt"
	"slices"
	"strings"
)

// Entry is one item of the Decisions ledger.
type Entry struct {
	Seq          int    // shown as D<Seq>
	Source       string // "user" or "model"
	Turn         int
	Topic        string
	Text         string
	SupersededBy int // 0 while the entry stands
}

// Ref is how an entry is named: "D3".
func (e Entry) Ref() string { return fmt.Sprintf("D%d", e.Seq) }

// RenderLedger writes the ledger as the Decisions section body. Entries
// are grouped by topic in order of first appearance (entries without a
// topic first), so that a session that moves from topic A to B and back
// finds A's decisions together. Active entries are quoted verbatim;
// superseded ones are kept as a one-line pointer, since the entry that
// replaced them is what holds now.
func RenderLedger(entries []Entry) string {
	if len(entries) == 0 {
		return "(none yet)"
	}
	var topics []string
	byTopic := map[string][]Entry{}
	for _, e := range entries {
		if _, seen := byTopic[e.Topic]; !seen {
			topics = append(topics, e.Topic)
		}
		byTopic[e.Topic] = append(byTopic[e.Topic], e)
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
		for _, e := range byTopic[t] {
			writeEntry(&b, e)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func writeEntry(b *strings.Builder, e Entry) {
	who := "user, turn " + fmt.Sprint(e.Turn)
	if e.Source == "model" {
		who = "agreed"
	}
	if e.SupersededBy != 0 {
		fmt.Fprintf(b, "- %s (%s) SUPERSEDED by D%d\n", e.Ref(), who, e.SupersededBy)
		return
	}
	text := strings.TrimSpace(e.Text)
	if !strings.Contains(text, "\n") {
		fmt.Fprintf(b, "- %s (%s): %s\n", e.Ref(), who, text)
		return
	}
	// Multi-line user words stay verbatim, indented as a quote.
	fmt.Fprintf(b, "- %s (%s):\n", e.Ref(), who)
	for _, line := range strings.Split(text, "\n") {
		b.WriteString("  > ")
		b.WriteString(line)
		b.WriteString("\n")
	}
}

// Supersession is a model's claim that entry Old no longer holds because
// entry By replaced it.
type Supersession struct{ Old, By int }

// Validate checks a supersession against the ledger: both entries exist,
// By is later than Old, Old still stands, and By is the user's own entry
// (only the user can change a constraint; a model's proposal cannot
// retire the user's words).
func Validate(entries []Entry, s Supersession) error {
	find := func(seq int) (Entry, bool) {
		for _, e := range entries {
			if e.Seq == seq {
				return e, true
			}
		}
		return Entry{}, false
	}
	old, ok := find(s.Old)
	if !ok {
		return fmt.Errorf("handoff: no entry D%d", s.Old)
	}
	by, ok := find(s.By)
	switch {
	case !ok:
		return fmt.Errorf("handoff: no entry D%d", s.By)
	case s.By <= s.Old:
		return fmt.Errorf("handoff: D%d cannot supersede the later D%d", s.By, s.Old)
	case old.SupersededBy != 0:
		return fmt.Errorf("handoff: D%d is already superseded by D%d", s.Old, old.SupersededBy)
	case by.Source != "user":
		return fmt.Errorf("handoff: D%d is not the user's; only the user's words can supersede an entry", s.By)
	}
	return nil
}
