package fs

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// edgeLines are lines (no newline in them) on which engines tend to
// differ: empty ones, word edges, stray CRs, invalid and wide UTF-8,
// characters that fold to ASCII (the Kelvin sign, the long s).
var edgeLines = []string{
	"", " ", "\t", "a", "ab", "abc", "a b", " a ", "_", "__x__", "x_y", "1", "12345", "a1", "A1B2",
	"func (r *Reader) Read(p []byte) (n int, err error) {", "\tif err != nil {", "}", "// ABCD1234 code",
	"trailing space ", "trailing tab\t", "\r", "a\rb", "mid\rdle", "CRLF-ish\r\r",
	"\xff", "a\xffb", "\xe2\x82", "\xc3\xa9t\xc3\xa9", "日本語のテキスト", "混合 mixed 文字",
	"\u212a", "k", "K", "\u017f", "S", "s", "straße", "STRASSE", "Ǆ ǅ ǆ",
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "abababababababababab", "xyzabc123def", "ABC123def456",
	"word\u00a0word", "\x00nul", "a.b.c", "1.2.3", "x := y + 1", "EOF",
	strings.Repeat("long line ", 300) + "needle" + strings.Repeat(" z", 300),
}

// dfaPatterns are regexps on which to compare the DFA with the regexp:
// grep's benchmark sets, then anchors, word edges, empty matches, case
// folding, Unicode classes and repetitions.
var dfaPatterns = []string{
	`[A-Z]{4}[0-9]{4}`, `\s+$`, `^[a-z]+\s*$`, `\b[a-z]{20,}\b`, `[a-z]{3}[0-9]{3}[a-z]{3}`, `[\x{4e00}-\x{9fff}]`,
	`(?i)\b[a-z]{3}[0-9]{5}\b`, `func \w+Marshal`, `(?i)unmarshaltext`, `\w+_test\(`, `[A-Z][a-z]+Error\b`,
	`^\s*func \(`, `^\s*func \(\w+ \*Reader\)`,
	``, `^`, `$`, `^$`, `\A`, `\z`, `\A\z`, `^\s*$`, `(?m)^`, `(?m)$`, `(?m)^$`, `(?m)^\s*$`, `(?s).`, `.`, `.+`,
	`\b`, `\B`, `^\b`, `\b$`, `\B$`, `^\B`, `\bx\b`, `\Ba\B`, `a\b`, `\ba`, `_\b`, `\b_`,
	`x*`, `(a|)`, `(?:)+`, `a*?`, `(?U)a+`, `a{0}`, `(?:a{2,5}){3}`, `(a|ab)(c|bcd)(d*)`, `(a+)+b`,
	`(?i)k`, `(?i)s`, `(?i)[k]`, `(?i)[a-z]+`, `(?i)straße`, `(?i)ǅ`, `(?i)EOF$`, `(?i)^func`,
	`\r`, `\r$`, `a\r`, `\rb`, `\n`, `[^a]`, `[^\n]`, `[^a-z]+$`, `\x{FFFD}`, `[\x80-\xff]`, `\xff`,
	`\pL+`, `\p{Han}+`, `\p{Greek}`, `[[:^alpha:]]`, `[[:punct:]]{2}`, `\PL`, `\d+\.\d+`, `\w+\s*:=\s*\w+`,
	`a|^b|c$`, `^a|b$`, `^(a|b)*$`, `(^|\s)x(\s|$)`, `(?:^|[^\w])EOF(?:[^\w]|$)`, `[a-c]{2,}z?`,
	`(?:(?:a|b)*c){3}`, `[ab]*a[ab]{6}`, `needle`, `long line needle`,
}

// TestLineDFAAgreesWithRegexp compares the DFA's answer on each edge line
// with (*regexp.Regexp).Match, for every pattern, case-sensitive and not.
func TestLineDFAAgreesWithRegexp(t *testing.T) {
	for _, p := range dfaPatterns {
		for _, expr := range []string{p, "(?i)" + p} {
			re := regexp.MustCompile(expr)
			d := newLineDFA(expr)
			if d == nil {
				t.Fatalf("no DFA for %q", expr)
			}
			// Twice: the second pass runs on the cached transitions.
			for pass := range 2 {
				for _, line := range edgeLines {
					got, ok := d.match([]byte(line))
					if want := re.Match([]byte(line)); !ok || got != want {
						t.Errorf("%q on %q (pass %d): DFA %v (ok %v), regexp %v", expr, line, pass+1, got, ok, want)
					}
				}
			}
		}
	}
}

