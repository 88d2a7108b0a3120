package openai

import (
	"context"
	"iter"
	"log/slog"
	"time"

	"github.com/godwit/godwit/llm"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
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
	return func(yield func(llm.Event, error) bool) {
		if p.err != nil {
			yield(llm.Event{}, p.err)
			return
		}
		body, err := p.body(req)
		if err != nil {
			yield(llm.Event{}, err)
			return
		}
		// The SDK sends body in place of its own encoding of the (empty)
		// params; it still adds "stream":true.
		stream := p.svc.NewStreaming(ctx, openai.ChatCompletionNewParams{}, option.WithRequestBody("application/json", body))
		defer stream.Close()
		out := func(ev llm.Event) bool { return yield(ev, nil) }
		var s chatStream
		for stream.Next() {
			chunk := stream.Current()
			if !s.add(&chunk, out) {
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
		if s.detailsError != nil {
			p.log.Warn("openai: reasoning_details not understood; the next request may lose the model's reasoning", "provider", p.name, "err", s.detailsError)
		}
		p.log.Debug("openai: chat stream done", "provider", p.name, "model", req.Model, "finish", s.finish, "tool_calls", len(s.calls))
	}
}
