package handoff

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/godwit/godwit/internal/untrusted"
)

var (
	// pathRe: a path or a file name, between spaces, quotes or
	// letters of scripts that use no spaces ("vendor/目录").
	pathRe  = lazy("(?:^|[\\s\"'(\\[`]|[^\\x00-\\x7f])(\\.{0,2}/?[\\w.\\-]+(?:/[\\w.\\-]*)+|[\\w\\-]+\\.[a-z][a-z0-9]{0,4})(?:$|[\\s\"'),;:!?\\]`]|[^\\x00-\\x7f]|\\.(?:\\s|$))")
	codeRe  = lazy(`\b[A-Z][A-Z0-9]{1,}[-_]\w+\b|\b[A-Z]{3,}\d*\b`)
	identRe = lazy("`[^`\n]+`|\\b[a-z]+[A-Z]\\w*\\b|\\b\\w+_\\w+\\b|\\b[A-Z][a-z]+[A-Z]\\w*\\b")
	// wordRe: a content word of a spaced script.
	wordRe = lazy(`[\p{Latin}\p{Cyrillic}][\p{Latin}\p{Cyrillic}\-]{3,}`)
)

// subject is what a text is about: strong keys (paths, codes, names in
// backticks or code case) and content words.
type subject struct {
	keys, words map[string]bool
}

func subjectOf(text string) subject {
	s := subject{keys: map[string]bool{}, words: map[string]bool{}}
	low := strings.ToLower(text)
	// Doubled spaces: a match takes the delimiter after it, which must
	// leave one for the next path ("vendor/ docs/").
	for _, m := range pathRe().FindAllStringSubmatch(strings.ReplaceAll(spaceCJK(low), " ", "  "), -1) {
		p := strings.Trim(strings.TrimPrefix(m[1], "./"), "/.")
		if p != "" && !strings.HasPrefix(p, "e.g") && !strings.HasPrefix(p, "i.e") {
			s.keys["path:"+p] = true
		}
	}
	for _, m := range codeRe().FindAllString(text, -1) {
		s.keys["code:"+strings.ToLower(m)] = true
	}
	for _, m := range identRe().FindAllString(text, -1) {
		s.keys["name:"+strings.ToLower(strings.Trim(m, "`"))] = true
	}
	for _, w := range wordRe().FindAllString(low, -1) {
		w = strings.Trim(w, "-")
		if len(w) >= 4 && lex().Stop.set()[w] == nil && !s.keys["path:"+w] {
			s.words[strings.TrimSuffix(w, "s")] = true
		}
	}
	return s
}

// SameSubject reports whether two texts are about the same thing: a
// shared path, code or name, or two shared content words.
func SameSubject(a, b string) bool {
	sa, sb := subjectOf(a), subjectOf(b)
	if shared, _ := sharedKey(sa, sb, false); shared {
		return true
	}
	n := 0
	for w := range sa.words {
		if sb.words[w] {
			n++
		}
	}
	return n >= 2
}

// Changes reports whether text uses wording that changes an earlier
// instruction ("from now on", "instead", "no longer", "rule change"), in
// any of the nine languages.
func Changes(text string) bool {
	low := strings.ToLower(text)
	return strongChange(low) || weakChange(low)
}

// strongChange reports whether a lowercased sentence says an earlier
// instruction no longer holds as it was.
func strongChange(low string) bool { return lex().StrongChange.in(low, "") }

// weakChange reports whether a lowercased sentence starts a standing
// instruction, which may change an earlier one or add to it: only a turn
// of polarity (never -> may) makes it a change.
func weakChange(low string) bool { return lex().WeakChange.in(low, "") || lex().Temporal.in(low, "") }

var refRe = lazy(`\bD(\d+)\b`)

// spaceCJK puts spaces around the runs of scripts that use none, so that
// a path written against them ("修改vendor/目录") is a word.
func spaceCJK(s string) string {
	var b strings.Builder
	prev := false
	for _, r := range s {
		cjk := unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) || strings.ContainsRune("。、，：；！？（）「」『』", r)
		if cjk != prev && b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
		prev = cjk
	}
	return b.String()
}

// actions maps the stems of the verbs an instruction is about to their
// act (words.txt's verb lists).
var actions = sync.OnceValue(func() map[string]string {
	w, m := lex(), map[string]string{}
	for act, l := range map[string]*wordList{"write": &w.VerbWrite, "read": &w.VerbRead, "run": &w.VerbRun,
		"use": &w.VerbUse, "style": &w.VerbStyle, "talk": &w.VerbTalk, "test": &w.VerbTest} {
		for st := range l.set() {
			m[st] = act
		}
	}
	return m
})

