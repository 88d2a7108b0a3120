package openai

import (
	"context"
	"iter"
	"log/slog"
	"time"

	"github.com/godwit/godwit/llm"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
)

// chatProvider speaks Chat Completions. It holds no mutable state, so one
// value serves concurrent Streams.
type chatProvider struct {
	name         string
	svc          openai.ChatCompletionService
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
		svc:          openai.NewChatCompletionService(sdkOptions(opts, now)...),
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
	open := func() (*ssestream.Stream[openai.ChatCompletionChunk], error) {
		body, err := p.body(req)
		if err != nil {
			return nil, err
		}
		// The SDK sends body in place of its own encoding of the (empty)
		// params; it still adds "stream":true.
		return p.svc.NewStreaming(ctx, openai.ChatCompletionNewParams{}, option.WithRequestBody("application/json", body)), nil
	}
	return stream(ctx, p.name, p.err, p.log, req.Model, open, func() decoder[openai.ChatCompletionChunk] { return &chatStream{} })
}
