package eval

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// runs builds n runs of task, the first passed of them passing, each with
// calls model calls and tokens input tokens; mods adjust every run.
func runs(task string, n, passed, calls int, tokens int64, mods ...func(*RunResult)) []RunResult {
	var out []RunResult
	for i := 1; i <= n; i++ {
		r := RunResult{Task: task, TaskVersion: 1, Run: i, Model: "fake/scripted", SystemHash: "sys1", ToolsHash: "tools1",
			Pass: i <= passed, Calls: calls, InputTokens: tokens, PromptTokens: tokens, DurationMS: 100}
		for _, m := range mods {
			m(&r)
		}
		out = append(out, r)
	}
	return out
}

func results(rs ...[]RunResult) *Results {
	r := &Results{Format: FormatVersion, Godwit: "v1", Model: "fake/scripted", Scripted: true, RunsPerTask: 2}
	for _, x := range rs {
		r.Runs = append(r.Runs, x...)
	}
	r.SystemHash, r.ToolsHash = fingerprints(r.Runs)
	return r
}

func TestCompareLabels(t *testing.T) {
	t.Parallel()
	a := results(
		runs("s/pass-up", 2, 1, 10, 1000),
		runs("s/pass-down", 2, 2, 10, 1000),
		runs("s/cheaper", 2, 2, 10, 1000),
		runs("s/dearer", 2, 2, 10, 1000),
		runs("s/fewer-calls", 2, 2, 10, 1000),
		runs("s/same", 2, 2, 10, 1000),
		runs("s/model", 2, 2, 10, 1000),
		runs("s/version", 2, 2, 10, 1000),
		runs("s/run-count", 2, 2, 10, 1000),
		runs("s/prompt", 2, 2, 10, 1000),
		runs("s/broken", 2, 2, 10, 1000),
		runs("s/only-a", 2, 2, 10, 1000),
	)
	b := results(
		runs("s/pass-up", 2, 2, 10, 1000),
		runs("s/pass-down", 2, 1, 8, 500), // cheaper, but fails more: hurt
		runs("s/cheaper", 2, 2, 10, 800),
		runs("s/dearer", 2, 2, 10, 1200),
		runs("s/fewer-calls", 2, 2, 8, 1020), // tokens within noise, calls not
		runs("s/same", 2, 2, 10, 1030),
		runs("s/model", 2, 2, 10, 1000, func(r *RunResult) { r.Model = "deepseek/deepseek-chat" }),
		runs("s/version", 2, 2, 10, 1000, func(r *RunResult) { r.TaskVersion = 2 }),
		runs("s/run-count", 3, 3, 10, 1000),
		runs("s/prompt", 2, 2, 10, 1000, func(r *RunResult) { r.SystemHash = "sys2" }),
		runs("s/broken", 2, 1, 10, 1000, func(r *RunResult) { r.Broken = r.Run == 2 }),
		runs("s/only-b", 2, 2, 10, 1000),
	)
	v := Compare(a, b, CompareOptions{NameA: "a.json", NameB: "b.json", Why: "test"}, time.Unix(0, 0))
	want := map[string][2]string{
		"s/pass-up":     {Helped, "pass 50% -> 100%"},
		"s/pass-down":   {Hurt, "pass 100% -> 50%"},
		"s/cheaper":     {Helped, "tokens -20.0%"},
		"s/dearer":      {Hurt, "tokens +20.0%"},
		"s/fewer-calls": {Helped, "calls -20.0%"},
		"s/same":        {NoEffect, "within 5%"},
		"s/model":       {Confounded, "model fake/scripted vs deepseek/deepseek-chat (pass --expect model"},
		"s/version":     {Confounded, "task version 1 vs 2"},
		"s/run-count":   {Confounded, "runs 2 vs 3"},
		"s/prompt":      {Confounded, "system prompt sys1 vs sys2 (pass --expect prompt"},
		"s/broken":      {Confounded, "a run broke"},
		"s/only-a":      {Confounded, "only in A"},
		"s/only-b":      {Confounded, "only in B"},
	}
	if len(v.Tasks) != len(want) {
		t.Fatalf("%d tasks compared, want %d", len(v.Tasks), len(want))
	}
	for _, tc := range v.Tasks {
		w := want[tc.Task]
		if tc.Label != w[0] || !strings.Contains(strings.Join(tc.Why, "; "), w[1]) {
			t.Errorf("%s: %s (%v), want %s (%s)", tc.Task, tc.Label, tc.Why, w[0], w[1])
		}
	}
	if v.Counts[Helped] != 3 || v.Counts[Hurt] != 2 || v.Counts[NoEffect] != 1 || v.Counts[Confounded] != 7 {
		t.Errorf("counts = %v", v.Counts)
	}
	// The default bar (pass>=0) sees only the comparable tasks: pass-up
	// and pass-down cancel out.
	if !v.Pass || len(v.Bars) != 1 || v.Bars[0].Actual != 0 {
		t.Errorf("verdict %v, bars %+v", v.Pass, v.Bars)
	}
	var out bytes.Buffer
	if err := WriteComparison(&out, v); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"s/dearer", "hurt", "1,000 -> 1,200", "bar pass>=0: +0 ok", "why: test", "verdict: 3 helped, 2 hurt, 1 no observed effect, 7 confounded"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("report lacks %q:\n%s", w, out.String())
		}
	}
}

