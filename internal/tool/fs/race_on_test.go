//go:build race

package fs

// raceOn: the race detector slows the regexp tenfold; the comparison on
// the Go tree is left to runs without it.
const raceOn = true
