package fs

import (
	"bytes"
	"strings"
)

// lineIndex gives random access to the lines of a file, for the tolerant
// matcher and the closest-region search. It costs one int per line.
type lineIndex struct {
	b      []byte
	starts []int // start offset of each line, then len(b)
}

func newLineIndex(b []byte) *lineIndex {
	starts := make([]int, 0, bytes.Count(b, []byte{'\n'})+2)
	starts = append(starts, 0)
	for i := 0; ; {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		if i < len(b) {
			starts = append(starts, i)
		}
	}
	if len(b) == 0 {
		starts = starts[:0]
	}
	return &lineIndex{b: b, starts: append(starts, len(b))}
}

func (li *lineIndex) n() int { return len(li.starts) - 1 }

// line returns line i (from 0) without "\n" or "\r\n".
func (li *lineIndex) line(i int) []byte {
	return trimCR(li.raw(i))
}

// raw returns line i without its "\n" (a "\r" stays).
func (li *lineIndex) raw(i int) []byte {
	l := li.b[li.starts[i]:li.starts[i+1]]
	if len(l) > 0 && l[len(l)-1] == '\n' {
		l = l[:len(l)-1]
	}
	return l
}

// end returns the offset just past line i's content, or past its
// terminator when withEOL is set.
func (li *lineIndex) end(i int, withEOL bool) int {
	if withEOL {
		return li.starts[i+1]
	}
	return li.starts[i] + len(li.line(i))
}

func trimCR(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\r' {
		return b[:len(b)-1]
	}
	return b
}

func trimRightWS(b []byte) []byte { return bytes.TrimRight(b, " \t\r") }

func leadingWS(s string) string { return s[:len(s)-len(strings.TrimLeft(s, " \t"))] }

// level is one tolerant comparison of a file line with a line of
// old_text.
type level struct {
	name  string
	equal func(file []byte, old string) bool
	// indent: the match also needs a uniform indentation shift.
	indent bool
}

var levels = []level{
	{"ignoring line endings", func(f []byte, o string) bool { return string(trimCR(f)) == o }, false},
	{"ignoring trailing whitespace", func(f []byte, o string) bool {
		return string(trimRightWS(f)) == strings.TrimRight(o, " \t\r")
	}, false},
	{"ignoring indentation", func(f []byte, o string) bool {
		return string(bytes.TrimSpace(f)) == strings.TrimSpace(o)
	}, true},
}

// shift is a uniform indentation change: the file has delta more (add)
// or less (!add) leading whitespace than old_text on every line.
type shift struct {
	delta string
	add   bool
}

// find returns the first line of up to limit windows whose lines equal
// old under lv, with each window's indentation shift.
func (li *lineIndex) find(old []string, lv level, limit int) (wins []int, shifts []shift) {
	m := len(old)
	for a := 0; a+m <= li.n() && len(wins) < limit; a++ {
		ok := true
		for i := range m {
			if !lv.equal(li.raw(a+i), old[i]) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		var s shift
		if lv.indent {
			if s, ok = li.shiftOf(a, old); !ok {
				continue
			}
		}
		wins = append(wins, a)
		shifts = append(shifts, s)
	}
	return wins, shifts
}

func (li *lineIndex) shiftOf(a int, old []string) (shift, bool) {
	var s shift
	set := false
	for i, o := range old {
		f := string(li.line(a + i))
		if strings.TrimSpace(o) == "" && strings.TrimSpace(f) == "" {
			continue
		}
		fi, oi := leadingWS(f), leadingWS(o)
		switch {
		case !set && strings.HasSuffix(fi, oi):
			s, set = shift{fi[:len(fi)-len(oi)], true}, true
		case !set && strings.HasSuffix(oi, fi):
			s, set = shift{oi[:len(oi)-len(fi)], false}, true
		case s.add && fi != s.delta+oi, !s.add && oi != s.delta+fi:
			return shift{}, false
		}
	}
	return s, true
}

// linePlan turns a window match into a plan: the window's lines are
// replaced by new_text, re-indented by the window's shift and given the
// file's line endings.
func (li *lineIndex) linePlan(a, m int, trailingOld bool, newText string, s shift, crlf bool, how string) plan {
	newLines, trailingNew := splitLines(newText)
	if newText == "" {
		newLines = nil
	}
	for i, l := range newLines {
		switch {
		case strings.TrimSpace(l) == "":
		case s.add:
			newLines[i] = s.delta + l
		default:
			newLines[i] = strings.TrimPrefix(l, s.delta)
		}
	}
	eol := "\n"
	if crlf {
		eol = "\r\n"
	}
	repl := strings.Join(newLines, eol)
	if trailingNew {
		repl += eol
	}
	return plan{
		spans: []span{{li.starts[a], li.end(a+m-1, trailingOld)}},
		repl:  []byte(repl),
		how:   how,
	}
}
