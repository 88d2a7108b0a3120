// Package o200k counts tokens as OpenAI's o200k_base encoding does (the
// tokenizer of GPT-4o and later; godwit measures every request with it).
// The ranked vocabulary is embedded (vocab.bin, generated from
// tiktoken-go's with -update) and read in place, and the pre-tokenizer is
// written out by hand from the encoding's pattern, kept because
// tiktoken-go builds a 200,000-entry map at start (~40 ms of CPU and
// 6 MiB in every process that counts) and splits text with a
// backtracking regexp (~2 MB/s). TestMatchesTiktoken checks the counts
// against tiktoken-go's.
//
// It imports none of godwit's packages.
package o200k

import (
	"container/heap"
	_ "embed"
	"sync"
	"unicode"
	"unicode/utf8"
)

//go:embed vocab.bin
var vocabBin string

// vocab.bin is, after magic: the number of tokens n and the size of the
// hash table m (a power of two), as little-endian uint32s; n+1 offsets
// into the token bytes; m slots (rank + 1 of the token hashed there, 0
// for none, with linear probing); then every token's bytes by rank. All
// of it is read in place: a process builds nothing to count.
const magic = "o200k_base ranks 2\n"

// table is the vocabulary, read in place from vocab.bin.
type table struct {
	off, slots string // little-endian uint32s
	data       string // every token's bytes, by rank
	mask       uint64
}

func u32(s string, i int) uint32 {
	s = s[4*i : 4*i+4]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

var load = sync.OnceValue(loadTable)

func loadTable() *table {
	b := vocabBin[len(magic):]
	n, m := int(u32(b, 0)), int(u32(b, 1))
	b = b[8:]
	t := &table{off: b[:4*(n+1)], slots: b[4*(n+1) : 4*(n+1+m)], mask: uint64(m - 1)}
	t.data = b[4*(n+1+m):]
	return t
}

func hash(s string) uint64 {
	h := uint64(len(s)) * 0x9E3779B97F4A7C15
	for len(s) >= 8 {
		v := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		h = (h ^ v) * 0xBF58476D1CE4E5B9
		h ^= h >> 31
		s = s[8:]
	}
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 0x94D049BB133111EB
	}
	return h ^ h>>29
}

// rank returns the rank of token s, or -1 when s is not a token.
func (t *table) rank(s string) int {
	h := hash(s) & t.mask
	for {
		r := int(u32(t.slots, int(h)))
		if r == 0 {
			return -1
		}
		if tok := t.data[u32(t.off, r-1):u32(t.off, r)]; tok == s {
			return r - 1
		}
		h = (h + 1) & t.mask
	}
}

// Count returns the number of o200k_base tokens of s (special tokens are
// counted as the text they are).
func Count(s string) int {
	if s == "" {
		return 0
	}
	t := load()
	if !utf8.ValidString(s) {
		s = string([]rune(s)) // each invalid byte becomes U+FFFD, as the reference's
	}
	return t.count(s, false)
}

func (t *table) count(s string, firstNewline bool) int {
	n := 0
	for i := 0; i < len(s); {
		j := next(s, i, firstNewline)
		n += t.pieceTokens(s[i:j])
		i = j
	}
	return n
}

// Rune classes of the encoding's pattern.
func isL(r rune) bool     { return unicode.IsLetter(r) }
func isN(r rune) bool     { return unicode.IsNumber(r) }
func isSpace(r rune) bool { return unicode.IsSpace(r) }

// isUpper: [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}].
func isUpper(r rune) bool {
	if r < utf8.RuneSelf {
		return 'A' <= r && r <= 'Z'
	}
	return unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M)
}

// isLower: [\p{Ll}\p{Lm}\p{Lo}\p{M}].
func isLower(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z'
	}
	return unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo, unicode.M)
}

// isPrefix: [^\r\n\p{L}\p{N}].
func isPrefix(r rune) bool { return r != '\r' && r != '\n' && !isL(r) && !isN(r) }

// isPunct: [^\s\p{L}\p{N}].
func isPunct(r rune) bool { return !isSpace(r) && !isL(r) && !isN(r) }

