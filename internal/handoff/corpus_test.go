package handoff

// The corpus in testdata/corpus measures Classify on the user's own words
// (issue 23): standing instructions and one-off requests in nine
// languages, written the ways people write them in rules files and chat.
// It is split by a seeded hash into a tuning half and a test half; tune
// with -run 'TestCorpus/tune' and leave the test half unread, so its
// figures say how the classifier does on words it was not fitted to.
// holdout2.jsonl is a second held-out set (issue 23, after the test half
// had been used once), written by someone who had not read Classify and
// weighted to the hard cases: polite and imperative one-off requests,
// issue titles, pasted logs, rule-like words about the task at hand,
// follow-ups. It is asserted like the test half; never tune on it.
// The ground truth: an instruction is meant to hold beyond the current
// task (a rule, constraint, preference or standing decision); a request
// asks for something done now, even when it says "don't" or "never"
// about that one task.

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/goldentest"
)

// corpusMsg is one line of a corpus file.
type corpusMsg struct {
	Lang  string `json:"lang"`
	Kind  string `json:"kind"`
	Style string `json:"style"`
	Text  string `json:"text"`
}

var corpusLangs = []string{"en", "zh", "ja", "ko", "de", "fr", "es", "pt", "ru"}

const (
	// corpusSeed keys the hash that splits the corpus; changing it
	// reshuffles both halves, so the test half must be held out again.
	corpusSeed = "godwit corpus split 1"
	// minRecall is issue 23's target on the test half, per language.
	minRecall = 0.97
)

// minCounts is the least each language holds over both halves; English
// must also hold more than any other language (checked separately).
// holdout2 has its own: the least per language other than English, and
// the least in all.
var (
	minCounts         = map[string]int{KindInstruction: 25, KindRequest: 12}
	minHoldout2       = map[string]int{KindInstruction: 10, KindRequest: 15}
	minHoldout2Totals = map[string]int{KindInstruction: 150, KindRequest: 200}
)

func readCorpus(t *testing.T, name string) []corpusMsg {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "corpus", name))
	if err != nil {
		t.Fatal(err)
	}
	var msgs []corpusMsg
	i := 0
	for line := range strings.Lines(string(data)) {
		i++
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		var m corpusMsg
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("%s:%d: %v", name, i, err)
		}
		if !slices.Contains(corpusLangs, m.Lang) || (m.Kind != KindInstruction && m.Kind != KindRequest) ||
			m.Style == "" || strings.TrimSpace(m.Text) == "" {
			t.Fatalf("%s:%d: bad lang, kind, style or text: %+v", name, i, m)
		}
		msgs = append(msgs, m)
	}
	return msgs
}

// score counts Classify's answers for one language: ii is an instruction
// called an instruction, ir an instruction called a request, and so on.
type score struct{ ii, ir, ri, rr int }

func (s *score) add(want, got string) {
	switch {
	case want == KindInstruction && got == KindInstruction:
		s.ii++
	case want == KindInstruction:
		s.ir++
	case got == KindInstruction:
		s.ri++
	default:
		s.rr++
	}
}

func (s score) instrRecall() float64 { return ratio(s.ii, s.ii+s.ir) }

// ratio is n/d, and 1 when d is 0 (nothing to get wrong).
func ratio(n, d int) float64 {
	if d == 0 {
		return 1
	}
	return float64(n) / float64(d)
}

func frac(n, d int) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f (%d/%d)", ratio(n, d), n, d)
}

func (s score) row(lang string) string {
	return fmt.Sprintf("%-4s %5d %4d  %-16s %-16s %-16s %-16s\n", lang, s.ii+s.ir, s.ri+s.rr,
		frac(s.ii, s.ii+s.ir), frac(s.ii, s.ii+s.ri), frac(s.rr, s.rr+s.ri), frac(s.rr, s.rr+s.ir))
}

// TestCorpus measures Classify per half and per language. Only the test
// half and holdout2 are asserted; the tuning half also logs what it got
// wrong.
func TestCorpus(t *testing.T) {
	for _, half := range []string{"tune", "test", "holdout2"} {
		t.Run(half, func(t *testing.T) {
			scores := map[string]*score{}
			var all score
			for _, lang := range corpusLangs {
				scores[lang] = &score{}
			}
			var misses strings.Builder
			for _, m := range readCorpus(t, half+".jsonl") {
				got := Classify(m.Text)
				scores[m.Lang].add(m.Kind, got)
				all.add(m.Kind, got)
				if got != m.Kind {
					fmt.Fprintf(&misses, "%s %s/%s called %s: %q\n", m.Lang, m.Kind, m.Style, got, m.Text)
				}
			}
			var table strings.Builder
			fmt.Fprintf(&table, "%s.jsonl\nlang instr  req  %-16s %-16s %-16s %-16s\n", half,
				"instr recall", "instr precision", "req recall", "req precision")
			for _, lang := range corpusLangs {
				table.WriteString(scores[lang].row(lang))
			}
			table.WriteString(all.row("all"))
			t.Log("\n" + table.String())
			if half == "tune" {
				t.Log("misclassified:\n" + misses.String())
				return
			}
			for _, lang := range corpusLangs {
				if r := scores[lang].instrRecall(); r < minRecall {
					t.Errorf("%s: instruction recall %.3f on %s, want >= %.2f", lang, r, half, minRecall)
				}
			}
		})
	}
}

