// Package termsafe makes text godwit did not write (model output, tool
// output, file names, errors from elsewhere) safe to show on a terminal,
// which would obey its escape sequences (OSC 52 clipboard, OSC 8 links,
// DCS passthrough, queries answered as if typed), C1 controls,
// overprinting CRs and backspaces, and bidi or zero-width characters.
//
// Text is for prose: whatever a terminal would obey is removed. Exact is
// for what a person approves (a command, a path): nothing is removed, and
// every character not drawn as itself becomes a visible mark (⟨ESC⟩,
// ⟨U+202E⟩, ⟨0xFF⟩). NonASCII names look-alike letters. Every place that
// prints such text to a terminal goes through it.
//
// It imports none of godwit's packages.
package termsafe

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text returns s safe to print as prose: escape sequences (7-bit and
// 8-bit, their payloads included) and control characters are removed but
// for newlines and tabs; CR LF and a lone CR end a line; bidirectional
// controls and invisible format characters are removed; bytes that are
// not UTF-8 become U+FFFD. A string sequence that is not terminated ends
// at the line's end, so it cannot hide the lines after it.
func Text(s string) string { return text(s, false) }

// Styled is Text for a screen godwit drew itself, styling untrusted text
// it had passed through Text: SGR sequences (colour, bold) stay, every
// other sequence and control but newlines goes, and neither a CR nor a
// line separator starts a row (the frame's rows are counted). It is the last wall before the terminal, for text
// that reached the screen unsanitised by mistake.
func Styled(s string) string { return text(s, true) }

func text(s string, styled bool) string {
	if plain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c < 0x80 {
			switch {
			case c == 0x1b:
				end := skipSeq(s, i+1, s[min(i+1, len(s)-1)])
				if styled && isSGR(s[i:end]) {
					b.WriteString(s[i:end])
				}
				i = end
				continue
			case c == '\r':
				if !styled && (i+1 >= len(s) || s[i+1] != '\n') {
					b.WriteByte('\n')
				}
			case c == '\n' || c == '\t' || c >= 0x20 && c != 0x7f:
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteRune(utf8.RuneError)
		case r >= 0x80 && r < 0xa0: // C1: some open a sequence, as ESC + a letter does
			if intro, ok := c1Intro[r]; ok {
				i = skipSeq(s, i+n, intro)
				continue
			}
		case r == '\u2028' || r == '\u2029':
			if !styled {
				b.WriteByte('\n')
			}
		case hidden(r):
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// isSGR reports whether seq is ESC [ params m, params digits, ; and :.
func isSGR(seq string) bool {
	if len(seq) < 3 || seq[1] != '[' || seq[len(seq)-1] != 'm' {
		return false
	}
	for i := 2; i < len(seq)-1; i++ {
		if c := seq[i]; (c < '0' || c > '9') && c != ';' && c != ':' {
			return false
		}
	}
	return true
}

// c1Intro maps the C1 controls that open a sequence to the byte that
// opens it after ESC.
var c1Intro = map[rune]byte{0x9b: '[', 0x9d: ']', 0x90: 'P', 0x9f: '_', 0x9e: '^', 0x98: 'X'}

// skipSeq returns where the sequence whose introducer (the byte after
// ESC, or a C1's equivalent) is intro ends; i is just past ESC or the C1.
func skipSeq(s string, i int, intro byte) int {
	if i >= len(s) {
		return i
	}
	if strings.IndexByte("[]P_^X", intro) >= 0 && s[i] == intro && s[i-1] == 0x1b {
		i++ // ESC + intro; a C1 has no second byte
	}
	switch intro {
	case '[': // CSI: parameters and intermediates, then a final byte
		for i < len(s) {
			c := s[i]
			switch {
			case c >= 0x40 && c <= 0x7e:
				return i + 1
			case c >= 0x20 && c <= 0x3f:
				i++
			default:
				return i // broken off: what follows is text again
			}
		}
		return i
	case ']', 'P', '_', '^', 'X': // strings: up to ST (ESC \, 0x9c) or BEL
		for i < len(s) {
			switch c := s[i]; {
			case c == 0x07:
				return i + 1
			case c == 0x1b && i+1 < len(s) && s[i+1] == '\\':
				return i + 2
			case c == 0xc2 && i+1 < len(s) && s[i+1] == 0x9c:
				return i + 2
			case c == '\n':
				return i
			}
			i++
		}
		return i
	}
	// ESC, intermediates, a final byte (charset selection, ESC c, ESC 7).
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
		i++
	}
	return i
}

// plain reports whether s is printable ASCII, newlines and tabs only.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x7f || c < 0x20 && c != '\n' && c != '\t' {
			return false
		}
	}
	return true
}

