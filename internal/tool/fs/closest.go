package fs

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/godwit/godwit/tool"
)

// Limits of the region an EDIT_NO_MATCH shows.
const (
	maxRegionLines = 30
	maxRegionCol   = 200
	// minKeyLen: shorter lines ("}", "end") match everywhere and would
	// drag the search to the wrong place.
	minKeyLen = 4
)

// lineNumbered catches old_text copied with file_read's "N<tab>" prefixes.
var lineNumbered = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*\d+\t`) })

// noMatchError builds EDIT_NO_MATCH with the region of the file most like
// old_text, so the model re-reads the right lines instead of guessing.
func noMatchError(content []byte, li *lineIndex, old []string) error {
	hint := ""
	if len(old) > 0 && lineNumbered().MatchString(old[0]) {
		hint = " It seems to include the line numbers file_read shows; drop the \"N<tab>\" prefixes."
	}
	a, b, ok := closestRegion(li, old)
	if !ok {
		return tool.Errorf(tool.CodeEditNoMatch, "Re-read the file with file_read, then edit with the exact text."+hint,
			"old_text was not found and no similar text exists in the file")
	}
	var region strings.Builder
	for i := a; i <= b && i < a+maxRegionLines; i++ {
		line := li.line(i)
		if len(line) > maxRegionCol {
			line = append(line[:maxRegionCol:maxRegionCol], "…"...)
		}
		region.WriteString(strconv.Itoa(i + 1))
		region.WriteByte('\t')
		region.Write(line)
		region.WriteByte('\n')
	}
	if b >= a+maxRegionLines {
		region.WriteString("…\n")
	}
	return tool.Errorf(tool.CodeEditNoMatch,
		fmt.Sprintf("Re-read lines %d-%d with file_read, then edit with the exact text.%s", a+1, b+1, hint),
		"old_text was not found; the closest region is lines %d-%d:\n%s", a+1, b+1, strings.TrimRight(region.String(), "\n"))
}

// closestRegion returns the window of len(old) lines (from 0, inclusive)
// that lines up the most of old_text's lines (trimmed): each file line
// equal to old_text's line k votes for a window starting k lines above
// it, in one pass. When no line is shared, it falls back to the file line
// most like old_text's longest line by byte bigrams.
func closestRegion(li *lineIndex, old []string) (a, b int, ok bool) {
	n, m := li.n(), len(old)
	if n == 0 {
		return 0, 0, false
	}
	m = min(m, n)
	keys := make(map[string][]int)
	for k, o := range old {
		if key := strings.TrimSpace(o); len(key) >= minKeyLen {
			keys[key] = append(keys[key], k)
		}
	}
	if len(keys) > 0 {
		votes := make(map[int]int)
		best, bestA := 0, 0
		for i := range n {
			for _, k := range keys[string(bytes.TrimSpace(li.line(i)))] {
				start := max(0, min(i-k, n-m))
				votes[start]++
				if v := votes[start]; v > best || v == best && start < bestA {
					best, bestA = v, start
				}
			}
		}
		if best > 0 {
			return bestA, bestA + m - 1, true
		}
	}
	// Fall back to the line most like old's longest line.
	k := 0
	for i, o := range old {
		if len(strings.TrimSpace(o)) > len(strings.TrimSpace(old[k])) {
			k = i
		}
	}
	key := []byte(strings.TrimSpace(old[k]))
	if len(key) < 2 {
		return 0, 0, false
	}
	var grams bigrams
	grams.add(key)
	bestLine, bestSim := -1, 0.5 // below half the bigrams in common, nothing is close
	for i := range n {
		if s := grams.similarity(key, bytes.TrimSpace(li.line(i))); s > bestSim {
			bestLine, bestSim = i, s
		}
	}
	if bestLine < 0 {
		return 0, 0, false
	}
	a = max(0, min(bestLine-k, n-m))
	return a, a + m - 1, true
}

// bigrams is a set of byte pairs, one bit each.
type bigrams [1 << 16 / 64]uint64

func (g *bigrams) add(b []byte) {
	for i := 0; i+1 < len(b); i++ {
		x := uint16(b[i])<<8 | uint16(b[i+1])
		g[x/64] |= 1 << (x % 64)
	}
}

func (g *bigrams) has(x uint16) bool { return g[x/64]&(1<<(x%64)) != 0 }

// similarity is the Dice coefficient of key's and line's bigrams, counting
// line's bigrams found in key's set.
func (g *bigrams) similarity(key, line []byte) float64 {
	if len(line) < 2 {
		return 0
	}
	common := 0
	for i := 0; i+1 < len(line); i++ {
		if g.has(uint16(line[i])<<8 | uint16(line[i+1])) {
			common++
		}
	}
	common = min(common, len(key)-1)
	return 2 * float64(common) / float64(len(key)-1+len(line)-1)
}
