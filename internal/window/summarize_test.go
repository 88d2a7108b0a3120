package window

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/fake"
)

func TestSummaryUsesTheModelAndFallsBack(t *testing.T) {
	call := llm.ToolCall{ID: "c", Name: "shell_exec", Args: []byte(`{"command":"go test ./..."}`)}
	raw := strings.Repeat("ok line\n", 200) + "--- FAIL: TestX\nx_test.go:7: boom\n"
	p := fake.New(fake.Step{Text: "go test: TestX failed at x_test.go:7 (boom); 200 lines passed."}, fake.Step{Err: errors.New("down")})
	w := New(Options{Summarize: ModelSummarizer(p, "local", "cheap", func(u llm.Usage) float64 { return 0.5 })})
	var calls []SummaryCall
	got := w.summary(context.Background(), call, raw, "p9", &calls)
	if !strings.Contains(got, "by the summary model") || !strings.Contains(got, "x_test.go:7 (boom)") || !strings.Contains(got, `recall("p9")`) {
		t.Errorf("model summary = %q", got)
	}
	if req := p.Requests()[0]; req.Model != "cheap" || !strings.Contains(req.Messages[0].Text(), "x_test.go:7") {
		t.Errorf("summary request = %+v", req)
	}
	got = w.summary(context.Background(), call, raw, "p9", &calls)
	if strings.Contains(got, "by the summary model") || !strings.Contains(got, "x_test.go:7: boom") {
		t.Errorf("fallback summary = %q", got)
	}
	// Both calls are kept for the record, the failed one with its error.
	if len(calls) != 2 || calls[0].Model != "cheap" || calls[0].Provider != "local" || calls[0].Cost != 0.5 ||
		calls[0].Err != nil || calls[1].Err == nil || calls[1].Text != "" {
		t.Errorf("summary calls = %+v", calls)
	}
}

// TestErrorLines: the error lines of an output are those the pattern
// the summaries used to run on each line finds.
func TestErrorLines(t *testing.T) {
	re := regexp.MustCompile(`(?i)(error|fail|panic|exception|undefined|cannot|not found|denied|traceback|fatal)`)
	raw := strings.Join([]string{
		"ok  \tgithub.com/x/y\t0.01s",
		"--- FAIL: TestAdd (0.00s)",
		"    add_test.go:7: Add(1, 2) = -1, want 3",
		"panic: runtime error: index out of range [recovered]",
		"",
		"Traceback (most recent call last):",
		"a line about errors and failures both",
		"PERMISSION DENIED",
		"nothing here",
		"open x: Not Found",
		"fatal",
	}, "\n")
	for _, max := range []int{0, 1, 3} {
		var want []int
		for i, l := range strings.Split(raw, "\n") {
			if re.MatchString(l) && (max == 0 || len(want) < max) {
				want = append(want, i)
			}
		}
		if got := errorLines(raw, max); !slices.Equal(got, want) {
			t.Errorf("errorLines(max %d) = %v, want %v", max, got, want)
		}
	}
	if got := errorLines("all fine\nreally", 0); got != nil {
		t.Errorf("errorLines(no errors) = %v", got)
	}
}