func TestCompareExpect(t *testing.T) {
	t.Parallel()
	a := results(runs("s/t", 1, 1, 10, 1000))
	b := results(runs("s/t", 1, 1, 10, 700, func(r *RunResult) { r.SystemHash, r.Model = "sys2", "other/model" }))
	if v := Compare(a, b, CompareOptions{}, time.Time{}); v.Tasks[0].Label != Confounded || v.Pass {
		t.Errorf("without --expect: %s, pass %v (%s)", v.Tasks[0].Label, v.Pass, v.Summary)
	}
	v := Compare(a, b, CompareOptions{Expect: []string{ExpectPrompt, ExpectModel}}, time.Time{})
	if v.Tasks[0].Label != Helped || !v.Pass {
		t.Errorf("with --expect prompt,model: %s, pass %v", v.Tasks[0].Label, v.Pass)
	}
	if !strings.Contains(Compare(a, b, CompareOptions{}, time.Time{}).Summary, "nothing comparable; FAIL") {
		t.Error("a verdict over nothing comparable must say so and fail")
	}
	mixed := results(runs("s/t", 2, 2, 10, 1000, func(r *RunResult) { r.SystemHash = r.SystemHash + string(rune('0'+r.Run)) }))
	if v := Compare(mixed, mixed, CompareOptions{Expect: []string{ExpectPrompt}}, time.Time{}); v.Tasks[0].Label != Confounded {
		t.Errorf("prompt differing between runs of one side: %s", v.Tasks[0].Label)
	}
}

func TestBars(t *testing.T) {
	t.Parallel()
	a := results(runs("s/x", 2, 2, 10, 1000), runs("s/y", 2, 1, 20, 3000))
	b := results(runs("s/x", 2, 2, 11, 900), runs("s/y", 2, 2, 22, 2900))
	// Comparable totals: calls 30 -> 33 (+10%), tokens 4000 -> 3800 (-5%),
	// pass 75% -> 100% (+25 points); y helped, x helped (tokens -10%).
	cases := []struct {
		bar    string
		actual float64
		pass   bool
	}{
		{"calls<=+5%", 10, false},
		{"calls<=+10%", 10, true},
		{"calls<+10%", 10, false},
		{"calls<=3", 3, true},
		{"tokens<=-5%", -5, true},
		{"tokens < -5%", -5, false},
		{"pass>=0", 25, true},
		{"pass>30", 25, false},
		{"hurt<=0", 0, true},
		{"helped>=2", 2, true},
		{"confounded<=0", 0, true},
		{"no_effect>0", 0, false},
	}
	for _, c := range cases {
		bar, err := ParseBar(c.bar)
		if err != nil {
			t.Fatalf("%s: %v", c.bar, err)
		}
		v := Compare(a, b, CompareOptions{Bars: []Bar{bar}}, time.Time{})
		r := v.Bars[0]
		if r.Pass != c.pass || (r.Actual-c.actual) > 1e-9 || (c.actual-r.Actual) > 1e-9 {
			t.Errorf("%s: actual %v pass %v, want %v %v", c.bar, r.Actual, r.Pass, c.actual, c.pass)
		}
		if v.Pass != c.pass {
			t.Errorf("%s: verdict %v", c.bar, v.Pass)
		}
	}
	// prompt is tokens per call: 4000/30 -> 3800/33.
	bar, _ := ParseBar("prompt<=-10%")
	r := Compare(a, b, CompareOptions{Bars: []Bar{bar}}, time.Time{}).Bars[0]
	if want := 100 * ((3800.0 / 33) - (4000.0 / 30)) / (4000.0 / 30); r.Actual-want > 1e-9 || want-r.Actual > 1e-9 || !r.Pass {
		t.Errorf("prompt: %+v, want actual %v", r, want)
	}
	for _, bad := range []string{"calls", "calls=5", "speed<=5", "hurt<=5%", "pass>=x", ""} {
		if _, err := ParseBar(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if _, err := ParseBar("speed<=5"); err == nil || !strings.Contains(err.Error(), "use pass, calls, tokens") {
		t.Errorf("unknown metric error: %v", err)
	}
}

func TestBarFromZero(t *testing.T) {
	t.Parallel()
	a := results(runs("s/x", 1, 1, 10, 1000))
	b := results(runs("s/x", 1, 1, 10, 1000, func(r *RunResult) { r.Resets = 2 }))
	bar, _ := ParseBar("resets<=+50%")
	v := Compare(a, b, CompareOptions{Bars: []Bar{bar}}, time.Time{})
	if v.Bars[0].Pass || v.Bars[0].Actual != 1e9 {
		t.Errorf("resets 0 -> 2 against +50%%: %+v", v.Bars[0])
	}
}