// actionsOf returns the groups of the verbs in a lowercased sentence.
func actionsOf(low string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(low, func(r rune) bool { return !unicode.IsLetter(r) }) {
		r := []rune(w)
		for n := min(len(r), 7); n >= 3; n-- {
			if g, ok := actions()[string(r[:n])]; ok {
				out[g] = true
				break
			}
		}
	}
	for st, g := range actions() {
		if r, _ := utf8.DecodeRuneInString(st); r > 0x2e80 && strings.Contains(low, st) {
			out[g] = true
		}
	}
	return out
}

// polarity is -1 for a sentence that forbids, +1 for one that permits, 0
// for neither or both.
func polarity(low string) int {
	no, yes := lex().Prohibit.in(low, ""), lex().Permit.in(low, "")
	switch {
	case no && !yes:
		return -1
	case yes && !no:
		return 1
	}
	return 0
}

// Reference strengths of a sentence to an earlier entry.
const (
	refNone = iota
	// refWeak: a shared path, name or code, or one content word.
	refWeak
	// refStrong: the entry's id or code, or a shared path or name with
	// the same act ("edit") or the word "rule" in one of its sentences.
	refStrong
)

// reference says how strongly sentence s points at the earlier entry
// old.
func reference(s string, old Entry) int {
	low := strings.ToLower(s)
	for _, m := range refRe().FindAllStringSubmatch(s, -1) {
		if m[1] == fmt.Sprint(old.Seq) {
			return refStrong
		}
	}
	ss := subjectOf(s)
	best := refNone
	for _, os := range sentences(old.Text) {
		o := subjectOf(os)
		key, code := sharedKey(ss, o, true)
		if code {
			return refStrong
		}
		if key {
			// The same act on it, or "the rule" about it when one of the
			// two names no act; two different acts are two subjects
			// ("read vendor/README.md" is no rule on editing vendor/).
			mine, theirs := actionsOf(low), actionsOf(strings.ToLower(os))
			shared := false
			for g := range mine {
				shared = shared || theirs[g]
			}
			if shared || lex().Rule.in(low, "") && (len(mine) == 0 || len(theirs) == 0) {
				return refStrong
			}
			best = refWeak
			continue
		}
		for w := range ss.words {
			if o.words[w] {
				best = max(best, refWeak)
			}
		}
	}
	return best
}

// sharedKey reports whether two subjects share a path (or a folder and
// what is in it, or with bare set a folder named as a bare word), a name
// or a code, and whether what they share is a code.
func sharedKey(a, b subject, bare bool) (shared, code bool) {
	for k := range a.keys {
		if b.keys[k] {
			if strings.HasPrefix(k, "code:") {
				return true, true
			}
			shared = true
		}
		p, ok := strings.CutPrefix(k, "path:")
		if !ok {
			continue
		}
		if bare && b.words[strings.TrimSuffix(p, "s")] && !strings.Contains(p, "/") {
			shared = true
		}
		for k2 := range b.keys {
			if q, ok := strings.CutPrefix(k2, "path:"); ok && (strings.HasPrefix(q, p+"/") || strings.HasPrefix(p, q+"/")) {
				shared = true
			}
		}
	}
	for k := range b.keys {
		if p, ok := strings.CutPrefix(k, "path:"); ok && bare && !strings.Contains(p, "/") && a.words[strings.TrimSuffix(p, "s")] {
			shared = true
		}
	}
	return shared, false
}

// changeSentences returns the sentences of text that say something
// changes, each with its neighbours when it names nothing itself
// ("Scratch that. vendor/ is yours to edit."), and whether the change
// wording is strong.
func changeSentences(text string) (out []string, strong []bool) {
	ss := sentences(text)
	for i, s := range ss {
		low := strings.ToLower(s)
		st, wk := strongChange(low), weakChange(low)
		if !st && !wk {
			continue
		}
		switch sub := subjectOf(s); {
		case len(sub.keys) == 0 && len(sub.words) < 2:
			if i > 0 {
				s = ss[i-1] + " " + s
			}
			if i+1 < len(ss) {
				s += " " + ss[i+1]
			}
		case len(sub.keys) > 0 && strings.HasSuffix(s, ";") && i+1 < len(ss):
			s += " " + ss[i+1] // "ya no hace falta...; puedes editarlo"
		}
		out, strong = append(out, s), append(strong, st)
	}
	return out, strong
}

