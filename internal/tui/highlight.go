package tui

import (
	_ "embed"
	"strings"
	"sync"
)

// A small highlighter for code blocks: keywords, strings, comments and
// numbers, by the block's language. It only colours: the spans it
// returns hold the source's text exactly. It stays instead of chroma,
// which adds 4 MB to the binary and 2.3 MB and 110-170 ms to every
// start-up's package inits (a program that links chroma/v2/lexers).

// lexer describes a language (lexers.txt says what each field means).
type lexer struct {
	kw                                  map[string]bool
	fold, hashWord, multi, triple, char bool
	line, blockOpen, blockClose         string
	quotes, raw, identExtra             string
	keys                                byte
}

//go:embed lexers.txt
var lexersText string

// lexers are the lexers by language name, read at first use.
var lexers = sync.OnceValue(func() map[string]*lexer {
	out := map[string]*lexer{}
	for _, par := range strings.Split(lexersText, "\n\n")[1:] {
		f := strings.SplitN(par, "\n", 3)
		lx := &lexer{kw: map[string]bool{}}
		for _, opt := range strings.Fields(f[1]) {
			k, v, _ := strings.Cut(opt, "=")
			switch k {
			case "line":
				lx.line = v
			case "block":
				lx.blockOpen, lx.blockClose, _ = strings.Cut(v, ",")
			case "quotes":
				lx.quotes = v
			case "raw":
				lx.raw = v
			case "ident":
				lx.identExtra = v
			case "keys":
				lx.keys = v[0]
			case "fold":
				lx.fold = true
			case "hashword":
				lx.hashWord = true
			case "multi":
				lx.multi = true
			case "triple":
				lx.triple = true
			case "char":
				lx.char = true
			default:
				panic("tui: lexers.txt: unknown option " + opt)
			}
		}
		for _, w := range strings.Fields(f[2]) {
			if lx.fold {
				w = strings.ToLower(w)
			}
			lx.kw[w] = true
		}
		for _, n := range strings.Fields(f[0]) {
			out[n] = lx
		}
	}
	return out
})

func isDiffLang(lang string) bool {
	switch strings.ToLower(lang) {
	case "diff", "patch", "udiff":
		return true
	}
	return false
}

