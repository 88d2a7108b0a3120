package termsafe

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestText(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "ls -la\n\tok", "ls -la\n\tok"},
		{"unicode stays", "café 👨‍👩‍👧 ❤️ 日本", "café 👨‍👩‍👧 ❤️ 日本"},
		{"clear screen and home", "a\x1b[2J\x1b[Hb", "ab"},
		{"colour", "\x1b[31mred\x1b[0m", "red"},
		{"conceal", "ok \x1b[8mhidden\x1b[28m", "ok hidden"},
		{"title BEL", "a\x1b]0;PWNED\x07b", "ab"},
		{"title ST", "a\x1b]2;PWNED\x1b\\b", "ab"},
		{"clipboard", "a\x1b]52;c;cHduZWQ=\x07b", "ab"},
		{"hyperlink", "\x1b]8;;https://evil.example/\x1b\\docs\x1b]8;;\x1b\\", "docs"},
		{"dcs passthrough", "a\x1bPtmux;\x1b\x1b]52;c;eA==\x07\x1b\\b", "ab"},
		{"apc", "a\x1b_title\x1b\\b", "ab"},
		{"pm sos", "a\x1b^x\x1b\\b\x1bXy\x1b\\c", "abc"},
		{"c1 csi", "a\u009b2Jb", "ab"},
		{"c1 osc with c1 st", "a\u009d0;T\u009cb", "ab"},
		{"c1 other", "a\u0085b", "ab"},
		{"raw 8-bit csi", "a\x9b2Jb", "a\ufffd2Jb"},
		{"invalid utf-8", "a\xff\xfeb", "a\ufffd\ufffdb"},
		{"bracketed paste off", "a\x1b[?2004lb", "ab"},
		{"esc c reset", "a\x1bcb", "ab"},
		{"charset", "a\x1b(0b", "ab"},
		{"esc at end", "a\x1b", "a"},
		{"csi broken by newline", "a\x1b[12\nb", "a\nb"},
		{"unterminated osc ends at the line", "a\x1b]0;T\nnext", "a\nnext"},
		{"cr overprint", "rm -rf ~\rls   ", "rm -rf ~\nls   "},
		{"crlf", "a\r\nb", "a\nb"},
		{"backspace", "r\bxm", "rxm"},
		{"bell del nul", "a\x07\x7f\x00b", "ab"},
		{"bidi override", "a\u202egnp.exe\u202c", "agnp.exe"},
		{"isolates and marks", "\u2066a\u2069\u200e\u200f\u061c", "a"},
		{"zero width", "r\u200bm \u2060x\ufeff\u00ad", "rm x"},
		{"tags", "hi\U000E0041\U000E0042", "hi"},
		{"line separator", "a\u2028b", "a\nb"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Text(tc.in)
			if got != tc.want {
				t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if strings.ContainsAny(got, "\x1b\r\x07\b") || strings.ContainsRune(got, 0x9b) || !utf8.ValidString(got) {
				t.Errorf("Text(%q) = %q still holds controls", tc.in, got)
			}
		})
	}
}

func TestExact(t *testing.T) {
	for _, tc := range []struct{ name, in, want, line string }{
		{"plain", "go test ./...", "go test ./...", ""},
		{"tab stays", "a\tb", "a\tb", ""},
		{"newline", "ls\nrm -rf ~", "ls\nrm -rf ~", "ls⟨LF⟩rm -rf ~"},
		{"cr", "curl x|sh;#\rls", "curl x|sh;#⟨CR⟩ls", ""},
		{"escape", "a\x1b[8mb", "a⟨ESC⟩[8mb", ""},
		{"backspace", "rm\b\bls", "rm⟨BS⟩⟨BS⟩ls", ""},
		{"c1", "a\u009b2J", "a⟨U+009B⟩2J", ""},
		{"other c0", "a\x01", "a⟨U+0001⟩", ""},
		{"bidi", "x\u202eyz", "x⟨U+202E⟩yz", ""},
		{"zero width", "r\u200bm", "r⟨U+200B⟩m", ""},
		{"not utf-8", "a\xffb", "a⟨0xFF⟩b", ""},
		{"unicode letters stay", "git push оrigin", "git push оrigin", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Exact(tc.in); got != tc.want {
				t.Errorf("Exact(%q) = %q, want %q", tc.in, got, tc.want)
			}
			line := tc.line
			if line == "" {
				line = tc.want
			}
			if got := ExactLine(tc.in); got != line {
				t.Errorf("ExactLine(%q) = %q, want %q", tc.in, got, line)
			}
		})
	}
}

// TestExactHidesNothing: every byte of the input is either drawn as
// itself or marked, so Text of Exact's output is Exact's output.
func TestExactHidesNothing(t *testing.T) {
	in := "a\x1b]0;T\x07\r\b\u202e\u200b\xff\u009b\x00z"
	out := Exact(in)
	if Text(out) != out {
		t.Errorf("Exact left something a terminal obeys: %q", out)
	}
	for _, mark := range []string{"⟨ESC⟩", "⟨BEL⟩", "⟨CR⟩", "⟨BS⟩", "⟨U+202E⟩", "⟨U+200B⟩", "⟨0xFF⟩", "⟨U+009B⟩", "⟨NUL⟩"} {
		if !strings.Contains(out, mark) {
			t.Errorf("Exact(%q) = %q lacks %s", in, out, mark)
		}
	}
}

func TestNonASCII(t *testing.T) {
	got := NonASCII("git push оrigin mаin café\u200b", 5)
	want := []string{"о U+043E", "а U+0430", "é U+00E9"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("NonASCII = %q, want %q", got, want)
	}
	if got := NonASCII("ls -la", 5); got != nil {
		t.Errorf("NonASCII(ascii) = %q", got)
	}
	if got := NonASCII("абвгд", 2); len(got) != 3 || got[2] != "…" {
		t.Errorf("NonASCII cut = %q", got)
	}
}

func BenchmarkText(b *testing.B) {
	s := strings.Repeat("output line with \x1b[31mcolour\x1b[0m and text\n", 20000)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Text(s)
	}
}

func BenchmarkTextPlain(b *testing.B) {
	s := strings.Repeat("plain output line of a command\n", 20000)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Text(s)
	}
}

func TestStyled(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"sgr stays", "\x1b[38;5;245mdim\x1b[m \x1b[1;4:3mx\x1b[0m", "\x1b[38;5;245mdim\x1b[m \x1b[1;4:3mx\x1b[0m"},
		{"others go", "a\x1b]0;T\x07\x1b[2J\x1bPx\x1b\\\x1b_y\x1b\\\x1b[?2004l\u009b31mb", "ab"},
		{"private sgr-like goes", "a\x1b[?25mb\x1b[>4;1m", "ab"},
		{"controls go", "a\rb\bc\x07", "abc"},
		{"line separator makes no row", "a\u2028b", "ab"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Styled(tc.in); got != tc.want {
				t.Errorf("Styled(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
