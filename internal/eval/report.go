package eval

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// NewProgress returns a Progress func writing to w: a line when the runs
// start, then on a terminal a bar redrawn in place, with failures printed
// above it; otherwise one line per finished run, with the count done.
func NewProgress(w io.Writer, tty bool) func(Progress) {
	return func(p Progress) {
		if p.Done == 0 && p.Finished == nil && len(p.Running) == 0 {
			fmt.Fprintf(w, "eval: %d %s, %d at once\n", p.Total, plural(p.Total, "run", "runs"), max(p.Jobs, 1))
			return
		}
		if tty {
			fmt.Fprint(w, "\r\033[K")
		}
		if f := p.Finished; f != nil && (!tty || !f.Pass) {
			line := runLine(f)
			if !tty {
				line = fmt.Sprintf("[%d/%d] %s", p.Done, p.Total, line)
			}
			fmt.Fprintln(w, line)
		}
		if !tty {
			return
		}
		const width = 24
		filled := 0
		if p.Total > 0 {
			filled = width * p.Done / p.Total
		}
		fmt.Fprintf(w, "[%s%s] %d/%d", strings.Repeat("#", filled), strings.Repeat(".", width-filled), p.Done, p.Total)
		if len(p.Running) > 0 {
			run := strings.Join(p.Running, ", ")
			if len(run) > 60 {
				run = run[:59] + "…"
			}
			fmt.Fprintf(w, "  %s", run)
		}
		if p.Done == p.Total {
			fmt.Fprintln(w)
		}
	}
}

func runLine(r *RunResult) string {
	status := "ok  "
	if !r.Pass {
		status = "FAIL"
	}
	line := fmt.Sprintf("%s %s#%d  %d calls  %s tokens  %d resets  %s", status, r.Task, r.Run, r.Calls,
		num(float64(r.TotalTokens())), r.Resets, ms(float64(r.DurationMS)))
	for _, f := range r.Failures {
		line += "\n    " + strings.ReplaceAll(strings.TrimSpace(f), "\n", "\n    ")
	}
	if r.Workspace != "" {
		line += "\n    workspace kept: " + r.Workspace
	}
	return line
}

// WriteComparison writes a verdict: one line per task, the bars, and the
// verdict.
func WriteComparison(w io.Writer, v *Verdict) error {
	fmt.Fprintf(w, "A: %s (%s, godwit %s, %d runs/task)\nB: %s (%s, godwit %s, %d runs/task)\n\n",
		v.A.Name, v.A.Model, v.A.Godwit, v.A.Runs, v.B.Name, v.B.Model, v.B.Godwit, v.B.Runs)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tLABEL\tPASS A->B\tCALLS A->B\tTOKENS A->B\tWHY")
	for _, t := range v.Tasks {
		pass, calls, tokens := "-", "-", "-"
		if t.A != nil && t.B != nil {
			pass = fmt.Sprintf("%d/%d -> %d/%d", t.A.Passed, t.A.Runs, t.B.Passed, t.B.Runs)
			calls = num(t.A.Calls) + " -> " + num(t.B.Calls)
			tokens = num(t.A.TotalTokens) + " -> " + num(t.B.TotalTokens)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", t.Task, t.Label, pass, calls, tokens, strings.Join(t.Why, "; "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, b := range v.Bars {
		status := "ok"
		if !b.Pass {
			status = "FAILED"
		}
		fmt.Fprintf(w, "bar %s: %s %s\n", b.Bar, signed(b.Actual, b.Bar), status)
	}
	if v.Why != "" {
		fmt.Fprintf(w, "why: %s\n", v.Why)
	}
	_, err := fmt.Fprintf(w, "verdict: %s\n", v.Summary)
	return err
}

// signed prints a bar's measured value in the bar's own unit.
func signed(x float64, bar string) string {
	switch {
	case math.Abs(x) >= 1e9:
		return "from zero"
	case strings.HasSuffix(bar, "%"):
		return fmt.Sprintf("%+.1f%%", x)
	}
	return fmt.Sprintf("%+.4g", x)
}
