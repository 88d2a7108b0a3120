package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"log/slog"
	"strconv"
	"strings"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/internal/sse"
)

// decoder turns one API's stream events into llm events: chatStream for
// Chat Completions, respStream for Responses.
type decoder interface {
	// add handles one event's data; false means the consumer stopped
	// listening. An error is an event that is not JSON.
	add(data []byte, out emit) (bool, error)
	// failure is an error the stream reported in band (Responses'
	// "error" and "response.failed"), nil while there is none.
	failure() error
	// end closes what is open once the stream is over; false means the
	// stream was cut before its terminal chunk.
	end(out emit) bool
	// done logs how a stream that ended well ended.
	done(log *slog.Logger, provider, model string)
}

// emit hands one event to the consumer; false means it stopped listening.
type emit func(llm.Event) bool

// stream is the skeleton both APIs share: the provider's configuration
// error, the request built (build) and posted to path when the sequence
// is ranged over, each event through a decoder of its own, then the
// stream's error, the caller's, or a cut stream (retryable).
func (p *provider) stream(ctx context.Context, model, path string, build func() ([]byte, error), dec decoder) iter.Seq2[llm.Event, error] {
	name := p.name
	return func(yield func(llm.Event, error) bool) {
		if p.err != nil {
			yield(llm.Event{}, p.err)
			return
		}
		req, err := build()
		if err != nil {
			yield(llm.Event{}, err)
			return
		}
		wctx, idle := sse.Watch(ctx, p.idle)
		defer idle.Stop()
		body, err := p.client.post(wctx, path, req)
		if err != nil {
			yield(llm.Event{}, classify(ctx, name, idle.Err(err)))
			return
		}
		defer body.Close()
		out := func(ev llm.Event) bool { return yield(ev, nil) }
		events := sse.NewReader(idle.Body(body))
		for {
			ev, err := events.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				yield(llm.Event{}, classify(ctx, name, idle.Err(err)))
				return
			}
			if bytes.HasPrefix(ev.Data, []byte("[DONE]")) {
				break // Chat Completions' end; nothing after it counts
			}
			if v, ok := inBandError(ev.Data); ok {
				// Compatible servers (OpenRouter, vLLM) report a failure
				// mid-stream as an event holding "error".
				yield(llm.Event{}, streamError(name, v))
				return
			}
			more, err := dec.add(ev.Data, out)
			if err != nil {
				yield(llm.Event{}, classify(ctx, name, err))
				return
			}
			if !more {
				return
			}
			if err := dec.failure(); err != nil {
				yield(llm.Event{}, err)
				return
			}
		}
		if ctx.Err() != nil {
			yield(llm.Event{}, ctx.Err())
			return
		}
		if !dec.end(out) {
			yield(llm.Event{}, &llm.Error{Kind: llm.KindRetryable, Provider: name, Message: errCut})
			return
		}
		dec.done(p.log, name, model)
	}
}

// inBandError reports an event whose object has an "error" key (even
// null), with the error it holds.
func inBandError(data []byte) (vendorError, bool) {
	if !bytes.Contains(data, []byte(`"error"`)) {
		return vendorError{}, false
	}
	var o struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &o) != nil || o.Error == nil {
		return vendorError{}, false
	}
	return parseVendorError(data), true
}

// unmarshal decodes an event leniently, as the vendors' own SDKs do: a
// field of an unexpected type is left zero rather than failing the
// stream; only data that is not JSON is an error.
func unmarshal(data []byte, v any) error {
	err := json.Unmarshal(data, v)
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return nil
	}
	return err
}

// num is a count or an index as servers write it: a number, a float
// ("12.0"), or a string holding one; anything else reads as 0.
type num int64

func (n *num) UnmarshalJSON(b []byte) error {
	var f float64
	if json.Unmarshal(bytes.Trim(b, `"`), &f) == nil {
		*n = num(f)
	}
	return nil
}

// calls assembles the tool calls of one answer, in order of first sight.
type calls struct {
	byKey map[string]*call
	order []*call
}

type call struct {
	ord      int
	id, name string
	args     strings.Builder
	final    string // the whole arguments, when the server also sent them so
	ended    bool
}

// get returns the call for key, adding it on first sight.
func (cs *calls) get(key, id, name string, out emit) (*call, bool) {
	if c := cs.byKey[key]; c != nil {
		if c.name == "" {
			c.name = name
		}
		return c, true
	}
	return cs.add(key, id, name, out)
}

// add starts a call under key and announces it. A call the server gave
// no id gets one: the server will not check the one sent back, but the
// history needs one to pair the result.
func (cs *calls) add(key, id, name string, out emit) (*call, bool) {
	if cs.byKey == nil {
		cs.byKey = map[string]*call{}
	}
	c := &call{ord: len(cs.order), id: id, name: name}
	if c.id == "" {
		c.id = "call_" + strconv.Itoa(c.ord)
	}
	cs.byKey[key] = c
	cs.order = append(cs.order, c)
	return c, out(llm.Event{Type: llm.EventToolCallStart, Index: c.ord, ToolCall: &llm.ToolCall{ID: c.id, Name: c.name}})
}

func (c *call) delta(args string, out emit) bool {
	if args == "" {
		return true
	}
	c.args.WriteString(args)
	return out(llm.Event{Type: llm.EventToolCallDelta, Index: c.ord, Text: args})
}

func (c *call) end(out emit) bool {
	if c.ended {
		return true
	}
	c.ended = true
	args := c.final
	if args == "" {
		args = c.args.String()
	}
	return out(llm.Event{Type: llm.EventToolCallEnd, Index: c.ord, ToolCall: &llm.ToolCall{ID: c.id, Name: c.name, Args: llm.ArgsOrEmpty(json.RawMessage(args))}})
}

// end ends every call not yet ended.
func (cs *calls) end(out emit) bool {
	for _, c := range cs.order {
		if !c.end(out) {
			return false
		}
	}
	return true
}

// finish ends a stream that closed cleanly: the calls still open, then
// the usage (when the server sent it) and the stop reason.
func finish(out emit, cs *calls, usage *llm.Usage, stop llm.StopReason) {
	if cs.end(out) && (usage == nil || out(llm.Event{Type: llm.EventUsage, Usage: usage})) {
		out(llm.Event{Type: llm.EventStop, StopReason: stop})
	}
}
