package tui

import (
	_ "embed"
	"regexp"
	"strings"
	"sync"
)

// A small highlighter for code blocks: keywords, strings, comments and
// numbers, by the block's language. It only colours: the spans it
// returns hold the source's text exactly. It stays instead of chroma,
// which adds 4 MB to the binary and 2.3 MB and 110-170 ms to every
// start-up's package inits (a program that links chroma/v2/lexers).

// lexer is a language of lexers.txt.
type lexer struct {
	re   *regexp.Regexp
	kw   map[string]bool
	fold bool // keywords ignore case (SQL)
}

//go:embed lexers.txt
var lexersText string

// lexers are the lexers by language name, read at first use.
var lexers = sync.OnceValue(func() map[string]*lexer {
	out := map[string]*lexer{}
	for _, par := range strings.Split(lexersText, "\n\n")[1:] {
		f := strings.SplitN(par, "\n", 3)
		names, flags, _ := strings.Cut(f[0], "|")
		lx := &lexer{re: regexp.MustCompile(f[1]), kw: map[string]bool{}, fold: strings.TrimSpace(flags) == "fold"}
		for _, w := range strings.Fields(f[2]) {
			lx.kw[lx.norm(w)] = true
		}
		for _, n := range strings.Fields(names) {
			out[n] = lx
		}
	}
	return out
})

// highlight splits a code block into lines of styled spans.
func highlight(lang string, lines []string) [][]span {
	lang = strings.ToLower(lang)
	if lx := lexers()[lang]; lx != nil {
		return splitSpans(lx.lex(strings.Join(lines, "\n")), len(lines))
	}
	diff := lang == "diff" || lang == "patch" || lang == "udiff"
	out := make([][]span, len(lines))
	for i, l := range lines {
		st := stCodeBlock
		if diff {
			st = diffStyleOf(l)
		}
		if l != "" {
			out[i] = []span{{l, st}}
		}
	}
	return out
}

// diffStyleOf colours a line of a unified diff.
func diffStyleOf(l string) mdStyle {
	switch {
	case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		return stDim
	case strings.HasPrefix(l, "+"):
		return stAdded
	case strings.HasPrefix(l, "-"):
		return stRemoved
	case strings.HasPrefix(l, "@@"):
		return stHunk
	}
	return stCodeBlock
}

// splitSpans cuts spans at newlines into n lines.
func splitSpans(sp []span, n int) [][]span {
	lines := make([][]span, 1, n)
	for _, s := range sp {
		t := s.text
		for {
			k := strings.IndexByte(t, '\n')
			if k < 0 {
				break
			}
			if k > 0 {
				lines[len(lines)-1] = append(lines[len(lines)-1], span{t[:k], s.st})
			}
			lines = append(lines, nil)
			t = t[k+1:]
		}
		if t != "" {
			lines[len(lines)-1] = append(lines[len(lines)-1], span{t, s.st})
		}
	}
	return lines
}

// lex splits src into spans: plain code, keywords, strings, comments
// and numbers. Every byte of src is in exactly one span, in order.
func (lx *lexer) lex(src string) []span {
	var out []span
	plain := 0 // start of the plain text not yet emitted
	names := lx.re.SubexpNames()
	for _, m := range lx.re.FindAllStringSubmatchIndex(src, -1) {
		for g := 1; g < len(names); g++ {
			from, to := m[2*g], m[2*g+1]
			if from < 0 || names[g] == "k" && !lx.kw[lx.norm(src[from:to])] {
				continue
			}
			if from > plain {
				out = append(out, span{src[plain:from], stCodeBlock})
			}
			out = append(out, span{src[from:to], stCodeBlock | groupStyle(names[g])})
			plain = to
		}
	}
	if plain < len(src) {
		out = append(out, span{src[plain:], stCodeBlock})
	}
	return out
}

// groupStyle is the style of a lexers.txt group.
func groupStyle(name string) mdStyle {
	switch name {
	case "c":
		return stComment
	case "s":
		return stString
	case "n":
		return stNumber
	}
	return stKeyword
}

// norm is a word as the keywords hold it.
func (lx *lexer) norm(w string) string {
	if lx.fold {
		return strings.ToLower(w)
	}
	return w
}
