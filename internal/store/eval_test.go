package store

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestEvalResults(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	start := time.UnixMilli(1700000000000).UTC()
	for i, r := range []EvalResult{
		{Suite: "basic", Name: "go-add", Model: "fake/scripted", Passed: true, Score: 1, InputTokens: 900, OutputTokens: 40, Cost: 0.5, Duration: 2 * time.Second, Details: `{"calls":5}`, StartedAt: start},
		{Suite: "long-session", Name: "injection", Passed: false},
		{Suite: "basic", Name: "js-sum", Passed: false, StartedAt: start},
	} {
		if _, err := s.RecordEvalResult(ctx, r); err != nil {
			t.Fatalf("result %d: %v", i, err)
		}
	}
	got, err := s.EvalResults(ctx, "basic", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "js-sum" || got[1].Name != "go-add" {
		t.Fatalf("newest first, one suite: %+v", got)
	}
	g := got[1]
	if !g.Passed || g.Model != "fake/scripted" || g.InputTokens != 900 || g.Duration != 2*time.Second || g.Details != `{"calls":5}` || !g.StartedAt.Equal(start) {
		t.Errorf("round trip: %+v", g)
	}
	if all, _ := s.EvalResults(ctx, "", 1); len(all) != 1 || all[0].Name != "js-sum" {
		t.Errorf("limit 1 over all suites: %+v", all)
	}
	if _, err := s.RecordEvalResult(ctx, EvalResult{Name: "x"}); err == nil || !strings.Contains(err.Error(), "Suite and Name are required") {
		t.Errorf("missing suite: %v", err)
	}
}

func TestEvalVerdicts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	for _, v := range []EvalVerdict{
		{A: "base.json", B: "new.json", Why: "shorter tools", Passed: true, Summary: "1 helped", Details: `{"pass":true}`},
		{A: "new.json", B: "newer.json", Passed: false},
	} {
		if _, err := s.RecordEvalVerdict(ctx, v); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.EvalVerdicts(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].B != "newer.json" || got[0].Passed || got[1].Why != "shorter tools" || !got[1].Passed || got[1].Details != `{"pass":true}` || got[1].CreatedAt.IsZero() {
		t.Errorf("verdicts = %+v", got)
	}
	if _, err := s.RecordEvalVerdict(ctx, EvalVerdict{A: "a"}); err == nil || !strings.Contains(err.Error(), "say what was compared") {
		t.Errorf("missing B: %v", err)
	}
}
