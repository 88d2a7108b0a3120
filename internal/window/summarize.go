package window

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/godwit/godwit/llm"
)

// summaryInput bounds what is sent to a summary model: the head and tail
// of a long output carry what matters, and the cheap model's window may
// be small.
const summaryInput = 24 << 10

// SummaryCall is one call of the summary model, for the record: the
// engine stores it with the turn's model calls and adds its cost to the
// turn's.
type SummaryCall struct {
	Provider, Model string
	Started         time.Time
	Latency         time.Duration
	Usage           llm.Usage
	Cost            float64
	// Text is the summary; Err why there is none.
	Text string
	Err  error
}

// ModelSummarizer returns an Options.Summarize that asks model on p (named
// provider) for a short summary of a tool output, keeping paths, errors
// and numbers. cost prices its usage (nil: free).
func ModelSummarizer(p llm.Provider, provider, model string, cost func(llm.Usage) float64) func(ctx context.Context, call llm.ToolCall, output string) SummaryCall {
	return func(ctx context.Context, call llm.ToolCall, output string) SummaryCall {
		if len(output) > summaryInput {
			output = output[:summaryInput/2] + "\n[…]\n" + output[len(output)-summaryInput/2:]
		}
		req := llm.Request{
			Model:           model,
			MaxOutputTokens: 400,
			System:          "You summarise a coding agent's tool output for its own later use. Keep file paths, line numbers, error messages, test names, counts and exit codes exactly. At most 12 lines. No preamble.",
			Messages:        []llm.Message{llm.UserText(fmt.Sprintf("Output of %s:\n\n%s", describe(call), output))},
		}
		sc := SummaryCall{Provider: provider, Model: model, Started: time.Now()}
		resp, err := llm.Collect(p.Stream(ctx, req))
		sc.Latency, sc.Usage = time.Since(sc.Started), resp.Usage
		if cost != nil {
			sc.Cost = cost(resp.Usage)
		}
		switch {
		case err != nil:
			sc.Err = fmt.Errorf("window: summary model: %w", err)
		case resp.Message.Text() == "":
			sc.Err = errors.New("window: the summary model answered nothing")
		default:
			sc.Text = resp.Message.Text()
		}
		return sc
	}
}
