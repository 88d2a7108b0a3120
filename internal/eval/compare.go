package eval

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
)

// Labels compare gives each task.
const (
	// Helped: B passes more often than A, or as often with fewer tokens
	// (or, tokens within noise, fewer model calls).
	Helped = "helped"
	// Hurt: the reverse.
	Hurt = "hurt"
	// NoEffect: pass rates equal, tokens and calls within noise.
	NoEffect = "no observed effect"
	// Confounded: something other than the change under test differs
	// (see Compare); the numbers are shown but count toward no bar.
	Confounded = "confounded"
)

// Fingerprint fields a change under test may alter (CompareOptions.Expect).
const (
	ExpectModel  = "model"
	ExpectPrompt = "prompt"
	ExpectTools  = "tools"
)

// DefaultNoise is the least relative change, in percent, of tokens or
// calls that counts as an effect.
const DefaultNoise = 5.0

// CompareOptions configure Compare.
type CompareOptions struct {
	// NameA and NameB say what each side is (a file name).
	NameA, NameB string
	// Why is the reason for the comparison, for the ledger.
	Why string
	// Expect names what the change under test is meant to alter: model,
	// prompt (the system prompt's hash), tools (the tool table's hash).
	// A difference in anything not named confounds the task.
	Expect []string
	// Noise is the threshold of an effect, in percent (default 5).
	Noise float64
	// Bars decide the verdict; none means DefaultBars.
	Bars []Bar
}

// Side describes one result set.
type Side struct {
	Name       string `json:"name"`
	Model      string `json:"model"`
	Godwit     string `json:"godwit"`
	Runs       int    `json:"runs_per_task"`
	SystemHash string `json:"system_hash"`
	ToolsHash  string `json:"tools_hash"`
	Tasks      int    `json:"tasks"`
}

// TaskComparison is one task lined up.
type TaskComparison struct {
	Task  string `json:"task"`
	Label string `json:"label"`
	// Why says what decided the label (or what confounds it).
	Why []string     `json:"why"`
	A   *TaskSummary `json:"a,omitempty"`
	B   *TaskSummary `json:"b,omitempty"`
}

// Verdict is the outcome of a comparison: what the ledger records.
type Verdict struct {
	Time   time.Time        `json:"time"`
	A      Side             `json:"a"`
	B      Side             `json:"b"`
	Why    string           `json:"why,omitempty"`
	Expect []string         `json:"expect,omitempty"`
	Noise  float64          `json:"noise_pct"`
	Tasks  []TaskComparison `json:"tasks"`
	Counts map[string]int   `json:"counts"`
	// Comparable is A's and B's totals over the tasks not confounded.
	ComparableA TaskSummary `json:"comparable_a"`
	ComparableB TaskSummary `json:"comparable_b"`
	Bars        []BarResult `json:"bars"`
	Pass        bool        `json:"pass"`
	Summary     string      `json:"summary"`
}

// Compare lines a and b up by task and judges each task, then the bars.
//
// A task is confounded when it is in one set only, when its version or
// its number of runs differs, when a run of it broke (setup, engine), or
// when its model, system prompt hash or tool table hash differs and
// opts.Expect does not name that field (a prompt change under test is
// compared with Expect: prompt). godwit's own version may differ: that is
// usually the change under test.
func Compare(a, b *Results, opts CompareOptions, now time.Time) *Verdict {
	if opts.Noise <= 0 {
		opts.Noise = DefaultNoise
	}
	if len(opts.Bars) == 0 {
		opts.Bars = DefaultBars()
	}
	v := &Verdict{Time: now, A: side(opts.NameA, a), B: side(opts.NameB, b), Why: opts.Why, Expect: opts.Expect,
		Noise: opts.Noise, Counts: map[string]int{}}
	sa, sb := index(Summarize(a.Runs)), index(Summarize(b.Runs))
	keys := slices.AppendSeq(slices.Collect(maps.Keys(sa)), maps.Keys(sb))
	slices.Sort(keys)
	keys = slices.Compact(keys)
	var compA, compB []TaskSummary
	for _, k := range keys {
		tc := judge(k, sa[k], sb[k], opts)
		v.Tasks = append(v.Tasks, tc)
		v.Counts[tc.Label]++
		if tc.Label != Confounded {
			compA, compB = append(compA, *tc.A), append(compB, *tc.B)
		}
	}
	v.ComparableA, v.ComparableB = Total(compA), Total(compB)
	v.Pass = len(compA) > 0
	for _, bar := range opts.Bars {
		r := bar.Eval(v)
		v.Bars = append(v.Bars, r)
		v.Pass = v.Pass && r.Pass
	}
	v.Summary = v.summary(len(compA))
	return v
}

