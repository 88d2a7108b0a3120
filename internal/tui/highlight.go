package tui

import (
	"slices"
	"strings"
	"sync"
)

// A small highlighter for code blocks: keywords, strings, comments and
// numbers, by the block's language. It only colours: the spans it
// returns hold the source's text exactly. The lexers are plain data
// (statically initialised); a keyword set is built on its first use.

// lexer describes a language.
type lexer struct {
	keywords   string // space-separated
	fold       bool   // keywords ignore case (SQL)
	line       string // a line comment's start
	hashWord   bool   // the line comment ("#") starts only at a word's start (shells, YAML)
	blockOpen  string // a block comment's start and end
	blockClose string
	quotes     string // string quotes with backslash escapes
	multi      bool   // quoted strings may span lines
	raw        string // quotes without escapes, spanning lines (Go's `, JS templates, shell ')
	triple     bool   // """ and ''' strings
	charLit    bool   // ' is a char literal only if it closes at once (Rust lifetimes)
	keys       byte   // ':' (YAML) or '=' (TOML): a line's leading key is coloured as a keyword
	identExtra string // characters allowed in identifiers besides letters, digits and _

	once sync.Once
	kw   map[string]bool
}

var (
	goLexer = lexer{
		keywords: "break case chan const continue default defer else fallthrough for func go goto if import interface " +
			"map package range return select struct switch type var true false nil iota",
		line: "//", blockOpen: "/*", blockClose: "*/", quotes: `"'`, raw: "`",
	}
	pythonLexer = lexer{
		keywords: "False None True and as assert async await break class continue def del elif else except finally for " +
			"from global if import in is lambda nonlocal not or pass raise return try while with yield match case self",
		line: "#", quotes: `"'`, triple: true,
	}
	jsLexer = lexer{
		keywords: "async await break case catch class const continue debugger default delete do else export extends " +
			"finally for from function if import in instanceof let new of return static super switch this throw try " +
			"typeof var void while with yield true false null undefined interface type enum implements declare " +
			"namespace readonly public private protected abstract as keyof satisfies",
		line: "//", blockOpen: "/*", blockClose: "*/", quotes: `"'`, raw: "`", identExtra: "$",
	}
	rustLexer = lexer{
		keywords: "as async await break const continue crate dyn else enum extern false fn for if impl in let loop " +
			"match mod move mut pub ref return self Self static struct super trait true type unsafe use where while",
		line: "//", blockOpen: "/*", blockClose: "*/", quotes: `"`, multi: true, charLit: true,
	}
	cLexer = lexer{
		keywords: "auto break case char class const constexpr continue default delete do double else enum explicit " +
			"extern false float for friend goto if inline int long namespace new noexcept nullptr operator private " +
			"protected public register return short signed sizeof static struct switch template this throw true try " +
			"catch typedef typename union unsigned using virtual void volatile while bool NULL override final " +
			"#include #define #ifdef #ifndef #endif #if #else #elif #pragma #undef",
		line: "//", blockOpen: "/*", blockClose: "*/", quotes: `"'`, identExtra: "#",
	}
	javaLexer = lexer{ // and Kotlin
		keywords: "abstract assert boolean break byte case catch char class const continue default do double else enum " +
			"extends final finally float for if implements import instanceof int interface long native new package " +
			"private protected public return short static super switch synchronized this throw throws try void " +
			"volatile while var val fun when object data sealed companion is in out override open internal lateinit " +
			"suspend true false null record yield",
		line: "//", blockOpen: "/*", blockClose: "*/", quotes: `"'`, triple: true,
	}
	swiftLexer = lexer{
		keywords: "associatedtype async await break case catch class continue default defer deinit do else enum " +
			"extension fallthrough false fileprivate for func guard if import in init inout internal is let nil " +
			"open operator private protocol public repeat rethrows return self Self static struct subscript super " +
			"switch throw throws true try typealias var where while some any",
		line: "//", blockOpen: "/*", blockClose: "*/", quotes: `"`, triple: true,
	}
	csLexer = lexer{
		keywords: "abstract as async await base bool break byte case catch char checked class const continue decimal " +
			"default delegate do double else enum event explicit extern false finally fixed float for foreach goto " +
			"if implicit in int interface internal is lock long namespace new null object operator out override " +
			"params private protected public readonly record ref return sealed short sizeof static string struct " +
			"switch this throw true try typeof uint ulong unsafe using var virtual void volatile while yield",
		line: "//", blockOpen: "/*", blockClose: "*/", quotes: `"'`,
	}
	shLexer = lexer{
		keywords: "if then else elif fi for while until do done case esac in function return local export readonly " +
			"declare unset shift exit break continue set source alias cd echo sudo",
		line: "#", hashWord: true, quotes: `"`, multi: true, raw: "'",
	}
	jsonLexer = lexer{keywords: "true false null", quotes: `"`, line: "//"}
	yamlLexer = lexer{
		keywords: "true false null yes no on off True False Null",
		line:     "#", hashWord: true, quotes: `"'`, keys: ':',
	}
	tomlLexer = lexer{keywords: "true false", line: "#", quotes: `"'`, triple: true, keys: '='}
	sqlLexer  = lexer{
		keywords: "select from where and or not insert into values update set delete create table drop alter add " +
			"column index join left right inner outer full cross on as group by order having limit offset union " +
			"all distinct null is in like between case when then else end primary key foreign references default " +
			"unique check constraint begin commit rollback transaction with returning exists if view trigger " +
			"integer int bigint text varchar char boolean real float date timestamp true false asc desc count sum " +
			"avg min max coalesce",
		fold: true, line: "--", blockOpen: "/*", blockClose: "*/", quotes: `'"`,
	}
)

// lexerNames are the names a fenced block's language goes by.
var lexerNames = [...]struct {
	names string
	lx    *lexer
}{
	{"go golang", &goLexer},
	{"python py python3 py3", &pythonLexer},
	{"javascript js jsx mjs cjs typescript ts tsx mts", &jsLexer},
	{"rust rs", &rustLexer},
	{"c h cpp c++ cc cxx hpp objc objective-c", &cLexer},
	{"java kotlin kt kts", &javaLexer},
	{"swift", &swiftLexer},
	{"cs c# csharp", &csLexer},
	{"sh bash zsh shell console shell-session ksh fish", &shLexer},
	{"json jsonc json5", &jsonLexer},
	{"yaml yml", &yamlLexer},
	{"toml", &tomlLexer},
	{"sql postgres postgresql mysql sqlite plsql", &sqlLexer},
}

// lexerFor returns the lexer for a fenced block's language, or nil.
func lexerFor(lang string) *lexer {
	lang = strings.ToLower(lang)
	for _, e := range lexerNames {
		if slices.Contains(strings.Fields(e.names), lang) {
			return e.lx
		}
	}
	return nil
}

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
	lx := lexerFor(lang)
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
	lx.once.Do(func() {
		lx.kw = map[string]bool{}
		for _, k := range strings.Fields(lx.keywords) {
			if lx.fold {
				k = strings.ToLower(k)
			}
			lx.kw[k] = true
		}
	})
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
		case lx.charLit && c == '\'':
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