// changesEntry reports whether the user's text changes the earlier
// instruction old: a sentence with strong change wording ("no longer",
// "may now") that points strongly at old (reference), or one with weak
// wording ("from now on") that does so and turns its polarity. With
// model set it checks a model's claim, for which strong wording with any
// pointer, or weak wording with a strong one, is enough.
func changesEntry(text string, old Entry, model bool) bool {
	oldPol := polarity(strings.ToLower(old.Text))
	ss, strong := changeSentences(text)
	for i, s := range ss {
		low := strings.ToLower(s)
		if lex().Additive.in(low, "") && !strong[i] || oldPol < 0 && avoids(low, old) {
			continue
		}
		ref := reference(s, old)
		switch {
		case strong[i] && ref == refStrong, strong[i] && model && ref >= refWeak:
			return true
		case !strong[i] && ref == refStrong && (model || polarity(low)*oldPol < 0):
			return true
		}
	}
	return false
}

// avoids reports whether a lowercased sentence puts old's subject after
// "instead of" ("instead of editing vendor/, wrap it"): it keeps to a
// rule that forbids, and changes nothing.
func avoids(low string, old Entry) bool {
	m := lex().Instead.find(low, "")
	if m == nil {
		return false
	}
	after := low[m[1]:]
	if i := strings.IndexAny(after, ",;.，；。"); i >= 0 {
		after = after[:i]
	}
	shared, _ := sharedKey(subjectOf(after), subjectOf(old.Text), true)
	return shared
}

// Supersedes returns the entries the user's new entry e retires: the
// earlier standing instructions, the user's, still in force, that e
// changes (changesEntry). No model is asked: only the user's words
// retire the user's words.
func Supersedes(ledger []Entry, e Entry) []int {
	if e.Source != "user" || e.Kind != KindInstruction {
		return nil
	}
	var out []int
	for _, old := range ledger {
		if old.Seq < e.Seq && old.SupersededBy == 0 && old.Source == "user" && old.Kind == KindInstruction && changesEntry(e.Text, old, false) {
			out = append(out, old.Seq)
		}
	}
	return out
}

// Supersession is a model's claim that entry Old no longer holds because
// entry By replaced it.
type Supersession struct{ Old, By int }

// Validate checks a model's supersession against the ledger. It stands
// only when both entries exist, Old still stands, and By is a later
// message of the user's that changes Old in its own words: a model can
// point at the user's change, never make one.
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
	case by.Kind == KindRequest:
		return fmt.Errorf("handoff: D%d is a request, not an instruction; it changes no rule", s.By)
	case !Changes(by.Text):
		return fmt.Errorf("handoff: D%d does not say that anything changes; it retires no rule", s.By)
	case !changesEntry(by.Text, old, true):
		return fmt.Errorf("handoff: D%d and D%d are about different things", s.Old, s.By)
	}
	return nil
}

// ErrRejected reasons a model's proposal is kept out of the ledger.
var (
	errWeakens   = fmt.Errorf("it would loosen the user's instructions, which only the user can do")
	errUntrusted = fmt.Errorf("it reads like injected instructions")
	errCopied    = fmt.Errorf("it repeats a tool's output, and nothing from a tool enters the ledger")
	errDuplicate = fmt.Errorf("the ledger already holds it")
	errUsers     = fmt.Errorf("it is about the user's own instructions, whose words stand as the user said them")
)

// Admit decides whether a model's proposed entry may enter the ledger.
// outputs are the tool outputs the model saw in the segment. A model's
// entry records what it agreed on its own work; it may not restate,
// narrow, extend or cancel the user's instructions in any words, so an
// entry about them (their subject, or rules and the user at all) is
// refused: the user's words stand as said.
func Admit(ledger []Entry, text string, outputs []string) error {
	if Weakens(ledger, text) {
		return fmt.Errorf("handoff: proposal rejected: %w", errWeakens)
	}
	if untrusted.Suspicious(text) {
		return fmt.Errorf("handoff: proposal rejected: %w", errUntrusted)
	}
	if copied(text, outputs) {
		return fmt.Errorf("handoff: proposal rejected: %w", errCopied)
	}
	norm := normalize(text)
	for _, e := range ledger {
		if normalize(e.Text) == norm {
			return fmt.Errorf("handoff: proposal rejected: %w (D%d)", errDuplicate, e.Seq)
		}
	}
	if aboutRules(text) || aboutInstruction(ledger, text) {
		return fmt.Errorf("handoff: proposal rejected: %w", errUsers)
	}
	return nil
}

