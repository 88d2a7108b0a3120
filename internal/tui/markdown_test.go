package tui

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/godwit/godwit/internal/agent"
)

// answer is a rich answer with every construct the renderer knows.
func answer(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("testdata/answer.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestGoldenMarkdownPlain(t *testing.T) {
	lines := newMarkdown(PlainTheme()).render(answer(t), 60)
	checkLines(t, lines, 60, true)
	golden(t, "markdown-plain", strings.Join(lines, "\n")+"\n")
}

// The dark golden quotes each line so its escape sequences can be read.
func TestGoldenMarkdownDark(t *testing.T) {
	lines := newMarkdown(DarkTheme()).render(answer(t), 60)
	checkLines(t, lines, 60, false)
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(strconv.Quote(l) + "\n")
	}
	golden(t, "markdown-dark", b.String())
}

// checkLines asserts what every render must hold: lines within width,
// no newline inside a line, no trailing blank, no doubled blank line,
// and no escape sequence at all without colour.
func checkLines(t testing.TB, lines []string, width int, plain bool) {
	t.Helper()
	blank := false
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > max(width, 10) {
			t.Errorf("line %d is %d wide, more than %d: %q", i, w, width, l)
		}
		if strings.ContainsAny(l, "\n\r") {
			t.Errorf("line %d holds a line break: %q", i, l)
		}
		if plain && strings.IndexByte(l, 0x1b) >= 0 {
			t.Errorf("line %d has an escape sequence without colour: %q", i, l)
		}
		s := ansi.Strip(l)
		if strings.HasSuffix(s, " ") {
			t.Errorf("line %d has trailing blanks: %q", i, s)
		}
		if s == "" && blank {
			t.Errorf("line %d is a second blank line", i)
		}
		blank = s == ""
	}
	if len(lines) > 0 && (ansi.Strip(lines[0]) == "" || ansi.Strip(lines[len(lines)-1]) == "") {
		t.Errorf("blank lines at the ends: %q", lines)
	}
}

// tagged is a renderer whose styles are readable tags, for asserting
// what is styled how.
func tagged() *markdown {
	m := newMarkdown(Theme{})
	for i, name := range []string{"title", "h", "th", "html", "link", "b", "i", "s", "code", "url",
		"pre", "kw", "str", "com", "num", "add", "del", "hunk", "dim", "mark", "quote", "rule", "border"} {
		m.inks[i] = ink{"<" + name + ">", "</" + name + ">"}
	}
	return m
}

