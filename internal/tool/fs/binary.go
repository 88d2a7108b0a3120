package fs

import (
	"bytes"
	"unicode/utf8"
)

// sniffLen is how much of a file decides whether it is binary, as git and
// ripgrep do.
const sniffLen = 8 << 10

// looksBinary reports whether head (the first bytes of a file) is binary:
// it holds a NUL byte, or more than a tenth of it is not UTF-8 (Latin-1
// text has a few invalid bytes; images and archives have many).
func looksBinary(head []byte) bool {
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	invalid := 0
	for i := 0; i < len(head); {
		if head[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && size == 1 {
			if !utf8.FullRune(head[i:]) {
				break // cut at the end of the sniffed prefix
			}
			invalid++
		}
		i += size
	}
	return invalid*10 > len(head)
}
