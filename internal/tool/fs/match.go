package fs

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/godwit/godwit/tool"
)

// span is a byte range of the file that an edit replaces.
type span struct{ start, end int }

// plan is a resolved edit: the ranges to replace (sorted, disjoint) and
// the text that replaces each.
type plan struct {
	spans []span
	repl  []byte
	how   string // "" for an exact match, else which tolerance matched
}

// maxListed bounds how many match lines an EDIT_MULTIPLE_MATCH lists.
const maxListed = 10

// planEdit finds where old goes in content. An exact match comes first
// (after giving old and new the file's line endings, which changes
// nothing the model meant); then, line by line, matches that ignore
// line endings, trailing whitespace, or a uniform indentation shift, each
// used only when it is unique.
func planEdit(content []byte, oldText, newText string, replaceAll bool) (plan, error) {
	crlf := usesCRLF(content)
	old, repl := withEOL(oldText, crlf), withEOL(newText, crlf)
	if n := bytes.Count(content, []byte(old)); n > 0 {
		if n > 1 && !replaceAll {
			return plan{}, multipleError(content, findAll(content, []byte(old), maxListed), n, "")
		}
		var p plan
		for _, at := range findAll(content, []byte(old), n) {
			p.spans = append(p.spans, span{at, at + len(old)})
		}
		p.repl = []byte(repl)
		return p, nil
	}
	li := newLineIndex(content)
	oldLines, trailingOld := splitLines(oldText)
	if strings.TrimSpace(oldText) == "" {
		return plan{}, noMatchError(content, li, oldLines)
	}
	for _, lv := range levels {
		wins, deltas := li.find(oldLines, lv, maxListed+1)
		switch {
		case len(wins) == 1:
			return li.linePlan(wins[0], len(oldLines), trailingOld, newText, deltas[0], crlf, lv.name), nil
		case len(wins) > 1:
			lines := make([]int, len(wins))
			for i, w := range wins {
				lines[i] = w + 1
			}
			return plan{}, multipleError(nil, lines, len(wins), lv.name)
		}
	}
	return plan{}, noMatchError(content, li, oldLines)
}

func usesCRLF(b []byte) bool {
	crlf := bytes.Count(b, []byte("\r\n"))
	return crlf > 0 && crlf*2 >= bytes.Count(b, []byte("\n"))
}

// withEOL gives s the line endings of the file.
func withEOL(s string, crlf bool) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if crlf {
		s = strings.ReplaceAll(s, "\n", "\r\n")
	}
	return s
}

// findAll returns the offsets of up to limit non-overlapping matches.
func findAll(b, sep []byte, limit int) []int {
	var out []int
	for at := 0; len(out) < limit; {
		i := bytes.Index(b[at:], sep)
		if i < 0 {
			break
		}
		out = append(out, at+i)
		at += i + len(sep)
	}
	return out
}

// splitLines splits s into lines without terminators ("\r\n" or "\n");
// trailing reports a final newline, which is not an extra empty line.
func splitLines(s string) (lines []string, trailing bool) {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	trailing = strings.HasSuffix(s, "\n") && len(s) > 1
	if trailing {
		s = s[:len(s)-1]
	}
	return strings.Split(s, "\n"), trailing
}

// multipleError lists where old_text matches. For exact matches the
// offsets are turned into line numbers; lines are given for line matches.
func multipleError(content []byte, at []int, n int, how string) error {
	lines := at
	if content != nil {
		lines = make([]int, len(at))
		prev, line := 0, 1
		for i, off := range at {
			line += bytes.Count(content[prev:off], []byte{'\n'})
			prev = off
			lines[i] = line
		}
	}
	list := make([]string, min(len(lines), maxListed))
	for i := range list {
		list[i] = fmt.Sprint(lines[i])
	}
	where := strings.Join(list, ", ")
	if n > len(list) {
		where += ", …"
	}
	if how != "" {
		return tool.Errorf(tool.CodeEditMultipleMatch, "Copy old_text exactly from file_read (replace_all needs exact matches), or add surrounding lines so it matches one place.",
			"old_text matches no place exactly and %d places %s, at lines %s", n, how, where)
	}
	return tool.Errorf(tool.CodeEditMultipleMatch,
		fmt.Sprintf("Add surrounding lines to old_text so it matches one place, or set replace_all to change all %d.", n),
		"old_text matches %d places, at lines %s", n, where)
}
