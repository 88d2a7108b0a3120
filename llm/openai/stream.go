package openai

import (
	"context"
	"iter"
	"log/slog"

	"github.com/godwit/godwit/llm"
	"github.com/openai/openai-go/v3/packages/ssestream"
)

// decoder turns one API's stream chunks into llm events: chatStream for
// Chat Completions, respStream for Responses.
type decoder[T any] interface {
	// add handles one chunk; false means the consumer stopped listening.
	add(chunk *T, out emit) bool
	// failure is an error the stream reported in band (Responses'
	// "error" and "response.failed"), nil while there is none.
	failure() error
	// end closes what is open once the stream is over; false means the
	// stream was cut before its terminal chunk.
	end(out emit) bool
	// done logs how a stream that ended well ended.
	done(log *slog.Logger, provider, model string)
}

// stream is the skeleton both APIs share: the provider's configuration
// error (setup), the request built and sent by open when the sequence
// is ranged over, each chunk through a decoder of its own (newDec),
// then the stream's error, the caller's, or a cut stream (retryable).
// name labels errors and logs.
func stream[T any](ctx context.Context, name string, setup error, log *slog.Logger, model string,
	open func() (*ssestream.Stream[T], error), newDec func() decoder[T]) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		if setup != nil {
			yield(llm.Event{}, setup)
			return
		}
		st, err := open()
		if err != nil {
			yield(llm.Event{}, err)
			return
		}
		defer st.Close()
		dec := newDec()
		out := func(ev llm.Event) bool { return yield(ev, nil) }
		for st.Next() {
			chunk := st.Current()
			if !dec.add(&chunk, out) {
				return
			}
			if err := dec.failure(); err != nil {
				yield(llm.Event{}, err)
				return
			}
		}
		if err := st.Err(); err != nil {
			yield(llm.Event{}, classify(ctx, name, err))
			return
		}
		if ctx.Err() != nil {
			yield(llm.Event{}, ctx.Err())
			return
		}
		if !dec.end(out) {
			yield(llm.Event{}, &llm.Error{Kind: llm.KindRetryable, Provider: name, Message: errCut})
			return
		}
		dec.done(log, name, model)
	}
}
