package fs

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// patch applies a unified diff (hunks only) to old lines, checking every
// context and removed line against old.
func patch(t *testing.T, old []string, diff string) []string {
	t.Helper()
	var out []string
	next := 0 // next old line (from 0) not yet copied
	dl := strings.Split(strings.TrimSuffix(diff, "\n"), "\n")
	for i := 0; i < len(dl); i++ {
		h := dl[i]
		if !strings.HasPrefix(h, "@@ -") {
			t.Fatalf("expected a hunk header, got %q in\n%s", h, diff)
		}
		f := strings.Fields(h)
		start, _ := strconv.Atoi(strings.Split(strings.TrimPrefix(f[1], "-"), ",")[0])
		if !strings.Contains(f[1], ",") || !strings.HasSuffix(f[1], ",0") {
			start-- // to 0-based; a ",0" range already names the line before
		}
		for next < start {
			out = append(out, old[next])
			next++
		}
		for i+1 < len(dl) && !strings.HasPrefix(dl[i+1], "@@") {
			i++
			l := dl[i]
			switch l[0] {
			case ' ', '-':
				if next >= len(old) || old[next] != l[1:] {
					t.Fatalf("diff line %q does not match old line %d in\n%s", l, next+1, diff)
				}
				if l[0] == ' ' {
					out = append(out, l[1:])
				}
				next++
			case '+':
				out = append(out, l[1:])
			}
		}
	}
	return append(out, old[next:]...)
}

func TestEditDiffApplies(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"a", "b", "c", "x", "func f() {", "}", ""}
	for iter := range 300 {
		var fb strings.Builder
		for range 1 + r.IntN(40) {
			fb.WriteString(words[r.IntN(len(words))] + "\n")
		}
		content := []byte(fb.String())
		oldText := words[r.IntN(4)] + "\n"
		if r.IntN(2) == 0 {
			oldText += words[r.IntN(4)] + "\n"
		}
		var nb strings.Builder
		for range r.IntN(4) {
			nb.WriteString(words[r.IntN(len(words))] + "\n")
		}
		p, err := planEdit(content, oldText, nb.String(), true)
		if err != nil {
			continue
		}
		diff, _, _ := editDiff(content, p)
		var newContent []byte
		for _, piece := range edited(content, p) {
			newContent = append(newContent, piece...)
		}
		if diff == "" {
			if string(newContent) != string(content) {
				t.Fatalf("iteration %d: empty diff for a change", iter)
			}
			continue
		}
		got := patch(t, diffLines(content), diff)
		want := diffLines(newContent)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("iteration %d: patching\n%s\nwith\n%s\ngives\n%q\nwant\n%q", iter, content, diff, got, want)
		}
	}
}

func TestReadMoreLinesFollow(t *testing.T) {
	// Past countLimit the footer does not count: call readLines with a
	// size claiming a huge file.
	br := bufio.NewReader(strings.NewReader(strings.Repeat("x\n", 2500)))
	res, err := readLines(context.Background(), br, countLimit+1, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := "[truncated: lines 1-2000 shown, more lines follow; call file_read with start_line=2001]\n"
	if !strings.HasSuffix(res.Content, want) {
		t.Errorf("footer: %q", res.Content[len(res.Content)-200:])
	}
}

func TestRequiredLiterals(t *testing.T) {
	tests := []struct {
		pattern string
		want    string // literals joined by |, fold marked with ~; "" none
		exact   bool
	}{
		{"hello", "hello", true},
		{`func \w+Marshal`, "Marshal", false},
		{`(?i)marshal`, "~marshal", false},
		{`foo|barbaz`, "foo|barbaz", false},
		{`(foo|bar)\(x`, "foo|bar", false},
		{`(fo|ba)\(xyz`, "(xyz", false},
		{`a.*b`, "a", false}, // both one byte: the first wins
		{`x*`, "", false},
		{`[a-z]+`, "", false},
		{`(?i)café`, "", false},
		{`(ab)+c`, "ab", false},
	}
	for _, tt := range tests {
		m, err := newMatcher(tt.pattern, false)
		if err != nil {
			t.Fatal(err)
		}
		var parts []string
		for _, l := range m.lits {
			s := string(l.b)
			if l.fold {
				s = "~" + s
			}
			parts = append(parts, s)
		}
		if got := strings.Join(parts, "|"); got != tt.want || m.exact != tt.exact {
			t.Errorf("%s: literals %q exact %v, want %q %v", tt.pattern, got, m.exact, tt.want, tt.exact)
		}
	}
}

// TestSearchMatchesNaive checks the prefiltered search against running
// the regexp on every line.
func TestSearchMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"foo", "Foo", "FOO", "bar", "x", " ", "(", "\n", "\n", "\r\n", "é"}
	patterns := []string{"foo", "(?i)foo", "foo|bar", `o\(`, "^foo", "bar$", "x+", `f[o0]o`, "é", "(?i)bar|x"}
	for iter := range 500 {
		var b strings.Builder
		for range r.IntN(60) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		buf := []byte(b.String())
		for _, p := range patterns {
			m, err := newMatcher(p, false)
			if err != nil {
				t.Fatal(err)
			}
			got, n := m.search(buf, 0, 1000)
			var want []string
			for i, l := range strings.Split(string(buf), "\n") {
				l = strings.TrimSuffix(l, "\r")
				if m.re.MatchString(l) && !(i == strings.Count(string(buf), "\n") && l == "" && !m.re.MatchString("")) {
					want = append(want, fmt.Sprintf("%d:%s", i+1, l))
				}
			}
			// A final empty "line" after the last newline is not a line.
			if strings.HasSuffix(string(buf), "\n") && len(want) > 0 && want[len(want)-1] == fmt.Sprintf("%d:", strings.Count(string(buf), "\n")+1) {
				want = want[:len(want)-1]
			}
			var gl []string
			for _, l := range got {
				gl = append(gl, fmt.Sprintf("%d%c%s", l.num, l.kind, l.text))
			}
			if strings.Join(gl, "\n") != strings.Join(want, "\n") || n != len(want) {
				t.Fatalf("iteration %d, pattern %q on %q:\ngot  %q\nwant %q", iter, p, buf, gl, want)
			}
		}
	}
}

// TestLineCuts pins the two notes over firstLines: a preview's and a
// diff's, byte for byte as they were when each had its own loop.
func TestLineCuts(t *testing.T) {
	for _, tc := range []struct {
		in         string
		n          int
		head, diff string
	}{
		{"", 2, "", ""},
		{"a\nb\n", 2, "a\nb\n", "a\nb\n"},
		{"a\nb", 2, "a\nb", "a\nb"},
		{"a\nb\nc\n", 2, "a\nb\n… (1 more lines)", "a\nb\n…[diff cut: 1 line more]\n"},
		{"a\nb\nc\nd", 2, "a\nb\n… (2 more lines)", "a\nb\n…[diff cut: 1 line more]\n"},
		{"a\n", 0, "… (1 more lines)", "…[diff cut: 1 line more]\n"},
	} {
		if got := headLines(tc.in, tc.n); got != tc.head {
			t.Errorf("headLines(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.head)
		}
		if got := cutLines(tc.in, tc.n); got != tc.diff {
			t.Errorf("cutLines(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.diff)
		}
	}
}

// diffLines is b's lines as the diff shows them.
func diffLines(b []byte) []string {
	s := diffText(b)
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
