package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/llmtest"
)

// cassetteWant is what an exchange of testdata/cassettes must parse to.
// Texts, tool calls and thinking of the first answer are checked against
// the next request instead, which echoes them as the vendor's
// documentation says a client sends them back.
type cassetteWant struct {
	stops     []llm.StopReason
	usage     []llm.Usage
	finalText string // prefix of the last answer's text
	thinking  bool
}

// cassetteWants is read off each cassette by hand: the oracle for the
// adapter's parsing. Input tokens count cache reads and writes too.
var cassetteWants = map[string]cassetteWant{
	"simple.yaml":               {stops: stops(llm.StopEndTurn), usage: usages(19, 7), finalText: "Bonjour !"},
	"simple_streaming.yaml":     {stops: stops(llm.StopEndTurn), usage: usages(19, 9), finalText: "Bonjour ! (good morning)"},
	"tool.yaml":                 {stops: stops(llm.StopToolUse, llm.StopEndTurn), usage: usages(398, 61, 472, 12), finalText: "It is 08:40 in Quito."},
	"tool_streaming.yaml":       {stops: stops(llm.StopToolUse, llm.StopEndTurn), usage: []llm.Usage{{InputTokens: 402, OutputTokens: 58}, {InputTokens: 471, OutputTokens: 14, CacheReadTokens: 400}}, finalText: "It is 14:05 in Lisbon (WET)."},
	"multi_tool_streaming.yaml": {stops: stops(llm.StopToolUse, llm.StopEndTurn), usage: usages(488, 104, 640, 21), finalText: "4 + 7 = 11\n4 × 7 = 28"},
	"thinking_streaming.yaml":   {stops: stops(llm.StopToolUse, llm.StopEndTurn), usage: usages(431, 87, 552, 16), finalText: "Yes: it is 09:12 in Osaka, morning.", thinking: true},
}

func stops(s ...llm.StopReason) []llm.StopReason { return s }

func usages(inOut ...int64) []llm.Usage {
	var u []llm.Usage
	for i := 0; i+1 < len(inOut); i += 2 {
		u = append(u, llm.Usage{InputTokens: inOut[i], OutputTokens: inOut[i+1]})
	}
	return u
}

func TestCassettes(t *testing.T) {
	cassettes := llmtest.Cassettes(t, "testdata/cassettes")
	names := make([]string, 0, len(cassettes))
	for name := range cassettes {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Run(strings.TrimSuffix(name, ".yaml"), func(t *testing.T) {
			want, ok := cassetteWants[name]
			if !ok {
				t.Fatalf("no expectations for cassette %s; add it to cassetteWants", name)
			}
			replay(t, cassettes[name], want)
		})
	}
}

