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
	// Kind is KindInstruction or KindRequest for the user's entries
	// (the user's pin or unpin over the classifier's verdict); empty
	// entries are classified when rendered.
	Kind         string
	Turn         int
	Topic        string
	Text         string
	SupersededBy int // 0 while the entry stands
	// Pin is the user's word over the classifier's: 1 pinned as a rule
	// (it never shrinks), -1 unpinned, 0 none. Kind already says it.
	Pin int
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
	Budget int
	// Count counts tokens; nil estimates 4 bytes a token.
	Count func(string) int
}

// Ledger is a rendered Decisions section.
type Ledger struct {
	Text string
	// Over is set when the ledger passes its budget with all that may
	// shrink shrunk: the user must be told.
	Over bool
	// Shrunk counts the entries shown shorter than whole to fit (short
	// pastes as markers, one line, folded into a range line); Rules, the
	// standing instructions among them shown as one line.
	Shrunk, Rules int
}

// how an entry is shown.
const (
	showWhole  = iota // its words verbatim, long pastes as markers
	showBare          // every paste a marker
	showLine          // one line with its id
	showFolded        // in a range line
)

// RenderLedger writes the ledger as the Decisions section body within
// the budget, grouped by topic in order of first appearance (untagged
// entries first). Every message of the user's is shown as said while
// the budget has room, its long pastes as markers that recall shows
// whole. Past the budget entries shrink in shrinkSteps' order, requests
// before instructions; instructions with a standing marker, and pinned
// ones, are never cut: past the budget with only those left, Over is set
// and the user is told. A shrunk entry keeps its id and says it is one
// recall away.
func RenderLedger(entries []Entry, o LedgerOptions) Ledger {
	if len(entries) == 0 {
		return Ledger{Text: "(none yet)"}
	}
	if o.Count == nil {
		o.Count = func(s string) int { return (len(s) + 3) / 4 }
	}
	show := make([]int, len(entries))
	// Each entry is written once per way it is shown: a message's
	// pastes are found once, not at every step.
	lines := map[[2]int]string{}
	line := func(i, mode int) string {
		k := [2]int{i, mode}
		if _, ok := lines[k]; !ok {
			lines[k] = entryText(entries[i], mode)
		}
		return lines[k]
	}
	text := renderLedger(entries, show, line)
	if o.Budget <= 0 {
		return finish(entries, text, show, false)
	}
	total := o.Count(text)
	if total <= o.Budget {
		return finish(entries, text, show, false)
	}
	// Entries are counted one by one as they shrink, and the whole
	// rendered again only when the sum says it fits: a ledger of
	// hundreds of entries is not counted hundreds of times.
	memo := map[[2]int]int{}
	cost := func(i, mode int) int {
		if mode == showFolded {
			return 0
		}
		k := [2]int{i, mode}
		if _, ok := memo[k]; !ok {
			memo[k] = o.Count(line(i, mode))
		}
		return memo[k]
	}
	for _, st := range shrinkSteps(entries) {
		if show[st.i] >= st.mode {
			continue
		}
		total -= cost(st.i, show[st.i]) - cost(st.i, st.mode)
		show[st.i] = st.mode
		if total <= o.Budget {
			text = renderLedger(entries, show, line)
			if total = o.Count(text); total <= o.Budget {
				return finish(entries, text, show, false)
			}
		}
	}
	text = renderLedger(entries, show, line)
	return finish(entries, text, show, o.Count(text) > o.Budget)
}

// step shrinks entry i to mode.
type step struct{ i, mode int }

