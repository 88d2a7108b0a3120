package openai

import (
	"testing"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/llmtest"
)

// TestToolLoopInvariants drives a three-step tool loop the way the agent
// does (answer appended, every call answered) and checks the captured
// requests: calls answered exactly once, no null input, reasoning echoed
// unchanged, and each request extending the previous one byte for byte.
func TestToolLoopInvariants(t *testing.T) {
	chat := []llmtest.Reply{
		llmtest.ChatReply(llmtest.ChatReasoning("Need the file."), llmtest.ChatToolCall("c1", "file_read", `{"path":"a.go"}`), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(100, 10)),
		llmtest.ChatReply(llmtest.ChatText("Two more."), llmtest.ChatToolCallAt(0, "c2", "grep", `{"pattern":"x"}`), llmtest.ChatToolCallAt(1, "c3", "plan", ""), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(150, 10)),
		llmtest.ChatTextReply("Done.", 200, 5),
	}
	responses := []llmtest.Reply{
		llmtest.ResponsesReply(llmtest.ResponsesReasoning("rs_1", "ENC/1+", "Need the file."), llmtest.ResponsesFunctionCall("c1", "file_read", `{"path":"a.go"}`), llmtest.ResponsesCompleted(100, 10)),
		llmtest.ResponsesReply(llmtest.ResponsesReasoning("rs_2", "ENC/2+"), llmtest.ResponsesText("Two more."), llmtest.ResponsesFunctionCall("c2", "grep", `{"pattern":"x"}`), llmtest.ResponsesFunctionCall("c3", "plan", ""), llmtest.ResponsesCompleted(150, 10)),
		llmtest.ResponsesTextReply("Done.", 200, 5),
	}
	for _, format := range []string{"chat", "responses"} {
		t.Run(format, func(t *testing.T) {
			replies := chat
			if format == "responses" {
				replies = responses
			}
			s := llmtest.NewTestServer(t, replies...)
			p := chatFor(s, func(o *Options) { o.SendCacheKey = true })
			if format == "responses" {
				p = responsesFor(s)
			}
			req := llm.Request{Model: "gpt-5", System: "sys", CacheKey: "session-1", Reasoning: "medium",
				Tools:    []llm.ToolSpec{{Name: "file_read", Schema: []byte(`{"type":"object"}`)}, {Name: "grep"}, {Name: "plan"}},
				Messages: []llm.Message{llm.UserText("fix it")}}
			for step := 0; ; step++ {
				evs, err := run(t, p, req)
				if err != nil {
					t.Fatalf("step %d: %v", step, err)
				}
				answer := response(evs).Message
				req.Messages = append(req.Messages, answer)
				calls := answer.ToolCalls()
				if len(calls) == 0 {
					if answer.Text() != "Done." || step != 2 {
						t.Fatalf("step %d ended with %q", step, answer.Text())
					}
					break
				}
				var rs []llm.ToolResult
				for _, c := range calls {
					rs = append(rs, llm.ToolResult{CallID: c.ID, Name: c.Name, Content: "result of " + c.ID})
				}
				req.Messages = append(req.Messages, toolResults(rs...))
			}
			sent := s.Requests()
			llmtest.CheckAppendOnly(t, sent)
			if format == "chat" {
				llmtest.CheckChat(t, sent)
			} else {
				llmtest.CheckResponses(t, sent, replies...)
			}
			for i, c := range sent {
				if bodyOf(t, c)["prompt_cache_key"] != "session-1" {
					t.Errorf("request %d has no prompt_cache_key", i)
				}
			}
		})
	}
}
