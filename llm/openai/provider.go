package openai

import (
	"context"
	"iter"
	"log/slog"
	"time"

	"github.com/godwit/godwit/llm"
)

// provider speaks Chat Completions or, with responses set, the Responses
// API. It holds no mutable state, so one value serves concurrent Streams.
type provider struct {
	name         string
	client       client
	log          *slog.Logger
	err          error // from Options.check
	responses    bool
	sendCacheKey bool // Chat Completions only: Responses always sends it
	isOpenAI     bool
	openRouter   bool
	idle         time.Duration
}

// NewChat returns a provider for POST {BaseURL}/chat/completions, streamed
// with stream_options.include_usage. It works with OpenAI and with the
// compatible servers; see Options for what differs between them.
func NewChat(opts Options) llm.Provider { return newProvider(opts, time.Now, false) }

// NewResponses returns a provider for POST {BaseURL}/responses, streamed,
// with store:false: reasoning travels as encrypted content inside the
// requests rather than being kept on the server.
func NewResponses(opts Options) llm.Provider { return newProvider(opts, time.Now, true) }

func newProvider(opts Options, now func() time.Time, responses bool) *provider {
	return &provider{
		name:         opts.name(),
		client:       newClient(opts, now),
		log:          opts.logger(),
		err:          opts.check(),
		responses:    responses,
		sendCacheKey: opts.SendCacheKey || opts.isOpenAI(),
		isOpenAI:     opts.isOpenAI(),
		openRouter:   opts.isOpenRouter(),
		idle:         opts.IdleTimeout,
	}
}

func (p *provider) Name() string { return p.name }

// Stream implements llm.Provider. The HTTP request is sent when the
// sequence is first ranged over.
func (p *provider) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	if p.responses {
		return p.stream(ctx, req.Model, "/responses", func() ([]byte, error) { return p.responsesBody(req) }, &respStream{provider: p.name})
	}
	return p.stream(ctx, req.Model, "/chat/completions", func() ([]byte, error) { return p.chatBody(req) }, &chatStream{})
}