func TestInline(t *testing.T) {
	m := tagged()
	tests := []struct{ name, in, want string }{
		{"plain", "just text", "just text"},
		{"strong and em", "**a** and *b* and __c__ and _d_", "<b>a</b> and <i>b</i> and <b>c</b> and <i>d</i>"},
		{"nested emphasis", "*a **b** c*", "<i>a </i><b><i>b</i></b><i> c</i>"},
		{"both at once", "***x***", "<b><i>x</i></b>"},
		{"bold around code", "**bold `code` inside**", "<b>bold </b><b><code>code</code></b><b> inside</b>"},
		{"code holds stars", "`a*b*c` and `**`", "<code>a*b*c</code> and <code>**</code>"},
		{"code with ticks", "``a `b` c``", "<code>a `b` c</code>"},
		{"code strips one space", "` a `", "<code>a</code>"},
		{"escapes", `\*not em\* \_no\_ \[no link\] \` + "`", "*not em* _no_ [no link] `"},
		{"a backslash before a letter stays", `a\b`, `a\b`},
		{"unclosed strong", "**unclosed", "**unclosed"},
		{"unclosed code", "`unclosed and *em*", "`unclosed and <i>em</i>"},
		{"unclosed strike", "~~gone", "~~gone"},
		{"intraword underscores", "snake_case_name and foo__bar__", "snake_case_name and foo__bar__"},
		{"intraword stars", "foo**bar**baz", "foo<b>bar</b>baz"},
		{"spaced stars", "2 * 3 * 4", "2 * 3 * 4"},
		{"strike", "~~old~~ and ~one~", "<s>old</s> and <s>one</s>"},
		{"rule of three", "*foo**bar**baz*", "<i>foo</i><b><i>bar</i></b><i>baz</i>"},
		{"link", "[docs](https://go.dev)", "<link>docs</link> <url>(https://go.dev)</url>"},
		{"link with parentheses", "[w](https://en.wikipedia.org/wiki/Go_(language))",
			"<link>w</link> <url>(https://en.wikipedia.org/wiki/Go_(language))</url>"},
		{"link with title", `[a](/u "title")`, "<link>a</link> <url>(/u)</url>"},
		{"link in angle brackets", "[a](<b c>)", "<link>a</link> <url>(b c)</url>"},
		{"link text is the url", "[https://go.dev](https://go.dev)", "<link>https://go.dev</link>"},
		{"link with emphasis", "[a *b*](u)", "<link>a </link><link><i>b</i></link> <url>(u)</url>"},
		{"link not closed", "[a](b and [c]", "[a](b and [c]"},
		{"brackets without link", "[x] (y)", "[x] (y)"},
		{"image", "![a cat](cat.png)", "<link>a cat</link> <url>(cat.png)</url>"},
		{"autolink", "see <https://a.b/c?d=e>.", "see <link>https://a.b/c?d=e</link>."},
		{"email autolink", "<me@example.com>", "<link>me@example.com</link>"},
		{"not an autolink", "a <b> c < d", "a <b> c < d"},
		{"soft break", "a\nb", "a b"},
		{"hard break, spaces", "a  \nb", "a\nb"},
		{"hard break, backslash", "a\\\nb", "a\nb"},
		{"emphasis across a soft break", "*a\nb*", "<i>a b</i>"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(m.render(tc.in, 200), "\n")
			if got != tc.want {
				t.Errorf("inline(%q)\n got %s\nwant %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestInlinePlainKeepsTheMarks(t *testing.T) {
	m := newMarkdown(PlainTheme())
	for in, want := range map[string]string{
		"__a__ _b_ ~c~ `d`":     "**a** *b* ~~c~~ `d`",
		"``x`y``":               "``x`y``",
		"`` `x` ``":             "`` `x` ``",
		"**a `b` c**":           "**a `b` c**",
		"[a](u) and <http://x>": "a (u) and http://x",
	} {
		if got := strings.Join(m.render(in, 200), "\n"); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}

// After an inner style ends, the outer one goes on: with ANSI, whose
// reset ends every style, the outer one is applied again.
func TestDarkStylesNest(t *testing.T) {
	m := newMarkdown(DarkTheme())
	got := m.render("**bold `code` inside**", 80)[0]
	bold, code := m.ink(stStrong), m.ink(stStrong|stCode)
	want := bold.pre + "bold " + bold.post + code.pre + "code" + code.post + bold.pre + " inside" + bold.post
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if !strings.HasPrefix(code.pre, "\x1b[1;") {
		t.Errorf("bold code is not bold: %q", code.pre)
	}
}

func TestWrap(t *testing.T) {
	m := newMarkdown(PlainTheme())
	text := "The quick brown fox jumps over the lazy dog, then reads " +
		"https://example.com/a/very/long/path/that/does/not/fit/on/one/line and sleeps."
	for _, w := range []int{10, 17, 25, 40, 200} {
		lines := m.render(text, w)
		checkLines(t, lines, w, true)
		joined := strings.Join(lines, "")
		if strings.ReplaceAll(joined, " ", "") != strings.ReplaceAll(text, " ", "") {
			t.Errorf("width %d lost text: %q", w, lines)
		}
		if w >= 25 && len(lines) > 1 && strings.Fields(lines[0])[0] != "The" {
			t.Errorf("width %d: %q", w, lines)
		}
	}
	// A styled phrase broken across lines is styled on each.
	dark := newMarkdown(DarkTheme())
	b := dark.ink(stStrong)
	for i, l := range dark.render("**one two three four five six**", 12) {
		if !strings.HasPrefix(l, b.pre) || !strings.HasSuffix(l, b.post) {
			t.Errorf("line %d is not bold on its own: %q", i, l)
		}
	}
	// Wide runes count two cells.
	for _, l := range m.render(strings.Repeat("漢字 ", 30), 11) {
		if w := ansi.StringWidth(l); w > 11 {
			t.Errorf("%q is %d wide", l, w)
		}
	}
}

func TestBlocks(t *testing.T) {
	tests := []struct {
		name, in string
		width    int
		want     []string
	}{
		{"empty", "", 40, nil},
		{"blank lines only", "\n\n  \n", 40, nil},
		{"atx headings", "# One\n## Two ##\n###### Six", 40, []string{"# One", "", "## Two", "", "###### Six"}},
		{"not a heading", "#hashtag and ####### seven", 40, []string{"#hashtag and ####### seven"}},
		{"setext headings", "One\n===\n\nTwo\n---", 40, []string{"# One", "", "## Two"}},
		{"paragraphs", "a\nb\n\n\nc", 40, []string{"a b", "", "c"}},
		{"thematic breaks", "***\n- - -\n___", 12, []string{"------------", "", "------------", "", "------------"}},
		{"fenced code", "```go\nx := 1\n\n  y\n```", 40, []string{"  x := 1", "", "    y"}},
		{"tilde fence, longer close", "~~~~\n```\n~~~~~", 40, []string{"  ```"}},
		{"unclosed fence runs to the end", "```\na\n\nb", 40, []string{"  a", "", "  b"}},
		{"code is cut, not wrapped", "```\nabcdefghijklmnopqrstuvwxyz\n```", 12, []string{"  abcdefghi…"}},
		{"indented code", "para\n\n    code\n\n      more", 40, []string{"para", "", "  code", "", "    more"}},
		{"tabs", "```\n\tx\n```", 40, []string{"      x"}},
		{"crlf", "a\r\nb\r\n\r\n```\r\nc\r\n```\r\n", 40, []string{"a b", "", "  c"}},
		{"quote", "> a\nlazy\n>\n> b", 40, []string{"> a lazy", ">", "> b"}},
		{"nested quote", "> a\n> > b", 40, []string{"> a", ">", "> > b"}},
		{"quote with code", "> ```\n> x\n> ```", 40, []string{">   x"}},
		{"bullets", "- a\n* b\n+ c", 40, []string{"- a", "", "- b", "", "- c"}},
		{"nested list", "- a\n  - b\n    - c\n- d", 40, []string{"- a", "  - b", "    - c", "- d"}},
		{"four-space nesting", "- a\n    - b", 40, []string{"- a", "  - b"}},
		{"under-indented nesting", "1. a\n  - b\n2. c", 40, []string{"1. a", "   - b", "2. c"}},
		{"ordered keeps numbers", "3. a\n7) b", 40, []string{"3. a", "", "7) b"}},
		{"ordered counts from the first", "1. a\n1. b\n1) c", 40, []string{"1. a", "2. b", "", "1) c"}},
		{"reference links", "see [the docs][d] and [D]\n\n[d]: https://x.dev \"t\"", 60, []string{"see the docs (https://x.dev) and D (https://x.dev)"}},
		{"definitions alone draw nothing", "[d]: /u\n[e]:\n  /v 'w'", 40, nil},
		{"an undefined reference is text", "[a][b] [c]", 40, []string{"[a][b] [c]"}},
		{"numbers align", "9. a\n10. b", 40, []string{" 9. a", "10. b"}},
		{"loose list", "- a\n\n- b", 40, []string{"- a", "", "- b"}},
		{"item with paragraphs", "- a\n\n  more\n- b", 40, []string{"- a", "", "  more", "", "- b"}},
		{"item with code", "1. run:\n   ```sh\n   go test\n   ```\n2. done", 40, []string{"1. run:", "     go test", "2. done"}},
		{"lazy item line", "- a\nb\n- c", 40, []string{"- a b", "- c"}},
		{"tasks", "- [ ] todo\n- [x] done\n- [X] Done", 40, []string{"[ ] todo", "[x] done", "[x] Done"}},
		{"list wraps under its text", "- one two three four", 12, []string{"- one two", "  three four"}},
		{"empty item", "-\n- b", 40, []string{"-", "- b"}},
		{"break, not a list", "* * *", 11, []string{"-----------"}},
		{"html block", "<div align=\"center\">\n  *kept*  \n</div>\n\nafter", 40,
			[]string{`<div align="center">`, "  *kept*", "</div>", "", "after"}},
		{"html comment", "<!-- a\n\nb -->\nc", 40, []string{"<!-- a", "", "b -->", "", "c"}},
		{"inline html is text", "<b>x</b> y", 40, []string{"<b>x</b> y"}},
		{"table", "| a | b |\n|---|--:|\n| `x` | 10 |\n| long cell | 2 |", 40,
			[]string{"a         |  b", "----------|---", "`x`       | 10", "long cell |  2"}},
		{"table after a paragraph", "intro\n| a | b |\n| - | - |\n| 1 | 2 |", 40,
			[]string{"intro", "", "a | b", "--|--", "1 | 2"}},
		{"table escapes pipes", "| a |\n| :-: |\n| x \\| y |", 40, []string{"  a", "-----", "x | y"}},
		{"table row with fewer cells", "| a | b |\n|---|---|\n| 1 |", 40, []string{"a | b", "--|--", "1 |"}},
		{"not a table", "a | b\nc | d", 40, []string{"a | b c | d"}},
		{"width under 10 is 10", "aaaa bbbb cccc", 3, []string{"aaaa bbbb", "cccc"}},
	}
	m := newMarkdown(PlainTheme())
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := m.render(tc.in, tc.width)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("render(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
			checkLines(t, got, tc.width, true)
		})
	}
}

