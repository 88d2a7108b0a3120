package openai

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/llmtest"
)

// recordedChat is the part of a recorded Chat Completions body we read.
type recordedChat struct {
	Model               string `json:"model"`
	MaxTokens           int    `json:"max_tokens"`
	MaxCompletionTokens int    `json:"max_completion_tokens"`
	ReasoningEffort     string `json:"reasoning_effort"`
	Messages            []struct {
		Role             string          `json:"role"`
		Content          json.RawMessage `json:"content"`
		ReasoningContent string          `json:"reasoning_content"`
		ToolCallID       string          `json:"tool_call_id"`
		ToolCalls        []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
}

func parseRecordedChat(t *testing.T, body string) recordedChat {
	t.Helper()
	var r recordedChat
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatalf("recorded request is not JSON: %v", err)
	}
	return r
}

// chatRequestFrom rebuilds the llm.Request a recorded body came from.
func chatRequestFrom(t *testing.T, body string) llm.Request {
	t.Helper()
	r := parseRecordedChat(t, body)
	req := llm.Request{Model: r.Model, MaxOutputTokens: max(r.MaxTokens, r.MaxCompletionTokens), Reasoning: r.ReasoningEffort}
	for _, tl := range r.Tools {
		req.Tools = append(req.Tools, llm.ToolSpec{Name: tl.Function.Name, Description: tl.Function.Description, Schema: tl.Function.Parameters})
	}
	for i, m := range r.Messages {
		switch m.Role {
		case "system":
			if i != 0 {
				t.Fatalf("system message at %d", i)
			}
			req.System = llmtest.ContentText(m.Content)
		case "user":
			req.Messages = append(req.Messages, llm.UserText(llmtest.ContentText(m.Content)))
		case "assistant":
			a := llm.Message{Role: llm.RoleAssistant}
			if m.ReasoningContent != "" {
				a.Parts = append(a.Parts, thinkingPart(m.ReasoningContent, ProviderChat))
			}
			if s := llmtest.ContentText(m.Content); s != "" {
				a.Parts = append(a.Parts, llm.TextPart(s))
			}
			for _, c := range m.ToolCalls {
				a.Parts = append(a.Parts, callPart(c.ID, c.Function.Name, c.Function.Arguments))
			}
			req.Messages = append(req.Messages, a)
		case "tool":
			res := llm.ToolResult{CallID: m.ToolCallID, Content: llmtest.ContentText(m.Content)}
			if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == llm.RoleTool {
				req.Messages[n-1].Parts = append(req.Messages[n-1].Parts, llm.Part{Kind: llm.PartToolResult, ToolResult: &res})
			} else {
				req.Messages = append(req.Messages, toolResults(res))
			}
		default:
			t.Fatalf("unexpected role %q", m.Role)
		}
	}
	return req
}

// chatShape is what a Chat Completions body means: tool_choice "auto",
// strict:false and the stream flags are defaults or transport, not
// meaning, and are left out.
type chatShape struct {
	Model     string
	MaxTokens string
	Reasoning string
	Tools     []string
	Messages  []chatShapeMsg
}

type chatShapeMsg struct {
	Role, Content, Reasoning, ToolCallID string
	Calls                                []string
}

