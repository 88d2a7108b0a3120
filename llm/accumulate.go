package llm

import "encoding/json"

// Response is a model's complete answer.
type Response struct {
	Message    Message
	Usage      Usage
	StopReason StopReason
}

// Accumulator assembles streamed events into a Response. The zero value is
// ready to use. Parts keep the stream's order: a thinking block, then text,
// then tool calls, as the vendor sent them.
type Accumulator struct {
	parts []Part
	usage Usage
	stop  StopReason
}

// Add folds one event into the response.
func (a *Accumulator) Add(ev Event) {
	switch ev.Type {
	case EventTextDelta:
		if n := len(a.parts); n > 0 && a.parts[n-1].Kind == PartText {
			a.parts[n-1].Text += ev.Text
			return
		}
		a.parts = append(a.parts, TextPart(ev.Text))
	case EventThinkingEnd:
		if ev.Thinking != nil {
			t := *ev.Thinking
			a.parts = append(a.parts, Part{Kind: PartThinking, Thinking: &t})
		}
	case EventToolCallEnd:
		if ev.ToolCall != nil {
			c := *ev.ToolCall
			c.Args = append(json.RawMessage(nil), c.Args...)
			a.parts = append(a.parts, Part{Kind: PartToolCall, ToolCall: &c})
		}
	case EventUsage:
		if ev.Usage != nil {
			a.usage = *ev.Usage
		}
	case EventStop:
		a.stop = ev.StopReason
	case EventRetry, EventFallback:
		// The attempt that streamed so far is void.
		a.parts, a.usage, a.stop = nil, Usage{}, ""
	}
}

// Response returns what has been assembled so far.
func (a *Accumulator) Response() Response {
	parts := make([]Part, len(a.parts))
	copy(parts, a.parts)
	stop := a.stop
	if stop == "" {
		stop = StopOther
	}
	return Response{
		Message:    Message{Role: RoleAssistant, Parts: parts},
		Usage:      a.usage,
		StopReason: stop,
	}
}