// TestLineDFAGivesUp: a pattern whose DFA needs more states than the cap
// starts over, then gives up rather than grow, and search still answers
// what the regexp answers.
func TestLineDFAGivesUp(t *testing.T) {
	expr := `a[ab]{14}c` // a state per set of the last 15 bytes that are a: 2^15
	d := newLineDFA(expr)
	var line strings.Builder
	x := uint64(1)
	for range 1 << 16 {
		x = x*6364136223846793005 + 1442695040888963407 // a and b at random
		line.WriteByte("ab"[x>>63])
	}
	clone := d.clone()
	if _, ok := d.match([]byte(line.String())); ok || d.restarts <= maxDFARestarts {
		t.Fatalf("the DFA did not give up: ok %v, %d restarts, %d states", ok, d.restarts, len(d.states))
	}
	if n := len(d.states); n > maxDFAStates {
		t.Errorf("%d states, over the cap of %d", n, maxDFAStates)
	}
	if _, _, _, ok := clone.find([]byte("a"), 0); ok {
		t.Error("a clone of a DFA that gave up goes on")
	}
	m, err := newMatcher(expr, false)
	if err != nil {
		t.Fatal(err)
	}
	buf := []byte("a" + strings.Repeat("b", 14) + "c\n" + line.String() + "\nbbbb\n" + "a" + strings.Repeat("b", 14) + "c\n")
	for _, lits := range []bool{true, false} {
		if !lits {
			m.lits = nil // the path of a pattern with no literal: find
		}
		got, n := m.search(buf, 0, 10)
		want, wn := referenceSearch(m, buf, 0, 10)
		if n != 2 || n != wn || !equalLines(got, want) {
			t.Errorf("search (literals %v): %d matches, want %d", lits, n, wn)
		}
	}
}

// FuzzLineDFA compares the DFA with the regexp on every line of the text.
// Run: go test ./internal/tool/fs -run '^$' -fuzz FuzzLineDFA -fuzztime 2m
func FuzzLineDFA(f *testing.F) {
	for i, p := range dfaPatterns {
		f.Add(p, strings.Join(edgeLines[i%len(edgeLines):min(len(edgeLines), i%len(edgeLines)+4)], "\n"))
	}
	f.Add(`(?i)\bk\B`, "K\u212ak\nkk")
	f.Fuzz(func(t *testing.T, expr, text string) {
		re, err := regexp.Compile(expr)
		if err != nil || len(expr) > 200 {
			return
		}
		d := newLineDFA(expr)
		if d == nil {
			t.Fatalf("regexp compiles %q, the DFA does not", expr)
		}
		for line := range strings.SplitSeq(text, "\n") {
			got, ok := d.match([]byte(line))
			if want := re.Match([]byte(line)); ok && got != want {
				t.Fatalf("%q on %q: DFA %v, regexp %v", expr, line, got, want)
			}
		}
		// find, over the whole text, against the regexp on each line.
		m := &matcher{re: re}
		m.dfas.New = func() any { return newLineDFA(expr) }
		got, n := m.search([]byte(text), 1, 1000)
		want, wn := referenceSearch(m, []byte(text), 1, 1000)
		if n != wn || !equalLines(got, want) {
			t.Fatalf("%q on %q: search found %d lines %v, the old engine %d %v", expr, text, n, got, wn, want)
		}
	})
}

// corpusPatterns are the patterns compared on the Go source tree: grep's
// benchmark sets and a few that match much.
var corpusPatterns = []string{
	`[A-Z]{4}[0-9]{4}`, `\s+$`, `^[a-z]+\s*$`, `\b[a-z]{20,}\b`, `[a-z]{3}[0-9]{3}[a-z]{3}`, `[\x{4e00}-\x{9fff}]`,
	`(?i)\b[a-z]{3}[0-9]{5}\b`, `func \w+Marshal`, `(?i)unmarshaltext`, `\w+_test\(`, `[A-Z][a-z]+Error\b`,
	`^\s*func \(\w+ \*Reader\)`, `^\s*$`, `\b\d+\b`, `\w+\s*:=\s*\w+\(`, `[^\x00-\x7f]`, `^}$`, `(?i)k`,
}

