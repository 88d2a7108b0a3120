package o200k

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"
)

func reference(t testing.TB) tokenizer.Codec {
	t.Helper()
	enc, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

// cases are texts that exercise every alternative of the pattern and
// the merges: contractions, case runs, marks, digits, whitespace before
// and after newlines, punctuation runs, scripts, invalid UTF-8.
var cases = []string{
	"", "a", "hello world", "Hello World", "HELLO world", "HTTPServer", "iPhone's", "I'M HERE", "we'RE they'Ve it'Ll I'd",
	"don't can't won't", "x'y", "'s", "''", "a'", "élan café naïve", "ÀÉÎÕÜ", "e\u0301 a\u0308\u0301b", "\u0301\u0301x", "ǅungla ǈ",
	"123", "1234567", "12 345 6789 0", "3.14159", "١٢٣٤ ٥٦", "Ⅻ ⅻ ½ ²",
	"  leading", "trailing  ", "a  b   c\t\td", "line\nline", "a\r\nb", "x \n y", "x  \n\n  y", "\n\n\n", " \n \n ", "\t\n", "end \n",
	"func main() {\n\tfmt.Println(\"hi\")\n}\n", "a/b//c///", "x = y // comment\n", "<<>>!!??", " ...", "-- ++ **", "a\u00a0b\u2003c\u3000d",
	"東京は日本の首都です。", "한국어 텍스트", "Русский текст, да.", "עברית ועוד", "العربية هنا", "हिन्दी पाठ", "ไทยภาษา", "😀😃 👍🏽 family 👨‍👩‍👧",
	"\xff\xfe invalid", "ok\xc3(bad", strings.Repeat("=", 300), strings.Repeat(" ", 200) + "x", strings.Repeat("ab", 500),
	strings.Repeat("Zm9vYmFyYmF6cXV4", 40), strings.Repeat("0", 100), "<|endoftext|> special", "CamelCaseIdentifierNames and snake_case_names",
}

// TestMatchesTiktoken: the counts are tiktoken-go's, once its regexp
// engine's one departure from the pattern (\s*[\r\n]+ ends at the first
// line break of a run of whitespace) is made here too; how often Count,
// which ends at the last, differs is logged.
func TestMatchesTiktoken(t *testing.T) {
	enc := reference(t)
	tb := load()
	differ, texts := 0, 0
	check := func(name, s string) {
		t.Helper()
		want, _ := enc.Count(s)
		got := tb.count(string([]rune(s)), true)
		// Binary files: tiktoken-go's engine maps some invalid bytes
		// its own way; within a percent is all a count needs there.
		if bin := !utf8.ValidString(s) && len(s) > 64; bin && (got-want)*100 > want || (want-got)*100 > want || !bin && got != want {
			t.Errorf("%s: count = %d, tiktoken %d (%.80q)", name, got, want, s)
		}
		texts++
		if Count(s) != want {
			differ++
		}
	}
	defer func() {
		t.Logf("%d texts; Count differs from tiktoken-go on %d (whitespace runs across line breaks)", texts, differ)
	}()
	for _, s := range cases {
		check("case", s)
	}
	for _, name := range []string{"injections.txt", "ordinary.txt"} {
		b, err := os.ReadFile(filepath.Join("..", "untrusted", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range strings.Split(string(b), "\n---\n") {
			check(name, s)
		}
	}
	// Go's own source, and its non-Go files (text, data, other scripts).
	n := 0
	_ = filepath.WalkDir(filepath.Join(goroot(t), "src"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || n >= 400 {
			return nil
		}
		if fi, err := d.Info(); err != nil || fi.Size() > 200<<10 {
			return nil
		}
		n++
		if n%3 != 0 && !strings.HasSuffix(p, ".go") {
			return nil
		}
		b, _ := os.ReadFile(p)
		check(p, string(b))
		return nil
	})
}

// TestMatchesTiktokenOnRandomText compares on random mixes of the
// characters the pattern tells apart.
func TestMatchesTiktokenOnRandomText(t *testing.T) {
	enc := reference(t)
	alphabet := []string{"a", "b", "Z", "Q", "é", "É", "ǅ", "ʰ", "\u0301", "中", "3", "٣", "½", " ", "  ", "\t", "\n", "\r", "\r\n", "\u00a0", "\u3000",
		"'", "'s", "'LL", "'re", ".", ",", "/", "//", "-", "(", ")", "😀", "\xff", "x", "the", "The", "HTTP", "42", "_", "$", "\"", "\u200d"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range 1 + rng.IntN(24) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		s := b.String()
		want, _ := enc.Count(s)
		if got := load().count(string([]rune(s)), true); got != want {
			ids, toks, _ := enc.Encode(s)
			t.Fatalf("Count(%q) = %d, tiktoken %d: %q %v", s, got, want, toks, ids)
		}
	}
}

func BenchmarkCount(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(goroot(b), "src", "net", "http", "*.go"))
	var texts []string
	size := 0
	for _, f := range files {
		t, _ := os.ReadFile(f)
		texts = append(texts, string(t))
		size += len(t)
	}
	load()
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, t := range texts {
			Count(t)
		}
	}
}

func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		loadTable()
	}
}

// goroot is the Go tree of the go command on PATH (runtime.GOROOT is
// deprecated: it names the tree the test binary was built from, if any).
func goroot(tb testing.TB) string {
	tb.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		tb.Skipf("no go command to find Go's source tree: %v", err)
	}
	return strings.TrimSpace(string(out))
}
