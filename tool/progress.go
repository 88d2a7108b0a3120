package tool

import (
	"context"

	"github.com/godwit/godwit/llm"
)

// Progress is how far a running call has come, as the tool tells it (an
// MCP server's notifications/progress): Progress grows as work is done;
// Total is 0 when unknown.
type Progress struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
	// Output is the newest lines a running command printed (shell_exec),
	// to show as it runs; the call's result still holds its output.
	Output string `json:"output,omitempty"`
}

// ProgressObserver is an Observer that also hears a running call's
// progress. The runner calls it from the tool's goroutines, concurrently
// for calls that run in parallel; it must not block.
type ProgressObserver interface {
	Progress(call llm.ToolCall, p Progress)
}

type progressKey struct{}

// WithProgress returns ctx carrying report, which ReportProgress calls.
func WithProgress(ctx context.Context, report func(Progress)) context.Context {
	return context.WithValue(ctx, progressKey{}, report)
}

// Reports reports whether anyone hears ReportProgress in ctx.
func Reports(ctx context.Context) bool {
	report, ok := ctx.Value(progressKey{}).(func(Progress))
	return ok && report != nil
}

// ReportProgress tells whoever runs the call how far it has come; it does
// nothing when nobody listens.
func ReportProgress(ctx context.Context, p Progress) {
	if report, ok := ctx.Value(progressKey{}).(func(Progress)); ok && report != nil {
		report(p)
	}
}