// shrinkSteps lists the ledger's shrinking, cheapest loss first, oldest
// first within a step: the short pastes of requests and agreements;
// questions, then the other requests but the newest, to one line, then
// folded; agreements; superseded pointers; the newest request; and last
// the short pastes of unpinned instructions, then those with no standing
// marker to one line.
func shrinkSteps(entries []Entry) []step {
	var questions, plain, requests, agreements, superseded, unsure, rules []int
	for i, e := range entries {
		switch {
		case e.SupersededBy != 0:
			superseded = append(superseded, i)
		case e.Source == "model":
			agreements = append(agreements, i)
		case e.kind() == KindRequest:
			requests = append(requests, i)
		case e.Pin > 0:
			rules = append(rules, i)
		default:
			rules = append(rules, i)
			if _, marked := classify(e.Text); !marked {
				unsure = append(unsure, i)
			}
		}
	}
	newest := -1
	if n := len(requests); n > 0 {
		newest = requests[n-1]
		for _, i := range requests[:n-1] {
			if isQuestion(entries[i].Text) {
				questions = append(questions, i)
			} else {
				plain = append(plain, i)
			}
		}
	}
	var out []step
	add := func(ix []int, mode int) {
		for _, i := range ix {
			if mode != showBare || shortPaste(entries[i].Text) {
				out = append(out, step{i, mode})
			}
		}
	}
	add(requests, showBare)
	add(agreements, showBare)
	add(questions, showLine)
	add(plain, showLine)
	add(requests[:max(len(requests)-1, 0)], showFolded)
	add(agreements, showLine)
	add(agreements, showFolded)
	add(superseded, showFolded)
	if newest >= 0 {
		add([]int{newest}, showLine)
	}
	for _, i := range rules {
		if entries[i].Pin <= 0 && entries[i].Source == "user" {
			add([]int{i}, showBare)
		}
	}
	add(unsure, showLine)
	return out
}

// shortPaste reports whether a message has a paste the ledger shows
// whole while it has room.
func shortPaste(text string) bool {
	return slices.ContainsFunc(blocks(text), func(b block) bool { return b.paste && b.short() })
}

// isQuestion reports whether a message's prose is all questions.
func isQuestion(text string) bool {
	ss := sentencesOf(text)
	for _, s := range ss {
		if !s.question {
			return false
		}
	}
	return len(ss) > 0
}

func finish(entries []Entry, text string, show []int, over bool) Ledger {
	l := Ledger{Text: text, Over: over}
	for i, s := range show {
		if s != showWhole {
			l.Shrunk++
		}
		if e := entries[i]; s == showLine && e.Source == "user" && e.SupersededBy == 0 && e.kind() == KindInstruction {
			l.Rules++
		}
	}
	return l
}

// renderLedger writes the ledger with each entry shown as show says;
// line(i, mode) is entry i written so.
func renderLedger(entries []Entry, show []int, line func(i, mode int) string) string {
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
		// The folded entries of a kind make one range line, where the
		// first of them was.
		folded := map[string][]Entry{}
		for _, i := range byTopic[t] {
			if show[i] == showFolded {
				folded[foldClass(entries[i])] = append(folded[foldClass(entries[i])], entries[i])
			}
		}
		for _, i := range byTopic[t] {
			e := entries[i]
			if show[i] != showFolded {
				b.WriteString(line(i, show[i]))
				continue
			}
			group := folded[foldClass(e)]
			if group[0].Seq != e.Seq {
				continue
			}
			if len(group) == 1 {
				b.WriteString(line(i, showLine)) // a superseded pointer is one line already
				continue
			}
			fmt.Fprintf(&b, "- %s–%s: %d earlier %s, folded to fit; recall(%q) shows one.\n",
				group[0].Ref(), group[len(group)-1].Ref(), len(group), foldClass(e), group[0].Ref())
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// foldClass names what a folded entry is, for its range line.
func foldClass(e Entry) string {
	switch {
	case e.SupersededBy != 0:
		return "superseded entries"
	case e.Source == "model":
		return "agreements"
	}
	return "requests"
}

func who(e Entry) string {
	if e.Source == "model" {
		return "agreed"
	}
	return "user, turn " + fmt.Sprint(e.Turn)
}

// entryText is entry e shown as show says, one line or a quote of
// several, ending in a newline.
func entryText(e Entry, show int) string {
	if e.SupersededBy != 0 {
		return fmt.Sprintf("- %s (%s) SUPERSEDED by D%d: %q\n", e.Ref(), who(e), e.SupersededBy, oneLine(withMarkers(e.Text, e.Ref(), true), 60))
	}
	if show == showLine {
		return lineText(e)
	}
	text := strings.TrimSpace(e.Text)
	if e.Source == "user" {
		text = strings.TrimSpace(withMarkers(text, e.Ref(), show == showBare))
	}
	if !strings.Contains(text, "\n") {
		return fmt.Sprintf("- %s (%s): %s\n", e.Ref(), who(e), text)
	}
	// Multi-line words stay verbatim, indented as a quote: a line of the
	// user's must not read as a heading of the handoff.
	return fmt.Sprintf("- %s (%s):\n  > %s\n", e.Ref(), who(e), strings.ReplaceAll(text, "\n", "\n  > "))
}

// lineText shows an entry as one line with its id, for recall: its
// words with the pastes as short markers, the first line and the last
// when it has several (a user who pastes a log types the question after
// it, or before).
func lineText(e Entry) string {
	var lines []string
	for _, bl := range blocks(e.Text) {
		if bl.paste {
			lines = append(lines, fmt.Sprintf("[%d-line paste]", bl.lines))
			continue
		}
		lines = append(lines, strings.Split(bl.text, "\n")...)
	}
	return fmt.Sprintf("- %s (%s, shortened): %s recall(%q)\n", e.Ref(), who(e), headTail(lines, 80), e.Ref())
}

// headTail is lines on one line in at most about n runes: whole when
// they fit, else the start of the first and of the last.
func headTail(lines []string, n int) string {
	var kept []string
	for _, l := range lines {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			kept = append(kept, l)
		}
	}
	if whole := strings.Join(kept, " "); len(kept) < 2 || runeLen(whole) <= n {
		return oneLine(whole, n)
	}
	return oneLine(kept[0], n/3) + " … " + oneLine(kept[len(kept)-1], n-n/3)
}

func runeLen(s string) int { return len([]rune(s)) }

// oneLine is the start of s on one line, at most n runes (a cut in a
// byte count would halve a CJK sentence), marked when cut.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	cut := n
	// At a space when there is one in the second half.
	for i := n; i > n/2; i-- {
		if r[i] == ' ' {
			cut = i
			break
		}
	}
	return string(r[:cut]) + "…"
}

