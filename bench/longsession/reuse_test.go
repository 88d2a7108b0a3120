package main

import "testing"

// The re-use day's first cycle, scaled down, with the real binary: the
// model never loses what its turn works on (no recall or re-read within
// a turn); three turns later it recalls the page of the file it only
// read, and reads again the file it has edited since.
func TestReuseDayKeepsTheTurnsWork(t *testing.T) {
	s := reuseSpec("reuse", 200_000)
	s.Turns = 6
	f := attackScaled(t, 0.5, s)[0]
	turnsOK(t, f)
	for _, tg := range f.Targets {
		if !tg.Pass {
			t.Errorf("%s: %s", tg.What, tg.Got)
		}
	}
	if f.Recalls != 1 || f.Rereads != 1 {
		t.Errorf("%d recalls and %d re-reads, want one each (turns 5 and 4)", f.Recalls, f.Rereads)
	}
}
