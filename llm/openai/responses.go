package openai

import (
	"context"
	"iter"
	"log/slog"
	"time"

	"github.com/godwit/godwit/llm"
)

// responsesProvider speaks the Responses API. It holds no mutable state,
// so one value serves concurrent Streams.
type responsesProvider struct {
	name   string
	client client
	log    *slog.Logger
	err    error // from Options.check
}

// NewResponses returns a provider for POST {BaseURL}/responses, streamed,
// with store:false: reasoning travels as encrypted content inside the
// requests rather than being kept on the server.
func NewResponses(opts Options) llm.Provider {
	return newResponses(opts, time.Now)
}

func newResponses(opts Options, now func() time.Time) *responsesProvider {
	return &responsesProvider{
		name:   opts.name(),
		client: newClient(opts, now),
		err:    opts.check(),
		log:    opts.logger(),
	}
}

func (p *responsesProvider) Name() string { return p.name }

// Stream implements llm.Provider. The HTTP request is sent when the
// sequence is first ranged over.
func (p *responsesProvider) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	build := func() ([]byte, error) { return p.body(req) }
	return stream(ctx, p.client, p.err, p.log, req.Model, "/responses", build, &respStream{provider: p.name})
}