// TestSearchAgreesWithTheOldEngine runs grep's search and the engine it
// replaced (the regexp on every candidate line) over a corpus: files with
// CRLF endings, no final newline, long lines and wide UTF-8 for every
// pattern of dfaPatterns, and part of the Go source tree (all of it with
// GODWIT_GREP_CORPUS=full) for corpusPatterns. Both must give the same
// lines, context and counts.
func TestSearchAgreesWithTheOldEngine(t *testing.T) {
	edge := map[string][]byte{
		"crlf":       []byte("func a() {\r\n\treturn  \r\n}\r\n\r\nABCD1234\r\nend"),
		"no-newline": []byte("first\nsecond ABCD1234"),
		"only-cr":    []byte("\r"),
		"empty":      {},
		"newlines":   []byte("\n\n\n"),
		"cr-end":     []byte("word\r"),
		"long":       []byte(strings.Repeat("x", 20000) + " ABCD1234 \n" + strings.Repeat("日本", 2000) + "\nabcdefghijklmnopqrstuvwxyz\n"),
		"edges":      []byte(strings.Join(edgeLines, "\n")),
	}
	compare(t, edge, dfaPatterns)
	if raceOn {
		return // the search is single-threaded; a race run need not repeat it
	}

	files := map[string][]byte{}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("no go command to find the Go source tree: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "src")
	dirs := []string{"regexp", "strings", "unicode", "go/printer", "html"}
	switch {
	case os.Getenv("GODWIT_GREP_CORPUS") == "full":
		dirs = []string{"."}
	case testing.Short():
		dirs = dirs[:1]
	}
	size := 0
	for _, dir := range dirs {
		filepath.WalkDir(filepath.Join(src, dir), func(p string, e fs.DirEntry, err error) error {
			if err != nil || !e.Type().IsRegular() {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil || looksBinaryFast(b[:min(len(b), sniffLen)]) {
				return nil
			}
			files[p], size = b, size+len(b)
			return nil
		})
	}
	if size < 100000 {
		t.Logf("only %d bytes of GOROOT/src found", size)
	}
	compare(t, files, corpusPatterns)
}

// compare checks search against referenceSearch on every file for every
// pattern, with and without ignore case, with and without context.
func compare(t *testing.T, files map[string][]byte, patterns []string) {
	t.Helper()
	for _, p := range patterns {
		for _, ic := range []bool{false, true} {
			m, err := newMatcher(p, ic)
			if err != nil {
				t.Fatal(err)
			}
			total := 0
			for name, b := range files {
				for _, ctx := range []int{0, 2} {
					got, n := m.search(b, ctx, 1000)
					want, wn := referenceSearch(m, b, ctx, 1000)
					if n != wn || !equalLines(got, want) {
						t.Errorf("%q (ignore case %v, context %d) in %s: %d matches, the old engine %d", p, ic, ctx, name, n, wn)
					}
					total += n
				}
			}
			if testing.Verbose() {
				t.Logf("%q ignore case %v: %d matches in %d files", p, ic, total/2, len(files))
			}
		}
	}
}

// referenceSearch is search as it was before the DFA: the regexp on
// every line holding one of the literals, or on every line.
func referenceSearch(m *matcher, buf []byte, ctx, limit int) (lines []outLine, matches int) {
	s := scan{buf: buf, ctx: ctx, line: 1}
	next := make([]int, len(m.lits))
	for i := range next {
		next[i] = -2
	}
	for pos := 0; pos < len(buf) && matches < limit; {
		off := pos
		if len(m.lits) > 0 {
			off = -1
			for i := range m.lits {
				if next[i] != -1 && next[i] < pos {
					next[i] = -1
					if j := m.lits[i].index(buf[pos:]); j >= 0 {
						next[i] = pos + j
					}
				}
				if next[i] >= 0 && (off < 0 || next[i] < off) {
					off = next[i]
				}
			}
			if off < 0 {
				break
			}
		}
		ls := pos + bytes.LastIndexByte(buf[pos:off], '\n') + 1
		le := len(buf)
		if j := bytes.IndexByte(buf[off:], '\n'); j >= 0 {
			le = off + j
		}
		line := trimCR(buf[ls:le])
		if m.exact || m.re.Match(line) {
			s.match(ls, le)
			matches++
		}
		pos = le + 1
	}
	s.flush()
	return s.out, matches
}

func equalLines(a, b []outLine) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
