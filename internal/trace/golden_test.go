package trace_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/goldentest"
	"github.com/godwit/godwit/internal/trace"
)

// golden compares got with testdata/name (goldentest's -update rewrites
// it). The session id is random, so it is replaced by SESSION first.
func golden(t *testing.T, name, sessionID string, got []byte) {
	t.Helper()
	goldentest.Check(t, name, bytes.ReplaceAll(got, []byte(sessionID), []byte("SESSION")))
}

func TestAnalyzeGolden(t *testing.T) {
	_, tr := loadRecorded(t)
	rep := trace.Analyze(tr)
	var text, js bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	golden(t, "analyze.golden", tr.Session.ID, text.Bytes())
	golden(t, "analyze.json.golden", tr.Session.ID, js.Bytes())
}

func TestTranscriptGolden(t *testing.T) {
	_, tr := loadRecorded(t)
	var b bytes.Buffer
	if err := trace.WriteTranscript(&b, tr); err != nil {
		t.Fatal(err)
	}
	golden(t, "transcript.golden", tr.Session.ID, b.Bytes())
}

// The recorded script's facts, stated once more by hand so that a wrong
// golden file cannot pass unnoticed.
func TestAnalyzeFindsWhatTheScriptDid(t *testing.T) {
	_, tr := loadRecorded(t)
	r := trace.Analyze(tr)
	ref := func(turn, step int) trace.StepRef { return trace.StepRef{Turn: turn, Step: step} }
	checks := []struct {
		name      string
		got, want any
	}{
		{"turns", r.Turns, trace.TurnCounts{Total: 2, Done: 2}},
		{"model calls", r.ModelCalls, 15},
		{"tool calls", r.ToolCalls, 15},
		{"parallel steps", r.ParallelSteps, 3},
		{"max parallel", r.MaxParallel, 2},
		{"max parallel at", *r.MaxParallelAt, ref(1, 1)},
		{"re-reads", r.ReReads, []trace.FileRef{{Path: "calc.go", At: ref(1, 4), Since: ref(1, 2)}}},
		{"reads after write", r.ReadsAfterWrite, []trace.FileRef{{Path: "calc.go", At: ref(1, 7), Since: ref(1, 5)}}},
		{"shell runs", r.Shell.Runs, 6},
		{"failed runs", r.Shell.Failed, 2},
		{"stderr ok", len(r.Shell.StderrOK), 1},
		{"repeated", r.Shell.Repeated, []trace.Repeated{{Command: "go test ./...", Runs: 4, Failed: 2}}},
		{"test runs", r.Tests, trace.TestStats{Runs: 5, Passed: 3, Failed: 2, FirstPass: &trace.StepRef{Turn: 1, Step: 9}, AfterFirstPass: 2}},
		{"explore", r.Phases.Explore.Calls, 4},
		{"to green", r.Phases.ToGreen.Calls, 5},
		{"after green", r.Phases.AfterGreen.Calls, 6},
		{"verify", r.Verify.Runs, 1},
		{"nudges", r.Nudges, map[string]int{"unverified_write": 1}},
	}
	for _, c := range checks {
		if !equalJSON(c.got, c.want) {
			t.Errorf("%s = %+v, want %+v", c.name, c.got, c.want)
		}
	}
	if r.Cost.Total <= 0 || len(r.Cost.ByModel) != 1 || r.Cost.ByModel[0].Model != "fake/scripted-1" || r.Cost.Unpriced != 0 {
		t.Errorf("cost = %+v", r.Cost)
	}
	if !strings.Contains(r.Shell.StderrOK[0].Line, "warning:") {
		t.Errorf("stderr line = %q", r.Shell.StderrOK[0].Line)
	}
}

// The calls of a step run at once; the report must not depend on the
// order they are listed in (LoadUnordered lists them as they finished).
func TestAnalyzeIgnoresOrderWithinAStep(t *testing.T) {
	_, tr := loadRecorded(t)
	want := trace.Analyze(tr)
	calls := tr.ToolCalls
	for i := 0; i < len(calls); {
		j := i
		for j < len(calls) && calls[j].TurnID == calls[i].TurnID && calls[j].Step == calls[i].Step {
			j++
		}
		slices.Reverse(calls[i:j])
		i = j
	}
	if got := trace.Analyze(tr); !equalJSON(got, want) {
		t.Errorf("reversing each step's calls changed the report:\n%+v\nwant\n%+v", got, want)
	}
}