// replay runs a recorded exchange through the adapter: the first request
// rebuilt from the recording, each answer served as recorded, and each
// follow-up built from what the adapter parsed plus the recorded tool
// results. Every request the adapter sends must mean what the recorded one
// meant.
//
// A non-streaming cassette holds a JSON answer; the adapter always streams,
// so the answer is served re-streamed by fromMessage: the
// content is real, the event framing synthetic.
func replay(t *testing.T, c *llmtest.Cassette, want cassetteWant) {
	if len(c.Interactions) != len(want.stops) {
		t.Fatalf("cassette has %d interactions, expectations %d", len(c.Interactions), len(want.stops))
	}
	recorded := make([]*llmtest.AnthropicRequest, len(c.Interactions))
	replies := make([]llmtest.Reply, len(c.Interactions))
	for i, in := range c.Interactions {
		r, err := llmtest.ParseAnthropicRequest([]byte(in.Request.Body))
		if err != nil {
			t.Fatalf("interaction %d: %v", i, err)
		}
		recorded[i] = r
		replies[i] = in.Reply()
		if !r.Stream {
			sse, err := fromMessage(in.Response.Body)
			if err != nil {
				t.Fatalf("interaction %d: %v", i, err)
			}
			replies[i] = llmtest.Reply{Body: sse}
		}
	}
	srv := llmtest.NewTestServer(t, replies...)
	p := New(Options{BaseURL: srv.URL(), APIKey: "test-key"})
	req := requestFromRecorded(recorded[0])

	for i := range c.Interactions {
		if i > 0 {
			req.Messages = append(req.Messages, toolResultsFrom(t, recorded[i], req.Messages[len(req.Messages)-1]))
		}
		resp, err := llm.Collect(p.Stream(context.Background(), req))
		if err != nil {
			t.Fatalf("answer %d: %v", i, err)
		}
		got, err := llmtest.ParseAnthropicRequest(srv.Requests()[i].Body)
		if err != nil {
			t.Fatal(err)
		}
		sameMeaning(t, i, got, recorded[i])
		if resp.StopReason != want.stops[i] || resp.Usage != want.usage[i] {
			t.Errorf("answer %d: stop %q usage %+v; want %q %+v", i, resp.StopReason, resp.Usage, want.stops[i], want.usage[i])
		}
		if i+1 < len(c.Interactions) {
			// The recording client echoed this answer in its next request.
			checkEchoed(t, i, resp.Message, recorded[i+1], want.thinking)
		} else if !strings.HasPrefix(resp.Message.Text(), want.finalText) {
			t.Errorf("last answer text %q; want it to start with %q", resp.Message.Text(), want.finalText)
		}
		req.Messages = append(req.Messages, resp.Message)
	}
	llmtest.CheckAnthropic(t, srv.Requests(), replies...)
}

// requestFromRecorded rebuilds the llm.Request behind a recorded first
// request. Thinking maps to "low" (2048 tokens, under the recorded 4096
// max_tokens, which then stays as recorded).
func requestFromRecorded(r *llmtest.AnthropicRequest) llm.Request {
	req := llm.Request{Model: r.Model, System: r.System.Text(), MaxOutputTokens: int(r.MaxTokens)}
	for _, tl := range r.Tools {
		req.Tools = append(req.Tools, llm.ToolSpec{Name: tl.Name, Description: tl.Description, Schema: tl.InputSchema})
	}
	for _, m := range r.Messages {
		req.Messages = append(req.Messages, llm.UserText(m.Content.Text()))
	}
	if r.Thinking != nil {
		req.Reasoning = "low"
	}
	return req
}

// toolResultsFrom answers the calls of the assistant message last with the
// results the recorded request rec sent for them.
func toolResultsFrom(t *testing.T, rec *llmtest.AnthropicRequest, last llm.Message) llm.Message {
	t.Helper()
	results := map[string]string{}
	for _, b := range rec.Messages[len(rec.Messages)-1].Content {
		if b.Type == "tool_result" {
			results[b.ToolUseID] = b.Content.Text()
		}
	}
	msg := llm.Message{Role: llm.RoleTool}
	for _, c := range last.ToolCalls() {
		content, ok := results[c.ID]
		if !ok {
			t.Fatalf("the recorded follow-up answers no call %s", c.ID)
		}
		msg.Parts = append(msg.Parts, llm.Part{Kind: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: c.ID, Name: c.Name, Content: content}})
	}
	return msg
}