func TestTableWiderThanWidth(t *testing.T) {
	in := "| id | description | owner |\n|---|---|---|\n" +
		"| 1 | a description far longer than the screen is wide | someone with a long name |\n" +
		"| 2 | short | me |\n"
	for _, th := range []Theme{PlainTheme(), DarkTheme()} {
		for _, w := range []int{10, 20, 30, 45} {
			lines := newMarkdown(th).render(in, w)
			checkLines(t, lines, w, th.Markdown.ASCII)
			if len(lines) != 4 {
				t.Fatalf("width %d: %d lines, want 4: %q", w, len(lines), lines)
			}
			if w >= 20 && !strings.HasPrefix(ansi.Strip(lines[3]), "2  ") {
				t.Errorf("width %d: the narrow column should stay whole: %q", w, ansi.Strip(lines[3]))
			}
			if !strings.Contains(lines[2], "…") {
				t.Errorf("width %d: a cut cell should end with …: %q", w, ansi.Strip(lines[2]))
			}
		}
	}
	got := newMarkdown(PlainTheme()).render(in, 30)
	want := []string{
		"id | description | owner",
		"---|-------------|------------",
		"1  | a descript… | someone wi…",
		"2  | short       | me",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestFitColumns(t *testing.T) {
	tests := []struct {
		nat   []int
		avail int
		want  []int
	}{
		{[]int{3, 5}, 10, []int{3, 5}},
		{[]int{2, 30, 40}, 30, []int{2, 14, 14}},
		{[]int{2, 30, 40}, 31, []int{2, 15, 14}},
		{[]int{5, 5}, 1, []int{1, 1}},
	}
	for _, tc := range tests {
		got := fitColumns(tc.nat, tc.avail)
		if len(got) != len(tc.want) {
			t.Fatal(got)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("fitColumns(%v, %d) = %v, want %v", tc.nat, tc.avail, got, tc.want)
				break
			}
		}
	}
}

// The highlighter only colours: without its escape sequences a block is
// its source.
func TestHighlightKeepsTheText(t *testing.T) {
	samples := map[string]string{
		"go":         "package main\n\n// hi\nfunc main() {\n\ts := `raw\nstring` + \"q\\\"x\" + 'c'\n\t/* block\n\tcomment */ n := 0x1F + 3.14\n}",
		"python":     "def f(x):\n    '''doc\n    string'''\n    return x if x else None  # c\n",
		"ts":         "const a: number = 1; // c\nlet s = `t ${a}\nmore`; /* x */ $el.go('q')",
		"rust":       "fn f<'a>(x: &'a str) -> char { let c = 'x'; let d = '\\n'; \"s\n t\" }",
		"cpp":        "#include <stdio.h>\nint main() { return 0; } // end",
		"kotlin":     "val s = \"\"\"raw\"\"\"\nfun f() = null",
		"swift":      "let x: Int? = nil // c",
		"cs":         "public class A { string s = \"x\"; }",
		"bash":       "echo \"$HOME\" 'single\nquoted' # comment\nx=a#b",
		"console":    "$ go test ./...\nok  \tpkg\t0.1s",
		"json":       `{"a": [1, 2.5, true, null], "b": "c\"d"}`,
		"yaml":       "key: value # c\n- name: x\nurl: http://x\nquoted: 'a'\n",
		"toml":       "[server]\nport = 8080\nname = \"x\" # c\n",
		"sql":        "SELECT a, 'x' FROM t -- c\nwhere id = 1; /* c */",
		"diff":       "--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new\n ctx",
		"unknown":    "whatever *this* is",
		"go-unclose": "s := \"unclosed\nx := `unclosed raw\n/* unclosed",
	}
	m := newMarkdown(DarkTheme())
	for lang, src := range samples {
		t.Run(lang, func(t *testing.T) {
			lines := strings.Split(strings.ReplaceAll(src, "\t", "    "), "\n")
			for i := range lines {
				lines[i] = strings.TrimRight(lines[i], " ")
			}
			got := m.code(strings.TrimSuffix(lang, "-unclose"), lines, 500)
			if len(got) != len(lines) {
				t.Fatalf("%d lines, want %d", len(got), len(lines))
			}
			for i, l := range got {
				want := ""
				if lines[i] != "" {
					want = "  " + lines[i]
				}
				if s := ansi.Strip(l); s != want {
					t.Errorf("line %d: %q, want %q", i, s, want)
				}
			}
		})
	}
	// Every lexer covers its input exactly, whatever the input.
	for _, lang := range []string{"go", "py", "js", "rust", "c", "java", "swift", "cs", "sh", "json", "yaml", "toml", "sql"} {
		lx := lexers()[lang]
		for _, src := range samples {
			if got := plainText(lx.lex(src)); got != src {
				t.Errorf("%s: lexing changed the text:\n%q\n%q", lang, got, src)
			}
		}
	}
}

func TestHighlightColours(t *testing.T) {
	m := tagged()
	code := func(lang, src string) string {
		return strings.Join(m.code(lang, strings.Split(src, "\n"), 200), "\n")
	}
	tests := []struct{ lang, src, want string }{
		{"go", `return "s" // c`, `  <pre><kw>return</kw></pre><pre> </pre><pre><str>"s"</str></pre><pre> </pre><pre><com>// c</com></pre>`},
		{"python", "x = 42", "  <pre>x = </pre><pre><num>42</num></pre>"},
		{"rust", "&'a str", "  <pre>&'a str</pre>"},
		{"sql", "Select 1", "  <pre><kw>Select</kw></pre><pre> </pre><pre><num>1</num></pre>"},
		{"yaml", "- name: x", "  <pre>- </pre><pre><kw>name</kw></pre><pre>: x</pre>"},
		{"sh", "a#b # c", "  <pre>a#b </pre><pre><com># c</com></pre>"},
		{"diff", "@@ -1 +1 @@\n-a\n+b\n c\n--- x", "  <hunk>@@ -1 +1 @@</hunk>\n  <del>-a</del>\n  <add>+b</add>\n  <pre> c</pre>\n  <dim>--- x</dim>"},
		{"nope", "if x", "  <pre>if x</pre>"},
	}
	for _, tc := range tests {
		if got := code(tc.lang, tc.src); got != tc.want {
			t.Errorf("%s %q:\n got %s\nwant %s", tc.lang, tc.src, got, tc.want)
		}
	}
}

// Streaming renders complete blocks as they end; the whole rich answer
// streamed must look as it does rendered at once.
func TestStreamedRichAnswerMatchesTheFinalRender(t *testing.T) {
	text := answer(t) + "\n"
	m := staticModel(t, 70, 200)
	for i := 0; i < len(text); i += 7 {
		feedEvents(m, agent.Event{Type: agent.EventTextDelta, Text: text[i:min(i+7, len(text))]})
		_ = plainScreen(m)
	}
	streamed := plainScreen(m)
	feedEvents(m, agent.Event{Type: agent.EventModelResponse, Response: &agent.ResponseInfo{}})
	if final := plainScreen(m); streamed != final {
		t.Errorf("the streamed render differs from the final one:\nstreamed:\n%s\nfinal:\n%s", streamed, final)
	}
}

func FuzzMarkdown(f *testing.F) {
	f.Add(answer(f), 60)
	for _, s := range []string{
		"", "*", "**a*", "[a](b", "[[[[]]]]", "`` ` ``", "> > > -", "- - -\n+ a\n  1. b",
		"| a |\n|---|\n| b | c | d |", "```\n\x1b[31mred\n```", "a\r\nb\rc", "\t- x\n\t\t- y",
		"<div>\n\x00\n", "漢字漢字漢字漢字漢字漢字 🇺🇸🇺🇸 e\u0301", "***a***b***", "~~~\n~~~~",
		strings.Repeat("> ", 40) + "deep", strings.Repeat("- ", 40) + "deep", strings.Repeat("[", 100),
		"[a]: <b> 'c'\n[a][] [A] ![a]", "[x][y]\n\n> [y]:\n> /u", "-\n\n  x", "> a\nb\n===", "003) a\n1) b",
		strings.Repeat("[a]: b\n", 50) + strings.Repeat("[a]", 50),
	} {
		f.Add(s, 10)
		f.Add(s, 33)
	}
	plain, dark := newMarkdown(PlainTheme()), newMarkdown(DarkTheme())
	f.Fuzz(func(t *testing.T, text string, width int) {
		width = min(max(width, -5), 300)
		want := max(width, 10)
		for _, l := range plain.render(text, width) {
			if strings.IndexByte(l, 0x1b) >= 0 {
				t.Fatalf("an escape sequence without colour: %q", l)
			}
			if w := ansi.StringWidth(l); w > want {
				t.Fatalf("plain line %q is %d wide, more than %d", l, w, want)
			}
		}
		for _, l := range dark.render(text, width) {
			if w := ansi.StringWidth(l); w > want {
				t.Fatalf("dark line %q is %d wide, more than %d", l, w, want)
			}
		}
	})
}
