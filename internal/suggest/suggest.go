// Package suggest finds the word a user most likely meant: the nearest of
// a set of known words by edit distance, for "did you mean" in errors
// about config keys, flags and commands.
//
// It imports none of godwit's packages.
package suggest

import "strings"

// Nearest returns the candidate closest to word, or "" when none is close
// enough to be a likely typo: at most a third of the word's length in
// edits (at least one, at most three), or a candidate that starts with
// word or that word starts with (a truncated or over-long spelling).
// Case is ignored; ties go to the earlier candidate.
func Nearest(word string, candidates []string) string {
	w := strings.ToLower(word)
	if w == "" {
		return ""
	}
	limit := min(max(len(w)/3, 1), 3)
	best, bestD := "", limit+1
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if lc == w {
			return c
		}
		d := distance(w, lc)
		if d < bestD {
			best, bestD = c, d
		}
	}
	if best != "" {
		return best
	}
	if len(w) >= 3 {
		for _, c := range candidates {
			lc := strings.ToLower(c)
			if strings.HasPrefix(lc, w) || strings.HasPrefix(w, lc) && len(lc) >= 3 {
				return c
			}
		}
	}
	return ""
}

// distance is the optimal string alignment distance: insertions,
// deletions, substitutions and transpositions of adjacent letters each
// cost one ("retyr" is one edit from "retry").
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
