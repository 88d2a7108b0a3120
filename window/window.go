package window

import (
	"context"
	"encoding/json"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/store"
)

// Input is the state a request is built from.
type Input struct {
	SessionID string
	Segment   int
	// Messages is the current segment's history, oldest first.
	Messages []llm.Message
}

// Assembly is a request ready to send, with the size of each of its parts.
type Assembly struct {
	Request llm.Request
	Parts   []store.PartStat
}

// Part names, as recorded per model call and shown by `:context`.
const (
	PartSystem      = "system"
	PartTools       = "tools"
	PartMessages    = "messages"
	PartToolOutputs = "tool_outputs"
)

// Options configure a Window.
type Options struct {
	System string
	Tools  []llm.ToolSpec
	// Count returns the token count of a text; nil estimates 4 bytes a
	// token.
	Count func(string) int
}

// Window builds requests: the prefix (system prompt, tool table) then the
// segment's messages, unchanged, so that each request of a segment extends
// the one before it.
type Window struct {
	opts      Options
	toolsJSON string
}

// New returns a Window.
func New(opts Options) *Window {
	if opts.Count == nil {
		opts.Count = func(s string) int { return (len(s) + 3) / 4 }
	}
	b, _ := json.Marshal(opts.Tools)
	return &Window{opts: opts, toolsJSON: string(b)}
}

// Assemble implements agent.Assembler.
func (w *Window) Assemble(_ context.Context, in Input) (Assembly, error) {
	msgs, _ := Repair(in.Messages)
	req := llm.Request{System: w.opts.System, Tools: w.opts.Tools, Messages: msgs}
	return Assembly{Request: req, Parts: w.account(msgs)}, nil
}

// account measures each part of a request.
func (w *Window) account(msgs []llm.Message) []store.PartStat {
	stat := func(name, s string) store.PartStat {
		return store.PartStat{Name: name, Bytes: len(s), Tokens: w.opts.Count(s)}
	}
	var conv, outputs []byte
	for _, m := range msgs {
		for _, p := range m.Parts {
			switch p.Kind {
			case llm.PartToolResult:
				outputs = append(outputs, p.ToolResult.Content...)
			case llm.PartToolCall:
				conv = append(conv, p.ToolCall.Name...)
				conv = append(conv, p.ToolCall.Args...)
			case llm.PartThinking:
				conv = append(conv, p.Thinking.Text...)
			default:
				conv = append(conv, p.Text...)
			}
		}
	}
	return []store.PartStat{
		stat(PartSystem, w.opts.System),
		stat(PartTools, w.toolsJSON),
		stat(PartMessages, string(conv)),
		stat(PartToolOutputs, string(outputs)),
	}
}
