package window

import (
	"context"
	"errors"
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
