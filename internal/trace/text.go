package trace

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/godwit/godwit/internal/digits"
)

// listMax bounds the examples listed under a finding.
const listMax = 5

// WriteText writes r as a compact summary for people.
func (r Report) WriteText(w io.Writer) error {
	b := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }

	p("session %s  %s\n", r.Session, r.Title)
	p("turns %d%s · model calls %d%s · tool calls %d%s\n",
		r.Turns.Total, turnNote(r.Turns), r.ModelCalls, counts(tally{r.ModelErrors, "failed"}, tally{r.Retries, "retries"}),
		r.ToolCalls, counts(tally{r.ToolErrors, "failed"}, tally{r.ToolDenied, "denied"}, tally{r.ToolCancelled, "cancelled"}))
	if r.MaxParallel > 1 {
		p("parallel steps %d (most: %d calls in %s)\n", r.ParallelSteps, r.MaxParallel, r.MaxParallelAt)
	} else {
		p("parallel steps 0\n")
	}
	t := r.Tokens
	p("tokens in %s (cache read %s, write %s) · out %s · reasoning %s · text %s chars\n",
		digits.Group(t.Input), digits.Group(t.CacheRead), digits.Group(t.CacheWrite), digits.Group(t.Output), digits.Group(t.Reasoning), digits.Group(int64(r.TextChars)))
	p("cost %s", usd(r.Cost.Total))
	for _, m := range r.Cost.ByModel {
		p(" · %s %d calls %s", m.Model, m.Calls, usd(m.Cost))
	}
	if r.Cost.Unpriced > 0 {
		p(" · %d calls without a known price", r.Cost.Unpriced)
	}
	p("\n")

	if len(r.Tools) > 0 {
		p("\ntools:")
		for _, tc := range r.Tools {
			p(" %s %d%s", tc.Name, tc.Calls, counts(tally{tc.Errors, "failed"}, tally{tc.Denied, "denied"}, tally{tc.Cancelled, "cancelled"}))
		}
		p("\n")
	}

	p("\nre-reads %d · reads after own write %d\n", len(r.ReReads), len(r.ReadsAfterWrite))
	// each lists the first listMax items of a finding.
	each := func(n int, line func(i int)) {
		for i := range min(n, listMax) {
			line(i)
		}
		if n > listMax {
			p("  …\n")
		}
	}
	each(len(r.ReReads), func(i int) {
		f := r.ReReads[i]
		p("  re-read %s at %s (read at %s)\n", f.Path, f.At, f.Since)
	})
	each(len(r.ReadsAfterWrite), func(i int) {
		f := r.ReadsAfterWrite[i]
		p("  read back %s at %s (written at %s)\n", f.Path, f.At, f.Since)
	})

	s := r.Shell
	p("shell runs %d · failed %d · exit 0 with stderr output %d", s.Runs, s.Failed, len(s.StderrOK))
	if s.Denied > 0 {
		p(" · denied %d", s.Denied)
	}
	if s.Cancelled > 0 {
		p(" · cancelled %d", s.Cancelled)
	}
	p("\n")
	each(len(s.StderrOK), func(i int) {
		run := s.StderrOK[i]
		p("  %s %s: %s\n", run.At, run.Command, run.Line)
	})
	each(len(s.Repeated), func(i int) {
		rep := s.Repeated[i]
		p("  repeated ×%d%s: %s\n", rep.Runs, counts(tally{rep.Failed, "failed"}), rep.Command)
	})

	ts := r.Tests
	p("test runs %d · failed %d", ts.Runs, ts.Failed)
	if ts.FirstPass != nil {
		p(" · first pass %s · runs after it %d", ts.FirstPass, ts.AfterFirstPass)
	} else {
		p(" · never passed")
	}
	p("\n")

	ph := r.Phases
	p("phases: explore %s", phase(ph.Explore))
	if ph.FirstWrite != nil {
		p(" · first write %s", ph.FirstWrite)
	}
	p(" · to green %s", phase(ph.ToGreen))
	if ph.Green != nil {
		p(" · green %s · after green %s", ph.Green, phase(ph.AfterGreen))
	} else if ph.FirstWrite != nil {
		p(" · not green")
	}
	p("\n")

	if len(r.Nudges) > 0 {
		p("nudges:")
		for _, check := range slices.Sorted(maps.Keys(r.Nudges)) {
			p(" %s %d", check, r.Nudges[check])
		}
		p("\n")
	}
	if r.Verify.Runs > 0 {
		p("verify runs %d · failed %d · last exit %d\n", r.Verify.Runs, r.Verify.Failed, *r.Verify.LastExit)
	}
	return b.Flush()
}

// WriteJSON writes r as indented JSON.
func (r Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func turnNote(c TurnCounts) string {
	return counts(tally{c.Done, "done"}, tally{c.Failed, "failed"}, tally{c.Cancelled, "cancelled"}, tally{c.Interrupted, "interrupted"}, tally{c.Running, "running"})
}

// tally is a count and what it counts.
type tally struct {
	n    int
	word string
}

// counts renders the non-zero tallies as " (1 failed, 2 denied)", or ""
// when all are zero.
func counts(ts ...tally) string {
	var parts []string
	for _, t := range ts {
		if t.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", t.n, t.word))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func phase(p Phase) string {
	s := fmt.Sprintf("%d calls", p.Calls)
	if p.Calls == 1 {
		s = "1 call"
	}
	if p.Calls > 0 {
		s += fmt.Sprintf(" (%s in, %s out", digits.Group(p.Input), digits.Group(p.Output))
		if p.Cost > 0 {
			s += ", " + usd(p.Cost)
		}
		s += ")"
	}
	return s
}

// usd renders a cost with four decimals: small calls cost fractions of a
// cent.
func usd(c float64) string { return fmt.Sprintf("$%.4f", c) }
