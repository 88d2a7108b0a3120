package retry

import (
	"context"
	"iter"
	"testing"

	"github.com/godwit/godwit/llm"
)

// streamOf yields n text deltas and a stop, the shape of a healthy answer.
func streamOf(n int) funcProvider {
	return funcProvider{name: "bench", stream: func(context.Context, llm.Request) iter.Seq2[llm.Event, error] {
		return func(yield func(llm.Event, error) bool) {
			for range n {
				if !yield(llm.Event{Type: llm.EventTextDelta, Text: "x"}, nil) {
					return
				}
			}
			yield(llm.Event{Type: llm.EventStop, StopReason: llm.StopEndTurn}, nil)
		}
	}}
}

func benchStream(b *testing.B, p llm.Provider) {
	ctx := b.Context()
	for b.Loop() {
		for _, err := range p.Stream(ctx, llm.Request{}) {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}

// The wrappers' cost on the happy path, against the bare provider.
func BenchmarkStream1000Events(b *testing.B) {
	p := streamOf(1000)
	b.Run("bare", func(b *testing.B) { benchStream(b, p) })
	b.Run("retry", func(b *testing.B) { benchStream(b, New(p, Options{})) })
	b.Run("fallback", func(b *testing.B) {
		benchStream(b, NewFallback([]Named{{Provider: p}, {Provider: p}}, FallbackOptions{}))
	})
}
