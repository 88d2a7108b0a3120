package eval

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"
	"time"

	"github.com/godwit/godwit/internal/digits"
)

// TaskSummary is one task's runs in numbers: counts, and means per run.
type TaskSummary struct {
	Task       string
	Version    int
	Model      string
	SystemHash string
	ToolsHash  string
	Runs       int
	Passed     int
	// Broken: some run broke (setup or engine), not the agent.
	Broken bool

	Calls        float64
	PromptTokens float64
	TotalTokens  float64
	Resets       float64
	Cost         float64
	DurationMS   float64
}

// PassRate is the share of runs that passed, in percent.
func (s TaskSummary) PassRate() float64 {
	if s.Runs == 0 {
		return 0
	}
	return 100 * float64(s.Passed) / float64(s.Runs)
}

// PromptPerCall is the mean request size in tokens.
func (s TaskSummary) PromptPerCall() float64 {
	if s.Calls == 0 {
		return 0
	}
	return s.PromptTokens / s.Calls
}

// Summarize groups runs by task, in the runs' order.
func Summarize(runs []RunResult) []TaskSummary {
	var out []TaskSummary
	idx := map[string]int{}
	for _, r := range runs {
		i, ok := idx[r.Task]
		if !ok {
			i = len(out)
			idx[r.Task] = i
			out = append(out, TaskSummary{Task: r.Task, Version: r.TaskVersion, Model: r.Model})
		}
		s := &out[i]
		passed := 0
		if r.Pass {
			passed = 1
		}
		s.add(TaskSummary{Runs: 1, Passed: passed, Calls: float64(r.Calls), PromptTokens: float64(r.PromptTokens),
			TotalTokens: float64(r.TotalTokens()), Resets: float64(r.Resets), Cost: r.Cost, DurationMS: float64(r.DurationMS)})
		s.Broken = s.Broken || r.Broken
		if !r.Broken {
			s.SystemHash = common(s.SystemHash, r.SystemHash)
			s.ToolsHash = common(s.ToolsHash, r.ToolsHash)
		}
		s.Model = common(s.Model, r.Model)
		if s.Version != r.TaskVersion {
			s.Version = -1 // mixed; compare calls it confounded
		}
	}
	for i := range out {
		n := float64(out[i].Runs)
		s := &out[i]
		s.Calls, s.PromptTokens, s.TotalTokens, s.Resets, s.Cost, s.DurationMS =
			s.Calls/n, s.PromptTokens/n, s.TotalTokens/n, s.Resets/n, s.Cost/n, s.DurationMS/n
	}
	return out
}

// add sums o's counts and figures into s.
func (s *TaskSummary) add(o TaskSummary) {
	s.Runs += o.Runs
	s.Passed += o.Passed
	s.Calls += o.Calls
	s.PromptTokens += o.PromptTokens
	s.TotalTokens += o.TotalTokens
	s.Resets += o.Resets
	s.Cost += o.Cost
	s.DurationMS += o.DurationMS
}

// Total adds task summaries up: counts and per-run means summed over the
// tasks (a suite's run costs the sum of its tasks').
func Total(ts []TaskSummary) TaskSummary {
	t := TaskSummary{Task: fmt.Sprintf("all (%d tasks)", len(ts))}
	for _, s := range ts {
		t.add(s)
	}
	return t
}

// WriteSummary writes the results as a table: one line per task and a
// total.
func WriteSummary(w io.Writer, r *Results) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	sums := Summarize(r.Runs)
	tot := Total(sums)
	width := len(tot.Task)
	for _, s := range sums {
		width = max(width, len(s.Task))
	}
	// Padded by hand: tabwriter aligns every column right, numbers need it.
	fmt.Fprintf(tw, "%-*s\tPASS\tCALLS\tPROMPT/CALL\tTOKENS\tRESETS\tCOST\tTIME\t\n", width, "TASK")
	row := func(s TaskSummary, pass string) {
		fmt.Fprintf(tw, "%-*s\t%s\t%s\t%s\t%s\t%s\t$%.4f\t%s\t\n", width, s.Task, pass, num(s.Calls), num(s.PromptPerCall()),
			num(s.TotalTokens), num(s.Resets), s.Cost, ms(s.DurationMS))
	}
	for _, s := range sums {
		row(s, fmt.Sprintf("%d/%d", s.Passed, s.Runs))
	}
	row(tot, fmt.Sprintf("%.0f%%", tot.PassRate()))
	if err := tw.Flush(); err != nil {
		return err
	}
	shard := ""
	if r.Shard != "" {
		shard = ", shard " + r.Shard
	}
	_, err := fmt.Fprintf(w, "%d/%d runs passed; model %s, godwit %s, prompt %s, tools %s%s; wall %s\n",
		tot.Passed, tot.Runs, r.Model, r.Godwit, r.SystemHash, r.ToolsHash, shard, ms(float64(r.WallMS)))
	return err
}

// num prints a count or a mean: thousands separated, one decimal below 10.
func num(v float64) string {
	if v != 0 && v < 10 && v != float64(int64(v)) {
		return fmt.Sprintf("%.1f", v)
	}
	// As "%.0f" would round it: half to even.
	return digits.Group(int64(math.RoundToEven(v)))
}

func ms(v float64) string {
	return (time.Duration(v) * time.Millisecond).Round(100 * time.Millisecond).String()
}
