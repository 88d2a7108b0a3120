package window

import (
	"context"
	"errors"
	"fmt"

	"github.com/godwit/godwit/llm"
)

// summaryInput bounds what is sent to a summary model: the head and tail
// of a long output carry what matters, and the cheap model's window may
// be small.
const summaryInput = 24 << 10

// ModelSummarizer returns an Options.Summarize that asks model on p for a
// short summary of a tool output, keeping paths, errors and numbers.
func ModelSummarizer(p llm.Provider, model string) func(ctx context.Context, call llm.ToolCall, output string) (string, error) {
	return func(ctx context.Context, call llm.ToolCall, output string) (string, error) {
		if len(output) > summaryInput {
			output = output[:summaryInput/2] + "\n[…]\n" + output[len(output)-summaryInput/2:]
		}
		req := llm.Request{
			Model:           model,
			MaxOutputTokens: 400,
			System:          "You summarise a coding agent's tool output for its own later use. Keep file paths, line numbers, error messages, test names, counts and exit codes exactly. At most 12 lines. No preamble.",
			Messages:        []llm.Message{llm.UserText(fmt.Sprintf("Output of %s:\n\n%s", describe(call), output))},
		}
		resp, err := llm.Collect(p.Stream(ctx, req))
		if err != nil {
			return "", fmt.Errorf("window: summary model: %w", err)
		}
		if resp.Message.Text() == "" {
			return "", errors.New("window: the summary model answered nothing")
		}
		return resp.Message.Text(), nil
	}
}
