package eval

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Bar is a gate on a comparison, written metric<op>value, e.g.
// "calls<=+5%" or "pass>=0".
//
// For a metric (pass, calls, tokens, prompt, cost, resets, time) the value
// bounds the change from A to B over the comparable tasks: with % the
// change in percent of A, without it the change in the metric's unit
// (pass in percentage points, time in milliseconds). calls, tokens,
// cost, resets and time are per-run means summed over the tasks; prompt
// is prompt tokens per call. For a label count (helped, hurt, no_effect,
// confounded) the value bounds the number of tasks with that label.
type Bar struct {
	Text     string
	Metric   string
	Op       string
	Value    float64
	Relative bool
}

// BarResult is a bar checked.
type BarResult struct {
	Bar string `json:"bar"`
	// Actual is the measured change (or count) the bar was held against.
	Actual float64 `json:"actual"`
	Pass   bool    `json:"pass"`
}

var (
	barRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*([a-z_]+)\s*(<=|>=|<|>)\s*([+-]?\d+(?:\.\d+)?)\s*(%?)\s*$`)
	})
	barMetrics = map[string]func(TaskSummary) float64{
		"pass":   TaskSummary.PassRate,
		"calls":  func(s TaskSummary) float64 { return s.Calls },
		"tokens": func(s TaskSummary) float64 { return s.TotalTokens },
		"prompt": TaskSummary.PromptPerCall,
		"cost":   func(s TaskSummary) float64 { return s.Cost },
		"resets": func(s TaskSummary) float64 { return s.Resets },
		"time":   func(s TaskSummary) float64 { return s.DurationMS },
	}
	barCounts = map[string]string{"helped": Helped, "hurt": Hurt, "no_effect": NoEffect, "confounded": Confounded}
)

// DefaultBars apply when none are given: B must pass at least as often.
func DefaultBars() []Bar {
	b, _ := ParseBar("pass>=0")
	return []Bar{b}
}

// ParseBar reads one bar.
func ParseBar(s string) (Bar, error) {
	m := barRe().FindStringSubmatch(s)
	if m == nil {
		return Bar{}, fmt.Errorf("eval: bar %q: write metric, <= >= < or >, and a value, e.g. \"calls<=+5%%\" or \"pass>=0\"", s)
	}
	b := Bar{Text: strings.TrimSpace(s), Metric: m[1], Op: m[2], Relative: m[4] == "%"}
	b.Value, _ = strconv.ParseFloat(m[3], 64)
	_, isMetric := barMetrics[b.Metric]
	_, isCount := barCounts[b.Metric]
	switch {
	case !isMetric && !isCount:
		return Bar{}, fmt.Errorf("eval: bar %q: unknown metric %q; use pass, calls, tokens, prompt, cost, resets, time, or a count: helped, hurt, no_effect, confounded", s, b.Metric)
	case isCount && b.Relative:
		return Bar{}, fmt.Errorf("eval: bar %q: %s counts tasks; give a number of tasks, not a percentage", s, b.Metric)
	}
	return b, nil
}

// ParseBars reads several bars.
func ParseBars(ss []string) ([]Bar, error) {
	var out []Bar
	for _, s := range ss {
		b, err := ParseBar(s)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// Eval holds the bar against a verdict's comparable totals and counts.
func (b Bar) Eval(v *Verdict) BarResult {
	var actual float64
	if label, ok := barCounts[b.Metric]; ok {
		actual = float64(v.Counts[label])
	} else {
		f := barMetrics[b.Metric]
		x, y := f(v.ComparableA), f(v.ComparableB)
		actual = y - x
		if b.Relative {
			actual = change(x, y)
		}
	}
	if math.IsInf(actual, 0) { // a change from zero; JSON has no infinity
		actual = math.Copysign(1e9, actual)
	}
	var pass bool
	switch b.Op {
	case "<=":
		pass = actual <= b.Value
	case ">=":
		pass = actual >= b.Value
	case "<":
		pass = actual < b.Value
	case ">":
		pass = actual > b.Value
	}
	return BarResult{Bar: b.Text, Actual: actual, Pass: pass}
}
