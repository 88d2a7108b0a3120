package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// report prints the figures as a table, then each run's targets, breaks
// by cause and anything that went wrong.
func report(w io.Writer, all []figures, verbose bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "session\tformat\twindow\tturns\trequests\tcalls/turn\tbilled\tdiscounted\tprefix\tbreaks\tturn/reset/compact/handoff/other\tlargest\t>window\tresets\thandoff max\tfirst-after-reset max\tshown\trecalls\trereads\trule kept\t")
	for _, f := range all {
		var byCause []string
		for _, c := range causes {
			byCause = append(byCause, fmt.Sprint(f.BreakCauses[c]))
		}
		first := "-"
		if len(f.FirstAfterReset) > 0 {
			first = fmt.Sprint(f.FirstAfterMax)
		}
		handoff := "-"
		if f.Resets > 0 {
			handoff = fmt.Sprint(f.HandoffMax)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%.1f\t%d\t%d\t%.0f%%\t%d\t%s\t%d\t%d\t%d\t%s\t%s\t%d\t%d\t%d\t%v\t\n",
			f.Session, f.Format, f.Window, f.Turns, f.Requests, f.CallsPerTurn, f.Billed, f.Discounted,
			100*f.PrefixShare, len(f.Breaks), strings.Join(byCause, "/"), f.Largest, f.OverWindow, f.Resets, handoff, first, f.Shown, f.Recalls, f.Rereads, f.RuleKept)
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, f := range all {
		pass := 0
		for _, t := range f.Targets {
			if t.Pass {
				pass++
			}
		}
		fmt.Fprintf(w, "%s/%s: %d of %d targets met\n", f.Session, f.Format, pass, len(f.Targets))
		for _, t := range f.Targets {
			mark := "FAIL"
			if t.Pass {
				mark = "pass"
			}
			fmt.Fprintf(w, "  %s  %s: %s\n", mark, t.What, t.Got)
		}
		if f.Checks != nil && f.Session == "e" {
			fmt.Fprintf(w, "  rule superseded: %v; cancellation in %d ledger/handoff texts; injected output marked untrusted in %d of %d requests\n",
				f.Checks["rule_superseded"], f.Checks["cancellation_outside_tool_outputs"], f.Checks["outputs_marked_untrusted"], f.Checks["outputs_with_injection"])
		}
		// Failed turns, grouped by what happened.
		var order []string
		byWhat := map[string][]string{}
		for _, tr := range f.TurnRuns {
			if tr.Exit != 0 || tr.Killed != "" {
				what := strings.TrimSpace(fmt.Sprintf("exit %d %s %s", tr.Exit, tr.Killed, tr.Error))
				if byWhat[what] == nil {
					order = append(order, what)
				}
				byWhat[what] = append(byWhat[what], fmt.Sprint(tr.Turn))
			}
		}
		for _, what := range order {
			fmt.Fprintf(w, "  turns %s: %s\n", strings.Join(byWhat[what], ","), what)
		}
		for _, p := range f.Problems {
			fmt.Fprintf(w, "  measuring: %s\n", p)
		}
		if verbose {
			fmt.Fprintf(w, "  bench tokens / godwit's own count: %.3f\n", f.CountRatio)
			for _, b := range f.Breaks {
				fmt.Fprintf(w, "  break at request %d (turn %d): %s, %d tokens, %d still shared\n", b.Request, b.Turn, b.Cause, b.Tokens, b.Shared)
			}
		}
	}
}
