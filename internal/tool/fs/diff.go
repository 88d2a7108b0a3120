package fs

import (
	"bytes"
	"fmt"
	"strings"
)

const (
	diffContext = 3
	// maxDiffCells bounds the line-diff table; past it a changed block is
	// shown as all removed then all added, which is still a valid diff.
	maxDiffCells = 1 << 20
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
		ad, rm := writeHunks(&out, diffLines(ob), diffLines(nb), oldLine, oldLine+lineDelta)
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

func diffLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	s := strings.TrimSuffix(string(b), "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

type op struct {
	kind byte // ' ', '-', '+'
	text string
}

// lineOps returns an edit script from a to b: common prefix and suffix,
// then a longest-common-subsequence table over the middle when it is
// small enough.
func lineOps(a, b []string) []op {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	var ops []op
	for _, l := range a[:p] {
		ops = append(ops, op{' ', l})
	}
	ma, mb := a[p:len(a)-s], b[p:len(b)-s]
	if len(ma)*len(mb) <= maxDiffCells {
		ops = append(ops, lcsOps(ma, mb)...)
	} else {
		for _, l := range ma {
			ops = append(ops, op{'-', l})
		}
		for _, l := range mb {
			ops = append(ops, op{'+', l})
		}
	}
	for _, l := range a[len(a)-s:] {
		ops = append(ops, op{' ', l})
	}
	return ops
}

func lcsOps(a, b []string) []op {
	w := len(b) + 1
	t := make([]int32, (len(a)+1)*w) // t[i*w+j]: LCS of a[i:], b[j:]
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i*w+j] = t[(i+1)*w+j+1] + 1
			} else {
				t[i*w+j] = max(t[(i+1)*w+j], t[i*w+j+1])
			}
		}
	}
	var ops []op
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, op{' ', a[i]})
			i++
			j++
		case i < len(a) && (j == len(b) || t[(i+1)*w+j] >= t[i*w+j+1]):
			ops = append(ops, op{'-', a[i]})
			i++
		default:
			ops = append(ops, op{'+', b[j]})
			j++
		}
	}
	return ops
}

// writeHunks writes the ops of one region as unified hunks with
// diffContext lines of context; oldStart and newStart number the region's
// first line.
func writeHunks(out *strings.Builder, a, b []string, oldStart, newStart int) (added, removed int) {
	ops := lineOps(a, b)
	for i := 0; i < len(ops); {
		// Find the next change and the end of its hunk.
		for i < len(ops) && ops[i].kind == ' ' {
			i++
		}
		if i == len(ops) {
			break
		}
		from := max(0, i-diffContext)
		to := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				to = j + 1
			} else if j-to >= 2*diffContext {
				break
			}
		}
		to = min(len(ops), to+diffContext)
		ol, nl := oldStart, newStart
		for _, o := range ops[:from] {
			if o.kind != '+' {
				ol++
			}
			if o.kind != '-' {
				nl++
			}
		}
		oc, nc := 0, 0
		for _, o := range ops[from:to] {
			if o.kind != '+' {
				oc++
			}
			if o.kind != '-' {
				nc++
			}
		}
		fmt.Fprintf(out, "@@ -%s +%s @@\n", hunkRange(ol, oc), hunkRange(nl, nc))
		for _, o := range ops[from:to] {
			out.WriteByte(o.kind)
			out.WriteString(o.text)
			out.WriteByte('\n')
			switch o.kind {
			case '+':
				added++
			case '-':
				removed++
			}
		}
		i = to
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
