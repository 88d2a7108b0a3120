package openai

import (
	"context"
	"iter"
	"log/slog"
	"time"

	"github.com/godwit/godwit/llm"
	"github.com/openai/openai-go/v3/packages/ssestream"
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
	open := func() (*ssestream.Stream[responses.ResponseStreamEventUnion], error) {
		params, err := p.params(req)
		if err != nil {
			return nil, err
		}
		return p.svc.NewStreaming(ctx, params), nil
	}
	return stream(ctx, p.name, p.err, p.log, req.Model, open, func() decoder[responses.ResponseStreamEventUnion] {
		return &respStream{provider: p.name}
	})
}