func chatShapeOf(t *testing.T, body string) chatShape {
	t.Helper()
	r := parseRecordedChat(t, body)
	s := chatShape{Model: r.Model, Reasoning: r.ReasoningEffort}
	switch {
	case r.MaxTokens > 0:
		s.MaxTokens = "max_tokens=" + itoa(r.MaxTokens)
	case r.MaxCompletionTokens > 0:
		s.MaxTokens = "max_completion_tokens=" + itoa(r.MaxCompletionTokens)
	}
	for _, tl := range r.Tools {
		s.Tools = append(s.Tools, tl.Function.Name+"|"+tl.Function.Description+"|"+canonical(t, string(tl.Function.Parameters)))
	}
	for _, m := range r.Messages {
		sm := chatShapeMsg{Role: m.Role, Content: llmtest.ContentText(m.Content), Reasoning: m.ReasoningContent, ToolCallID: m.ToolCallID}
		for _, c := range m.ToolCalls {
			sm.Calls = append(sm.Calls, c.ID+" "+c.Function.Name+" "+canonical(t, c.Function.Arguments))
		}
		s.Messages = append(s.Messages, sm)
	}
	return s
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestChatCassettes(t *testing.T) {
	for _, dir := range []string{"chat"} {
		names, cs := sortedCassettes(t, dir)
		for _, name := range names {
			c := cs[name]
			t.Run(dir+"/"+name, func(t *testing.T) {
				if !strings.Contains(name, "streaming") {
					chatRequestShapes(t, c)
					return
				}
				replayChat(t, dir+"/"+name, c)
			})
		}
	}
}

// chatRequestShapes rebuilds every recorded request from llm types and
// checks that the adapter sends the same meaning.
func chatRequestShapes(t *testing.T, c *llmtest.Cassette) {
	for i, in := range c.Interactions {
		s := llmtest.NewTestServer(t, llmtest.ChatTextReply("ok", 1, 1))
		if _, err := run(t, chatFor(s), chatRequestFrom(t, in.Request.Body)); err != nil {
			t.Fatalf("interaction %d: %v", i, err)
		}
		sameShape(t, "request "+itoa(i), chatShapeOf(t, string(s.Requests()[0].Body)), chatShapeOf(t, in.Request.Body))
	}
}

func replayChat(t *testing.T, name string, c *llmtest.Cassette) {
	s := llmtest.NewTestServer(t, c.Replies()...)
	p := chatFor(s)
	rec := c.Interactions
	req := chatRequestFrom(t, rec[0].Request.Body)

	evs, err := run(t, p, req)
	if err != nil {
		t.Fatalf("answer 0: %v", err)
	}
	checkUsage(t, name, 0, evs)
	wantThinking := strings.Contains(name, "thinking") // streams reasoning_content
	checkChatThinking(t, evs, wantThinking)
	sent := s.Requests()
	sameShape(t, "request 0", chatShapeOf(t, string(sent[0].Body)), chatShapeOf(t, rec[0].Request.Body))
	if b := bodyOf(t, sent[0]); b["stream"] != true || b["stream_options"].(map[string]any)["include_usage"] != true {
		t.Errorf("request 0 does not ask for a stream with usage")
	}
	if len(rec) == 1 {
		checkFinal(t, name, evs)
		return
	}

	// The recorded follow-up holds the tool results, keyed by call id.
	results := map[string]string{}
	for _, m := range parseRecordedChat(t, rec[1].Request.Body).Messages {
		if m.Role == "tool" {
			results[m.ToolCallID] = llmtest.ContentText(m.Content)
		}
	}
	if last := evs[len(evs)-1]; last.StopReason != llm.StopToolUse {
		t.Errorf("answer 0 stop = %q, want tool_use", last.StopReason)
	}
	evs2, err := run(t, p, followUp(t, req, response(evs).Message, results))
	if err != nil {
		t.Fatalf("answer 1: %v", err)
	}
	sent = s.Requests()
	// The core check: what we parsed (text, reasoning, call ids, names,
	// arguments) went back as the recording client sent it.
	sameShape(t, "follow-up request", chatShapeOf(t, string(sent[1].Body)), chatShapeOf(t, rec[1].Request.Body))
	checkUsage(t, name, 1, evs2)
	checkChatThinking(t, evs2, wantThinking)
	checkFinal(t, name, evs2)
	llmtest.CheckChat(t, sent)
	llmtest.CheckAppendOnly(t, sent)
}

func checkChatThinking(t *testing.T, evs []llm.Event, want bool) {
	t.Helper()
	ends := ofType(evs, llm.EventThinkingEnd)
	if !want {
		if len(ends) != 0 {
			t.Errorf("unexpected thinking: %+v", ends[0].Thinking)
		}
		return
	}
	if len(ends) != 1 || ends[0].Thinking.Text == "" || ends[0].Thinking.Provider != ProviderChat {
		t.Fatalf("want one non-empty %s thinking block, got %d", ProviderChat, len(ends))
	}
	if got := deltas(evs, llm.EventThinkingDelta); got != ends[0].Thinking.Text {
		t.Errorf("thinking deltas do not add up to the block: %q vs %q", got, ends[0].Thinking.Text)
	}
	// Thinking comes first: nothing else before its end.
	for _, ev := range evs {
		if ev.Type == llm.EventThinkingEnd {
			break
		}
		if ev.Type != llm.EventThinkingDelta {
			t.Errorf("%s before the thinking block ended", ev.Type)
			break
		}
	}
}
