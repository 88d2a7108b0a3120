//go:build !race

package fs

const raceOn = false