// checkEchoed compares the parsed answer with the assistant message the
// recording client sent back in rec.
func checkEchoed(t *testing.T, i int, got llm.Message, rec *llmtest.AnthropicRequest, thinking bool) {
	t.Helper()
	var echoed llmtest.AnthropicBlocks
	for _, m := range rec.Messages {
		if m.Role == "assistant" {
			echoed = m.Content
		}
	}
	if len(got.Parts) != len(echoed) {
		t.Fatalf("answer %d: %d parts, the recording echoed %d blocks", i, len(got.Parts), len(echoed))
	}
	sawThinking := false
	for j, p := range got.Parts {
		b := echoed[j]
		switch {
		case p.Kind == llm.PartText && b.Type == "text":
			if p.Text != b.Text {
				t.Errorf("answer %d part %d: text %q, recorded %q", i, j, p.Text, b.Text)
			}
		case p.Kind == llm.PartToolCall && b.Type == "tool_use":
			c := p.ToolCall
			if c.ID != b.ID || c.Name != b.Name || !sameJSON(c.Args, b.Input) {
				t.Errorf("answer %d part %d: call %s %s %s, recorded %s %s %s", i, j, c.ID, c.Name, c.Args, b.ID, b.Name, b.Input)
			}
		case p.Kind == llm.PartThinking && b.Type == "thinking":
			sawThinking = true
			th := p.Thinking
			if th.Text != b.Thinking || th.Signature != b.Signature || th.Provider != "anthropic" {
				t.Errorf("answer %d part %d: thinking %+v, recorded text %q signature %q", i, j, th, b.Thinking, b.Signature)
			}
		default:
			t.Errorf("answer %d part %d: %s part where the recording has a %s block", i, j, p.Kind, b.Type)
		}
	}
	if sawThinking != thinking {
		t.Errorf("answer %d: thinking seen %v, want %v", i, sawThinking, thinking)
	}
}

// fromMessage re-streams a non-streaming Messages response (as
// recorded in a cassette) as the equivalent event stream.
func fromMessage(body string) (string, error) {
	var m struct {
		Content []struct {
			Type, Text, Thinking, Signature, Data, ID, Name string
			Input                                           json.RawMessage
		}
		StopReason string `json:"stop_reason"`
		Usage      struct {
			In     int64 `json:"input_tokens"`
			Out    int64 `json:"output_tokens"`
			CacheR int64 `json:"cache_read_input_tokens"`
			CacheW int64 `json:"cache_creation_input_tokens"`
		}
	}
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		return "", fmt.Errorf("not a Messages response: %w", err)
	}
	parts := []llmtest.AnthropicPart{llmtest.AnthropicStop(m.StopReason), llmtest.AnthropicUsage(m.Usage.In, m.Usage.Out, m.Usage.CacheR, m.Usage.CacheW)}
	for _, c := range m.Content {
		switch c.Type {
		case "text":
			parts = append(parts, llmtest.AnthropicText(c.Text))
		case "thinking":
			parts = append(parts, llmtest.AnthropicThinking(c.Thinking, c.Signature))
		case "redacted_thinking":
			parts = append(parts, llmtest.AnthropicRedactedThinking(c.Data))
		case "tool_use":
			parts = append(parts, llmtest.AnthropicToolUse(c.ID, c.Name, string(c.Input)))
		default:
			return "", fmt.Errorf("content block type %q has no stream builder", c.Type)
		}
	}
	return llmtest.AnthropicSSE(parts...), nil
}

func TestFromMessage(t *testing.T) {
	body := `{"content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"text","text":"hi"},` +
		`{"type":"tool_use","id":"toolu_9","name":"add","input":{"a":2}}],"stop_reason":"tool_use",` +
		`"usage":{"input_tokens":7,"output_tokens":3,"cache_read_input_tokens":1,"cache_creation_input_tokens":2}}`
	sse, err := fromMessage(body)
	if err != nil {
		t.Fatal(err)
	}
	if want := llmtest.AnthropicSSE(llmtest.AnthropicStop("tool_use"), llmtest.AnthropicUsage(7, 3, 1, 2), llmtest.AnthropicThinking("t", "s"),
		llmtest.AnthropicText("hi"), llmtest.AnthropicToolUse("toolu_9", "add", `{"a":2}`)); sse != want {
		t.Errorf("re-streamed:\n%s\nwant:\n%s", sse, want)
	}
	if _, err := fromMessage(`{"content":[{"type":"server_tool_use"}]}`); err == nil {
		t.Error("an unknown block type was accepted")
	}
}