// hidden reports whether r is drawn as nothing, or changes how the text
// around it is drawn: bidirectional controls, zero-width and other
// invisible format characters, Unicode tags (which hide ASCII text). The
// zero-width joiner and variation selectors stay: emoji are made of
// them, and they change no reading order.
func hidden(r rune) bool {
	switch {
	case r == '\u200d', r >= '\ufe00' && r <= '\ufe0f':
		return false
	case r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069',
		r == '\u200e', r == '\u200f', r == '\u061c':
		return true // bidi
	case r >= 0xe0000 && r <= 0xe007f:
		return true // tags
	case r == '\u00ad', r == '\u180e', r == '\ufeff',
		r >= '\u200b' && r <= '\u200c', r >= '\u2060' && r <= '\u2064',
		r >= '\ufff9' && r <= '\ufffb':
		return true
	}
	return unicode.Is(unicode.Cf, r) // format characters
}

// Exact returns s with every character a terminal would not draw as
// itself written as a visible mark: controls by name (⟨ESC⟩, ⟨CR⟩, ⟨BS⟩)
// or code (⟨U+009B⟩), hidden characters by code (⟨U+202E⟩), bytes that
// are not UTF-8 by value (⟨0xFF⟩). Newlines and tabs stay.
func Exact(s string) string { return exact(s, false) }

// ExactLine is Exact on one line: newlines are marks too (⟨LF⟩).
func ExactLine(s string) string { return exact(s, true) }

var c0Names = map[byte]string{0: "NUL", 0x07: "BEL", 0x08: "BS", 0x0b: "VT", 0x0c: "FF", '\r': "CR", 0x1b: "ESC", 0x7f: "DEL", '\n': "LF"}

func exact(s string, oneLine bool) string {
	if plain(s) && (!oneLine || strings.IndexByte(s, '\n') < 0) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		c := s[i]
		if c < 0x80 {
			switch {
			case c == '\t', c == '\n' && !oneLine, c >= 0x20 && c != 0x7f:
				b.WriteByte(c)
			case c0Names[c] != "":
				b.WriteString("⟨" + c0Names[c] + "⟩")
			default:
				fmt.Fprintf(&b, "⟨U+%04X⟩", c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, "⟨0x%02X⟩", c)
		case r < 0xa0 || r == '\u2028' || r == '\u2029' || hidden(r):
			fmt.Fprintf(&b, "⟨U+%04X⟩", r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// NonASCII lists, once each and at most max, the letters and symbols of s
// outside ASCII with their code points ("о U+043E"): in a command or a
// path, a Cyrillic о reads as an o. Hidden characters are left to Exact,
// which marks them.
func NonASCII(s string, max int) []string {
	var out []string
	seen := map[rune]bool{}
	for _, r := range s {
		if r < 0x80 || r < 0xa0 || hidden(r) || r == utf8.RuneError || seen[r] || unicode.IsSpace(r) {
			continue
		}
		if len(out) == max {
			out = append(out, "…")
			break
		}
		seen[r] = true
		out = append(out, fmt.Sprintf("%c U+%04X", r, r))
	}
	return out
}