// TestCorpusFiles checks the corpus itself: it parses, each language has
// its minimum counts, no text is there twice (so none is in both halves
// or in e2e.jsonl or holdout2.jsonl too), and the halves are the seeded
// split of their union. To add messages, append them to either half and
// run this test with -update, which redoes the split (and rewrites
// holdout2.jsonl as the encoder writes it, its order kept).
func TestCorpusFiles(t *testing.T) {
	tune, test := readCorpus(t, "tune.jsonl"), readCorpus(t, "test.jsonl")
	e2e, holdout2 := readCorpus(t, "e2e.jsonl"), readCorpus(t, "holdout2.jsonl")
	union := append(slices.Clone(tune), test...)

	seen := map[string]string{}
	for name, msgs := range map[string][]corpusMsg{"tune": tune, "test": test, "e2e": e2e, "holdout2": holdout2} {
		for _, m := range msgs {
			key := strings.ToLower(strings.Join(strings.Fields(m.Text), " "))
			if where, ok := seen[key]; ok {
				t.Errorf("%q is in %s and in %s", m.Text, where, name)
			}
			seen[key] = name
		}
	}

	counts := map[[2]string]int{}
	for _, m := range union {
		counts[[2]string{m.Lang, m.Kind}]++
	}
	for _, kind := range []string{KindInstruction, KindRequest} {
		for _, lang := range corpusLangs {
			n := counts[[2]string{lang, kind}]
			if n < minCounts[kind] {
				t.Errorf("%s has %d %ss, want at least %d", lang, n, kind, minCounts[kind])
			}
			if lang != "en" && n >= counts[[2]string{"en", kind}] {
				t.Errorf("%s has %d %ss, not fewer than English's %d", lang, n, kind, counts[[2]string{"en", kind}])
			}
		}
	}

	held, heldTotals := map[[2]string]int{}, map[string]int{}
	for _, m := range holdout2 {
		held[[2]string{m.Lang, m.Kind}]++
		heldTotals[m.Kind]++
	}
	for _, kind := range []string{KindInstruction, KindRequest} {
		if heldTotals[kind] < minHoldout2Totals[kind] {
			t.Errorf("holdout2 has %d %ss, want at least %d", heldTotals[kind], kind, minHoldout2Totals[kind])
		}
		for _, lang := range corpusLangs[1:] { // English is a third of it, checked below
			if n := held[[2]string{lang, kind}]; n < minHoldout2[kind] {
				t.Errorf("holdout2: %s has %d %ss, want at least %d", lang, n, kind, minHoldout2[kind])
			}
		}
	}
	if en := held[[2]string{"en", KindInstruction}] + held[[2]string{"en", KindRequest}]; en*4 < len(holdout2) || en*2 > len(holdout2) {
		t.Errorf("holdout2: %d of %d messages in English, want about a third", en, len(holdout2))
	}
	goldentest.Check(t, "corpus/holdout2.jsonl", encodeCorpus(t, holdout2))

	gotTune, gotTest := splitCorpus(union)
	goldentest.Check(t, "corpus/tune.jsonl", encodeCorpus(t, gotTune))
	goldentest.Check(t, "corpus/test.jsonl", encodeCorpus(t, gotTest))

	langs := map[string]bool{}
	var instr, logs int
	for _, m := range e2e {
		if m.Style != "e2e" {
			t.Errorf("e2e.jsonl: style %q, want e2e: %q", m.Style, m.Text)
		}
		if m.Kind == KindInstruction {
			instr++
			langs[m.Lang] = true
			continue
		}
		logs++
		// A log of 8 to 25 lines and the one-line request with it.
		if n := strings.Count(m.Text, "\n") + 1; n < 9 || n > 26 {
			t.Errorf("e2e.jsonl: a request of %d lines, want 9 to 26: %.60q", n, m.Text)
		}
	}
	if instr != 15 || logs != 15 || len(langs) < 6 {
		t.Errorf("e2e.jsonl: %d instructions in %d languages and %d logs, want 15 in at least 6 and 15", instr, len(langs), logs)
	}
}

// splitCorpus is the seeded shuffle: within each (lang, kind) the
// messages are ordered by a keyed hash of their text, and the first half
// (the smaller when odd) is the tuning half. A new message moves at most
// one other across the line.
func splitCorpus(msgs []corpusMsg) (tune, test []corpusMsg) {
	key := func(m corpusMsg) []byte {
		h := sha256.Sum256([]byte(corpusSeed + "\x00" + m.Text))
		return h[:]
	}
	for _, lang := range corpusLangs {
		for _, kind := range []string{KindInstruction, KindRequest} {
			var group []corpusMsg
			for _, m := range msgs {
				if m.Lang == lang && m.Kind == kind {
					group = append(group, m)
				}
			}
			slices.SortFunc(group, func(a, b corpusMsg) int { return bytes.Compare(key(a), key(b)) })
			tune = append(tune, group[:len(group)/2]...)
			test = append(test, group[len(group)/2:]...)
		}
	}
	return tune, test
}

func encodeCorpus(t *testing.T, msgs []corpusMsg) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // keep <, > and & readable in the file
	for _, m := range msgs {
		if err := enc.Encode(m); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}