func at(s string, i int) (rune, int) {
	if i >= len(s) {
		return -1, 0
	}
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// next returns the end of the piece that starts at i: the match of the
// pattern
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|\p{N}{1,3}
//	| ?[^\s\p{L}\p{N}]+[\r\n/]*
//	|\s*[\r\n]+
//	|\s+(?!\S)
//	|\s+
//
// at i, alternatives tried in order and each with the backtracking a
// regexp engine would do. firstNewline makes \s*[\r\n]+ end at the
// first line break of a run of whitespace rather than the last, as
// tiktoken-go's regexp engine does (only the tests ask for it, to match
// that implementation exactly elsewhere: OpenAI's own tokenizer and the
// vocabulary, which holds " \n \n" as one token, take the last).
func next(s string, i int, firstNewline bool) int {
	r, size := at(s, i)
	// The two word alternatives, with and without the prefix.
	if isPrefix(r) {
		if e := word1(s, i+size); e > 0 {
			return e
		}
	}
	if e := word1(s, i); e > 0 {
		return e
	}
	if isPrefix(r) {
		if e := word2(s, i+size); e > 0 {
			return e
		}
	}
	if e := word2(s, i); e > 0 {
		return e
	}
	if isN(r) {
		e := i + size
		for k := 1; k < 3; k++ {
			r2, n := at(s, e)
			if !isN(r2) {
				break
			}
			e += n
		}
		return e
	}
	if r == ' ' {
		if r2, _ := at(s, i+1); r2 >= 0 && isPunct(r2) {
			return punct(s, i+1)
		}
	}
	if isPunct(r) {
		return punct(s, i)
	}
	// Whitespace: r is a space.
	end, lastNL, lastStart := i, -1, i
	for {
		r2, n := at(s, end)
		if r2 < 0 || !isSpace(r2) {
			break
		}
		if r2 == '\r' || r2 == '\n' {
			lastNL = end + n
		} else if firstNewline && lastNL > 0 {
			break
		}
		lastStart = end
		end += n
	}
	if lastNL > 0 {
		return lastNL // \s*[\r\n]+
	}
	if end == len(s) || lastStart == i {
		return end // \s+ at the end, or one space before a non-space
	}
	return lastStart // \s+(?!\S): all but the last
}

// word1 matches [A]*[B]+(contraction)? at i (A upper-ish, B lower-ish)
// and returns its end, 0 when it does not match.
func word1(s string, i int) int {
	// A* greedy, remembering where each A starts, then B+ from the end
	// backwards: the first start that is a B wins.
	k := i
	var starts [32]int
	st := starts[:0]
	for {
		r, n := at(s, k)
		if r < 0 || !isUpper(r) {
			break
		}
		st = append(st, k)
		k += n
	}
	if r, _ := at(s, k); r >= 0 && isLower(r) {
		return contraction(s, lowerRun(s, k))
	}
	for j := len(st) - 1; j >= 0; j-- {
		if r, _ := at(s, st[j]); isLower(r) {
			return contraction(s, lowerRun(s, st[j]))
		}
	}
	return 0
}

// word2 matches [A]+[B]*(contraction)? at i.
func word2(s string, i int) int {
	k := i
	for {
		r, n := at(s, k)
		if r < 0 || !isUpper(r) {
			break
		}
		k += n
	}
	if k == i {
		return 0
	}
	return contraction(s, lowerRun(s, k))
}

func lowerRun(s string, k int) int {
	for {
		r, n := at(s, k)
		if r < 0 || !isLower(r) {
			return k
		}
		k += n
	}
}

// contraction extends a word ending at e by 's, 't, 're, 've, 'm, 'll
// or 'd, in any case.
func contraction(s string, e int) int {
	if e >= len(s) || s[e] != '\'' || e+1 >= len(s) {
		return e
	}
	lower := func(c byte) byte { return c | 0x20 }
	switch lower(s[e+1]) {
	case 's', 't', 'm', 'd':
		return e + 2
	case 'r', 'v':
		if e+2 < len(s) && lower(s[e+2]) == 'e' {
			return e + 3
		}
	case 'l':
		if e+2 < len(s) && lower(s[e+2]) == 'l' {
			return e + 3
		}
	}
	return e
}

// punct matches [^\s\p{L}\p{N}]+[\r\n/]* at i.
func punct(s string, i int) int {
	e := i
	for {
		r, n := at(s, e)
		if r < 0 || !isPunct(r) {
			break
		}
		e += n
	}
	for e < len(s) && (s[e] == '\r' || s[e] == '\n' || s[e] == '/') {
		e++
	}
	return e
}

// pieceTokens is the number of tokens byte-pair merging makes of one
// piece: the adjacent pair of lowest rank merges first (the leftmost of
// equal ones), until no adjacent pair is a token.
func (t *table) pieceTokens(p string) int {
	if len(p) == 1 || t.rank(p) >= 0 {
		return 1
	}
	if len(p) > 64 {
		return t.mergeLong(p)
	}
	var buf [65]int
	bounds := buf[:len(p)+1]
	for i := range bounds {
		bounds[i] = i
	}
	var rbuf [64]int
	ranks := rbuf[:len(p)]
	pair := func(i int) int { // rank of parts i and i+1 merged
		if i+2 >= len(bounds) {
			return -1
		}
		return t.rank(p[bounds[i]:bounds[i+2]])
	}
	for i := range len(bounds) - 1 {
		ranks[i] = pair(i)
	}
	for len(bounds) > 2 {
		best, at := -1, -1
		for i := 0; i < len(bounds)-2; i++ {
			if r := ranks[i]; r >= 0 && (best < 0 || r < best) {
				best, at = r, i
			}
		}
		if at < 0 {
			break
		}
		bounds = append(bounds[:at+1], bounds[at+2:]...)
		ranks = append(ranks[:at+1], ranks[at+2:]...)
		ranks[at] = pair(at)
		if at > 0 {
			ranks[at-1] = pair(at - 1)
		}
	}
	return len(bounds) - 1
}

// mergeLong is pieceTokens for long pieces (a run of one character, a
// line of base64): a heap of candidate merges over a linked list.
func (t *table) mergeLong(p string) int {
	n := len(p)
	prev := make([]int32, n+1)
	nxt := make([]int32, n+1)
	for i := range prev {
		prev[i], nxt[i] = int32(i-1), int32(i+1)
	}
	nxt[n] = -1
	rankAt := func(i int32) int {
		j := nxt[i]
		if j < 0 || j >= int32(n) {
			return -1
		}
		k := nxt[j]
		if k < 0 {
			return -1
		}
		return t.rank(p[i:k])
	}
	h := &mergeHeap{}
	cur := make([]int, n)
	for i := int32(0); i < int32(n)-1; i++ {
		cur[i] = rankAt(i)
		if cur[i] >= 0 {
			heap.Push(h, cand{cur[i], i})
		}
	}
	parts := n
	for h.Len() > 0 {
		c := heap.Pop(h).(cand)
		if c.pos < 0 || nxt[c.pos] < 0 || cur[c.pos] != c.rank || c.rank < 0 {
			continue // stale
		}
		// Merge c.pos with its next part.
		j := nxt[c.pos]
		nxt[c.pos] = nxt[j]
		if nxt[j] >= 0 {
			prev[nxt[j]] = c.pos
		}
		nxt[j], prev[j] = -1, -1
		parts--
		cur[c.pos] = rankAt(c.pos)
		if cur[c.pos] >= 0 {
			heap.Push(h, cand{cur[c.pos], c.pos})
		}
		if q := prev[c.pos]; q >= 0 {
			cur[q] = rankAt(q)
			if cur[q] >= 0 {
				heap.Push(h, cand{cur[q], q})
			}
		}
	}
	return parts
}

type cand struct {
	rank int
	pos  int32
}

// mergeHeap is a min-heap of candidates by rank, then position.
type mergeHeap []cand

func (h mergeHeap) Len() int { return len(h) }
func (h mergeHeap) Less(i, j int) bool {
	return h[i].rank < h[j].rank || h[i].rank == h[j].rank && h[i].pos < h[j].pos
}
func (h mergeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *mergeHeap) Push(x any)   { *h = append(*h, x.(cand)) }
func (h *mergeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