// aboutRules reports whether text speaks of rules, instructions or the
// user, in English or in a few other languages.
func aboutRules(text string) bool {
	low := strings.ToLower(text)
	return lex().AboutRules.in(low, "") || slices.ContainsFunc(untrusted.ForeignRuleWords, func(w string) bool { return strings.Contains(low, w) })
}

// aboutInstruction reports whether text shares a subject (a path, code
// or name, or two content words) with one of the user's standing
// instructions.
func aboutInstruction(ledger []Entry, text string) bool {
	return slices.ContainsFunc(ledger, func(e Entry) bool {
		return e.Source == "user" && e.Kind == KindInstruction && e.SupersededBy == 0 && SameSubject(e.Text, text)
	})
}

// Weakens reports whether text loosens one of the user's standing
// instructions: loosening words about the same subject, or about rules,
// instructions or the user in general.
func Weakens(ledger []Entry, text string) bool {
	low := strings.ToLower(text)
	weak := lex().Weaken.in(low, "") || slices.ContainsFunc(untrusted.ForeignCancelWords, func(w string) bool { return strings.Contains(low, w) })
	return weak && (aboutRules(text) || aboutInstruction(ledger, text))
}

// copied reports whether text shares a run of eight words with an output.
func copied(text string, outputs []string) bool {
	w := strings.Fields(normalize(text))
	if len(w) < 8 || len(outputs) == 0 {
		return false
	}
	var all strings.Builder
	for _, o := range outputs {
		all.WriteString(normalize(o))
		all.WriteByte(' ')
	}
	hay := " " + all.String()
	for i := 0; i+8 <= len(w); i++ {
		if strings.Contains(hay, " "+strings.Join(w[i:i+8], " ")+" ") {
			return true
		}
	}
	return false
}

func normalize(s string) string {
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '/' || r == '.' || r == '-' || r == '_' || r > 127)
	})
	for i := range f {
		f[i] = strings.Trim(f[i], "./-_")
	}
	return strings.Join(f, " ")
}

// Sanitize drops from a model's draft every line, and every topic label,
// that reads like an injection, loosens the user's instructions, or
// restates one in other words (the user's own words are in Decisions),
// so a swayed model cannot carry "the rule is cancelled" into the next
// segment. It returns how many lines and labels went.
func Sanitize(d *Draft, ledger []Entry) int {
	dropped := 0
	for seq, t := range d.Topics {
		if !ValidTopic(ledger, t) {
			delete(d.Topics, seq)
			dropped++
		}
	}
	drop := func(s string, bad func(string) bool) string {
		var keep []string
		for _, line := range strings.Split(s, "\n") {
			if strings.TrimSpace(line) != "" && bad(line) {
				dropped++
				continue
			}
			keep = append(keep, line)
		}
		return strings.Join(keep, "\n")
	}
	if d.engine {
		// The engine's own draft quotes the user (the task) and the
		// record; only its lines from tool outputs (the last line of
		// each check) can carry an injection.
		d.Verification = drop(d.Verification, untrusted.Suspicious)
		return dropped
	}
	clean := func(s string) string {
		return drop(s, func(line string) bool {
			return untrusted.Suspicious(line) || Weakens(ledger, line) || restates(ledger, line)
		})
	}
	d.Task, d.Verification, d.Progress, d.Next = clean(d.Task), clean(d.Verification), clean(d.Progress), clean(d.Next)
	d.Coordinates = slices.DeleteFunc(d.Coordinates, func(c Coordinate) bool { return clean(c.String()) == "" })
	return dropped
}

// restates reports whether a line of a model's draft states a standing
// instruction on the subject of one of the user's: a paraphrase, which
// can only differ from the user's words.
func restates(ledger []Entry, line string) bool {
	return slices.ContainsFunc(sentencesOf(line), func(s sentence) bool {
		return !s.question && marks(s.low, s.lang) >= markNegative && aboutInstruction(ledger, s.text)
	})
}

var topicRe2 = lazy(`^[\pL\pN][\pL\pN _./-]{0,31}$`)

// ValidTopic reports whether a model's topic label may head entries: a
// short name (at most 32 bytes and four words, letters, digits and
// ./-_), saying nothing about whether a rule holds. A label is shown
// above the user's words, so "cancelled rules" must not become one.
func ValidTopic(ledger []Entry, t string) bool {
	if !topicRe2().MatchString(t) || len(strings.Fields(t)) > 4 {
		return false
	}
	return !Weakens(ledger, t+" rule") && !untrusted.Suspicious(t)
}