// highlight splits a code block into lines of styled spans.
func highlight(lang string, lines []string) [][]span {
	out := make([][]span, len(lines))
	if isDiffLang(lang) {
		for i, l := range lines {
			if l != "" {
				out[i] = []span{{l, diffStyleOf(l)}}
			}
		}
		return out
	}
	lx := lexers()[strings.ToLower(lang)]
	if lx == nil {
		for i, l := range lines {
			if l != "" {
				out[i] = []span{{l, stCodeBlock}}
			}
		}
		return out
	}
	return splitSpans(lx.lex(strings.Join(lines, "\n")), len(lines))
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

func (lx *lexer) isKeyword(w string) bool {
	if lx.fold {
		w = strings.ToLower(w)
	}
	return lx.kw[w]
}

func isIdentByte(c byte) bool {
	return isLetter(c) || c >= '0' && c <= '9' || c == '_'
}

// lex splits src into spans: plain code, keywords, strings, comments
// and numbers. Every byte of src is in exactly one span, in order.
func (lx *lexer) lex(src string) []span {
	var out []span
	plain := 0 // start of the plain text not yet emitted
	emit := func(from, to int, st mdStyle) {
		if from > plain {
			out = append(out, span{src[plain:from], stCodeBlock})
		}
		if to > from {
			out = append(out, span{src[from:to], stCodeBlock | st})
		}
		plain = to
	}
	lineStart := true // only spaces (and YAML's "- ") so far on this line
	for i := 0; i < len(src); {
		c := src[i]
		if c == '\n' {
			lineStart = true
			i++
			continue
		}
		if c == ' ' || lineStart && lx.keys == ':' && c == '-' {
			i++
			continue
		}
		atStart := lineStart
		lineStart = false
		switch {
		case lx.line != "" && strings.HasPrefix(src[i:], lx.line) &&
			(!lx.hashWord || i == 0 || src[i-1] == ' ' || src[i-1] == '\n'):
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				j = len(src) - i
			}
			emit(i, i+j, stComment)
			i += j
		case lx.blockOpen != "" && strings.HasPrefix(src[i:], lx.blockOpen):
			j := strings.Index(src[i+len(lx.blockOpen):], lx.blockClose)
			end := len(src)
			if j >= 0 {
				end = i + len(lx.blockOpen) + j + len(lx.blockClose)
			}
			emit(i, end, stComment)
			i = end
		case lx.triple && (strings.HasPrefix(src[i:], `"""`) || strings.HasPrefix(src[i:], `'''`)):
			j := strings.Index(src[i+3:], src[i:i+3])
			end := len(src)
			if j >= 0 {
				end = i + 3 + j + 3
			}
			emit(i, end, stString)
			i = end
		case lx.char && c == '\'':
			if end := charLiteral(src, i); end > 0 {
				emit(i, end, stString)
				i = end
			} else {
				i++
			}
		case strings.IndexByte(lx.quotes, c) >= 0:
			j := i + 1
			for j < len(src) {
				d := src[j]
				if d == '\\' {
					j += 2
					continue
				}
				j++
				if d == c || d == '\n' && !lx.multi {
					if d == '\n' {
						j-- // an unclosed string ends with its line
					}
					break
				}
			}
			j = min(j, len(src))
			emit(i, j, stString)
			i = j
		case strings.IndexByte(lx.raw, c) >= 0:
			end := len(src)
			if j := strings.IndexByte(src[i+1:], c); j >= 0 {
				end = i + 1 + j + 1
			}
			emit(i, end, stString)
			i = end
		case c >= '0' && c <= '9' && (i == 0 || !isIdentByte(src[i-1])):
			j := i + 1
			for j < len(src) && (isIdentByte(src[j]) || src[j] == '.' && j+1 < len(src) && src[j+1] >= '0' && src[j+1] <= '9') {
				j++
			}
			emit(i, j, stNumber)
			i = j
		case atStart && lx.keys != 0:
			if end := lx.key(src, i); end > i {
				emit(i, end, stKeyword)
				i = end
				continue
			}
			i = lx.word(src, i, emit)
		default:
			i = lx.word(src, i, emit)
		}
	}
	emit(len(src), len(src), 0)
	return out
}

// word lexes an identifier (a keyword or not) or one other byte at i.
func (lx *lexer) word(src string, i int, emit func(from, to int, st mdStyle)) int {
	c := src[i]
	if !isLetter(c) && c != '_' && strings.IndexByte(lx.identExtra, c) < 0 {
		return i + 1
	}
	j := i + 1
	for j < len(src) && (isIdentByte(src[j]) || strings.IndexByte(lx.identExtra, src[j]) >= 0) {
		j++
	}
	if lx.isKeyword(src[i:j]) {
		emit(i, j, stKeyword)
	}
	return j
}

// key returns the end of a YAML or TOML key at i ("name:", "a.b ="), a
// TOML table header ("[server]"), or i.
func (lx *lexer) key(src string, i int) int {
	end := strings.IndexByte(src[i:], '\n')
	if end < 0 {
		end = len(src) - i
	}
	line := src[i : i+end]
	if lx.keys == '=' && line[0] == '[' {
		if k := strings.IndexByte(line, ']'); k > 0 {
			return i + k + 1
		}
		return i
	}
	for k := 0; k < len(line); k++ {
		switch c := line[k]; {
		case c == lx.keys:
			if k == 0 || lx.keys == ':' && k+1 < len(line) && line[k+1] != ' ' {
				return i
			}
			return i + len(strings.TrimRight(line[:k], " "))
		case c == '#' || c == '"' || c == '\'' || c == '{' || c == '[':
			return i
		}
	}
	return i
}

// charLiteral returns the end of a char literal ('a', '\n', '\u{1F600}')
// at i, or 0 if the quote starts a lifetime ('a).
func charLiteral(src string, i int) int {
	j := i + 1
	if j < len(src) && src[j] == '\\' {
		if k := strings.IndexByte(src[j:min(len(src), j+12)], '\''); k > 1 {
			return j + k + 1
		}
		return 0
	}
	// One rune, then the closing quote.
	for k := j + 1; k < len(src) && k <= j+4; k++ {
		if src[k] == '\'' {
			if k > j {
				return k + 1
			}
			return 0
		}
		if src[k] < 0x80 && k > j {
			return 0
		}
	}
	return 0
}
