package fs

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

const (
	diffContext = 3
	// maxDiffLines bounds Result.Diff; the model's copy is cut shorter.
	maxDiffLines = 4000
)

// editDiff renders the unified diff of applying p to old, looking only at
// the lines around each span: its cost follows the size of the change, not
// of the file, and the edited file is never built in memory.
func editDiff(old []byte, p plan) (diff string, added, removed int) {
	type region struct{ a, b, first, last int } // old byte range; its spans
	var regions []region
	for i, s := range p.spans {
		a := lineStart(old, s.start)
		last := s.end
		if last > s.start {
			last--
		}
		b := lineEnd(old, last)
		for range diffContext {
			if a > 0 {
				a = lineStart(old, a-1)
			}
			if b < len(old) {
				b = lineEnd(old, b)
			}
		}
		if n := len(regions); n > 0 && a <= regions[n-1].b {
			regions[n-1].b, regions[n-1].last = b, i
		} else {
			regions = append(regions, region{a, b, i, i})
		}
	}
	var out strings.Builder
	prev, oldLine, lineDelta := 0, 1, 0
	for _, r := range regions {
		oldLine += bytes.Count(old[prev:r.a], []byte{'\n'})
		prev = r.a
		ob := old[r.a:r.b]
		nb := applyIn(old, p.spans[r.first:r.last+1], p.repl, r.a, r.b)
		ad, rm := writeHunks(&out, diffText(ob), diffText(nb), oldLine, oldLine+lineDelta)
		added += ad
		removed += rm
		lineDelta += bytes.Count(nb, []byte{'\n'}) - bytes.Count(ob, []byte{'\n'})
	}
	return out.String(), added, removed
}

// applyIn returns b[from:to] with spans (all inside it) replaced by repl.
func applyIn(b []byte, spans []span, repl []byte, from, to int) []byte {
	var out []byte
	for _, s := range spans {
		out = append(out, b[from:s.start]...)
		out = append(out, repl...)
		from = s.end
	}
	return append(out, b[from:to]...)
}

// lineStart returns the offset of the start of the line holding off.
func lineStart(b []byte, off int) int {
	return bytes.LastIndexByte(b[:off], '\n') + 1
}

// lineEnd returns the offset just past the "\n" ending the line holding
// off (or len(b)).
func lineEnd(b []byte, off int) int {
	if off >= len(b) {
		return len(b)
	}
	i := bytes.IndexByte(b[off:], '\n')
	if i < 0 {
		return len(b)
	}
	return off + i + 1
}

// diffText is b as the diff shows it: CR LF read as LF, a final newline.
func diffText(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	s := strings.TrimSuffix(strings.ReplaceAll(string(b), "\r\n", "\n"), "\r")
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}

// writeHunks writes the line diff of a to b (diffText) as unified hunks
// with diffContext lines of context; oldStart and newStart number their
// first lines.
func writeHunks(out *strings.Builder, a, b string, oldStart, newStart int) (added, removed int) {
	u, err := udiff.ToUnifiedDiff("", "", a, udiff.Lines(a, b), diffContext)
	if err != nil {
		return 0, 0 // not reached: the edits are the library's own
	}
	mark := map[udiff.OpKind]string{udiff.Equal: " ", udiff.Delete: "-", udiff.Insert: "+"}
	for _, h := range u.Hunks {
		oc, nc := 0, 0
		for _, l := range h.Lines {
			switch l.Kind {
			case udiff.Delete:
				oc, removed = oc+1, removed+1
			case udiff.Insert:
				nc, added = nc+1, added+1
			default:
				oc, nc = oc+1, nc+1
			}
		}
		fmt.Fprintf(out, "@@ -%s +%s @@\n", hunkRange(oldStart+h.FromLine-1, oc), hunkRange(newStart+h.ToLine-1, nc))
		for _, l := range h.Lines {
			out.WriteString(mark[l.Kind] + l.Content)
		}
	}
	return added, removed
}

func hunkRange(start, n int) string {
	if n == 0 {
		start--
	}
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// cutLines keeps the first n lines of a diff, saying how many were cut.
func cutLines(s string, n int) string {
	head, rest := firstLines(s, n)
	if rest == "" {
		return head
	}
	return head + fmt.Sprintf("…[diff cut: %s more]\n", plural(strings.Count(rest, "\n"), "line"))
}