func side(name string, r *Results) Side {
	return Side{Name: name, Model: r.Model, Godwit: r.Godwit, Runs: r.RunsPerTask, SystemHash: r.SystemHash,
		ToolsHash: r.ToolsHash, Tasks: len(Summarize(r.Runs))}
}

func index(ss []TaskSummary) map[string]*TaskSummary {
	m := map[string]*TaskSummary{}
	for i := range ss {
		m[ss[i].Task] = &ss[i]
	}
	return m
}

func judge(task string, a, b *TaskSummary, opts CompareOptions) TaskComparison {
	tc := TaskComparison{Task: task, A: a, B: b}
	if why := confounders(a, b, opts.Expect); len(why) > 0 {
		tc.Label, tc.Why = Confounded, why
		return tc
	}
	dp := b.PassRate() - a.PassRate()
	tok, calls := change(a.TotalTokens, b.TotalTokens), change(a.Calls, b.Calls)
	switch {
	case dp != 0:
		tc.Label = pick(dp > 0)
		tc.Why = []string{fmt.Sprintf("pass %.0f%% -> %.0f%%", a.PassRate(), b.PassRate())}
	case math.Abs(tok) > opts.Noise:
		tc.Label = pick(tok < 0)
		tc.Why = []string{fmt.Sprintf("tokens %+.1f%% (%s -> %s)", tok, num(a.TotalTokens), num(b.TotalTokens))}
	case math.Abs(calls) > opts.Noise:
		tc.Label = pick(calls < 0)
		tc.Why = []string{fmt.Sprintf("calls %+.1f%% (%s -> %s)", calls, num(a.Calls), num(b.Calls))}
	default:
		tc.Label = NoEffect
		tc.Why = []string{fmt.Sprintf("pass equal, tokens %+.1f%%, calls %+.1f%%, within %.0f%%", tok, calls, opts.Noise)}
	}
	return tc
}

func pick(better bool) string {
	if better {
		return Helped
	}
	return Hurt
}

func confounders(a, b *TaskSummary, expect []string) []string {
	switch {
	case a == nil:
		return []string{"only in B"}
	case b == nil:
		return []string{"only in A"}
	}
	var why []string
	differ := func(field, what, x, y string) {
		if x == "mixed" || y == "mixed" {
			why = append(why, what+" differs between runs of one side")
			return
		}
		if x != y && !slices.Contains(expect, field) {
			why = append(why, fmt.Sprintf("%s %s vs %s (pass --expect %s if that is the change under test)", what, x, y, field))
		}
	}
	if a.Version != b.Version {
		why = append(why, fmt.Sprintf("task version %s vs %s", version(a.Version), version(b.Version)))
	}
	if a.Runs != b.Runs {
		why = append(why, fmt.Sprintf("runs %d vs %d", a.Runs, b.Runs))
	}
	if a.Broken || b.Broken {
		why = append(why, "a run broke (setup or engine), so the agent was not measured")
	}
	differ(ExpectModel, "model", a.Model, b.Model)
	differ(ExpectPrompt, "system prompt", a.SystemHash, b.SystemHash)
	differ(ExpectTools, "tool table", a.ToolsHash, b.ToolsHash)
	return why
}

func version(v int) string {
	if v < 0 {
		return "mixed"
	}
	return fmt.Sprint(v)
}

// change is b's change from a in percent; 0 when both are 0.
func change(a, b float64) float64 {
	switch {
	case a == b:
		return 0
	case a == 0:
		return math.Inf(1)
	}
	return 100 * (b - a) / a
}

func (v *Verdict) summary(comparable int) string {
	var parts []string
	for _, l := range []string{Helped, Hurt, NoEffect, Confounded} {
		parts = append(parts, fmt.Sprintf("%d %s", v.Counts[l], l))
	}
	s := strings.Join(parts, ", ")
	if comparable == 0 {
		s += "; nothing comparable"
	} else {
		a, b := v.ComparableA, v.ComparableB
		s += fmt.Sprintf("; over %d comparable: pass %+.1f pts, calls %+.1f%%, tokens %+.1f%%", comparable,
			b.PassRate()-a.PassRate(), change(a.Calls, b.Calls), change(a.TotalTokens, b.TotalTokens))
	}
	if v.Pass {
		return s + "; PASS"
	}
	return s + "; FAIL"
}