// Hints name the commands that pin and unpin an entry where a ledger
// is listed ("/pin Dn" in the chat, a flag on the command line).
type Hints struct{ Pin, Unpin string }

// ChatHints are the chat's slash commands.
func ChatHints() Hints { return Hints{Pin: "/pin Dn", Unpin: "/unpin Dn"} }

// RulesText lists a ledger for the user (/rules, `godwit rules`): the
// standing instructions, whole (long pastes as markers), with who made
// each one (the classifier or the user's pin); the superseded ones and
// what replaced them; the newest requests, which hints.Pin can make
// rules; and the model's agreements. The ids line up in one column.
func RulesText(entries []Entry, hints Hints) string {
	var rules, gone, requests, agreed []string
	width := 0
	for _, e := range entries {
		width = max(width, len(e.Ref()))
	}
	ref := func(e Entry) string { return fmt.Sprintf("%-*s", width, e.Ref()) }
	for _, e := range entries {
		switch {
		case e.Source == "model" && e.SupersededBy == 0:
			agreed = append(agreed, fmt.Sprintf("  %s  %s", ref(e), oneLine(e.Text, 100)))
		case e.Source == "model":
		case e.SupersededBy != 0:
			gone = append(gone, fmt.Sprintf("  %s  turn %d, replaced by D%d: %s", ref(e), e.Turn, e.SupersededBy, oneLine(withMarkers(e.Text, e.Ref(), true), 80)))
		case e.kind() == KindInstruction:
			how := ""
			if e.Pin > 0 {
				how = ", pinned"
			}
			text := strings.ReplaceAll(strings.TrimSpace(withMarkers(e.Text, e.Ref(), false)), "\n", "\n"+strings.Repeat(" ", width+4))
			rules = append(rules, fmt.Sprintf("  %s  turn %d%s: %s", ref(e), e.Turn, how, text))
		default:
			how := ""
			if e.Pin < 0 {
				how = ", unpinned"
			}
			requests = append(requests, fmt.Sprintf("  %s  turn %d%s: %s", ref(e), e.Turn, how, headTail(strings.Split(withMarkers(e.Text, e.Ref(), true), "\n"), 80)))
		}
	}
	var b strings.Builder
	section := func(head string, lines []string, most int) {
		if len(lines) == 0 {
			return
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s\n", head)
		if n := len(lines); n > most {
			fmt.Fprintf(&b, "  (%d earlier not shown)\n", n-most)
			lines = lines[n-most:]
		}
		b.WriteString(strings.Join(lines, "\n") + "\n")
	}
	section(fmt.Sprintf("Rules that stand (%d); %s if one is not a rule:", len(rules), hints.Unpin), rules, len(rules))
	section("Superseded:", gone, len(gone))
	section("Requests, the newest ("+hints.Pin+" keeps one as a rule):", requests, 10)
	section("Agreed by the model on its own work:", agreed, 10)
	if b.Len() == 0 {
		return "no messages yet"
	}
	return strings.TrimRight(b.String(), "\n")
}
