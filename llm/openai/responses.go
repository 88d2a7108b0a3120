package openai

import (
	"context"
	"iter"
	"log/slog"
	"time"

	"github.com/godwit/godwit/llm"
	"github.com/openai/openai-go/v3/responses"
)

// responsesProvider speaks the Responses API. It holds no mutable state,
// so one value serves concurrent Streams.
type responsesProvider struct {
	name string
	svc  responses.ResponseService
	log  *slog.Logger
	err  error // from Options.check
}

// NewResponses returns a provider for POST {BaseURL}/responses, streamed,
// with store:false: reasoning travels as encrypted content inside the
// requests rather than being kept on the server.
func NewResponses(opts Options) llm.Provider {
	return newResponses(opts, time.Now)
}

func newResponses(opts Options, now func() time.Time) *responsesProvider {
	return &responsesProvider{
		name: opts.name(),
		svc:  responses.NewResponseService(sdkOptions(opts, now)...),
		err:  opts.check(),
		log:  opts.logger(),
	}
}

func (p *responsesProvider) Name() string { return p.name }

// Stream implements llm.Provider. The HTTP request is sent when the
// sequence is first ranged over.
func (p *responsesProvider) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		if p.err != nil {
			yield(llm.Event{}, p.err)
			return
		}
		params, err := p.params(req)
		if err != nil {
			yield(llm.Event{}, err)
			return
		}
		stream := p.svc.NewStreaming(ctx, params)
		defer stream.Close()
		out := func(ev llm.Event) bool { return yield(ev, nil) }
		s := respStream{provider: p.name}
		for stream.Next() {
			ev := stream.Current()
			if !s.add(&ev, out) {
				return
			}
			if s.failed != nil {
				yield(llm.Event{}, s.failed)
				return
			}
		}
		if err := stream.Err(); err != nil {
			yield(llm.Event{}, classify(ctx, p.name, err))
			return
		}
		if ctx.Err() != nil {
			yield(llm.Event{}, ctx.Err())
			return
		}
		if !s.end(out) {
			yield(llm.Event{}, &llm.Error{Kind: llm.KindRetryable, Provider: p.name, Message: errCut})
			return
		}
		p.log.Debug("openai: responses stream done", "provider", p.name, "model", req.Model, "stop", s.stop, "tool_calls", len(s.order))
	}
}
