package openai

import (
	"context"
	"iter"
	"log/slog"
	"time"

	"github.com/godwit/godwit/llm"
)

// chatProvider speaks Chat Completions. It holds no mutable state, so one
// value serves concurrent Streams.
type chatProvider struct {
	name         string
	client       client
	log          *slog.Logger
	err          error // from Options.check
	sendCacheKey bool
	isOpenAI     bool
	openRouter   bool
}

// NewChat returns a provider for POST {BaseURL}/chat/completions, streamed
// with stream_options.include_usage. It works with OpenAI and with the
// compatible servers; see Options for what differs between them.
func NewChat(opts Options) llm.Provider {
	return newChat(opts, time.Now)
}

func newChat(opts Options, now func() time.Time) *chatProvider {
	return &chatProvider{
		name:         opts.name(),
		client:       newClient(opts, now),
		log:          opts.logger(),
		err:          opts.check(),
		sendCacheKey: opts.SendCacheKey || opts.isOpenAI(),
		isOpenAI:     opts.isOpenAI(),
		openRouter:   opts.isOpenRouter(),
	}
}

func (p *chatProvider) Name() string { return p.name }

// Stream implements llm.Provider. The HTTP request is sent when the
// sequence is first ranged over.
func (p *chatProvider) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	build := func() ([]byte, error) { return p.body(req) }
	return stream(ctx, p.client, p.err, p.log, req.Model, "/chat/completions", build, &chatStream{})
}
