package anthropic

import (
	"fmt"
	"slices"
	"testing"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/llmtest"
)

// marks lists where cache_control markers are: "tool N", "system", "msg M
// block B".
func marks(r *llmtest.AnthropicRequest) []string {
	var out []string
	set := func(raw []byte) bool { return len(raw) > 0 && string(raw) != "null" }
	for i, tl := range r.Tools {
		if set(tl.CacheControl) {
			out = append(out, fmt.Sprintf("tool %d", i))
		}
	}
	for _, b := range r.System {
		if set(b.CacheControl) {
			out = append(out, "system")
		}
	}
	for i, m := range r.Messages {
		for j, b := range m.Content {
			if set(b.CacheControl) {
				out = append(out, fmt.Sprintf("msg %d block %d", i, j))
			}
		}
	}
	return out
}

func TestCacheBreakpoints(t *testing.T) {
	tools := []llm.ToolSpec{{Name: "a"}, {Name: "b"}}
	sig := llm.Thinking{Text: "t", Signature: "s", Provider: "anthropic"}
	round := func(id string) []llm.Message {
		return []llm.Message{msg(llm.RoleAssistant, llm.TextPart("on it"), call(id, "a", `{}`)), msg(llm.RoleTool, result(id, "ok", false))}
	}
	loop := append([]llm.Message{llm.UserText("go")}, round("c1")...)
	loop = append(loop, round("c2")...)
	tests := []struct {
		name string
		req  llm.Request
		want []string
	}{
		{"one message, no prefix", llm.Request{Messages: []llm.Message{llm.UserText("hi")}},
			[]string{"msg 0 block 0"}},
		{"first request of a segment", llm.Request{System: "s", Tools: tools, Messages: []llm.Message{llm.UserText("hi")}},
			[]string{"tool 1", "system", "msg 0 block 0"}},
		{"tool loop: newest and the previous request's end", llm.Request{System: "s", Tools: tools, Messages: loop},
			[]string{"tool 1", "system", "msg 2 block 0", "msg 4 block 0"}},
		{"several results: the last block of each", llm.Request{Messages: []llm.Message{
			llm.UserText("a"), msg(llm.RoleAssistant, call("x", "a", `{}`), call("y", "a", `{}`)),
			msg(llm.RoleTool, result("x", "1", false), result("y", "2", false)),
		}}, []string{"msg 0 block 0", "msg 2 block 1"}},
		{"thinking cannot be marked; the block before it is", llm.Request{Messages: []llm.Message{
			llm.UserText("a"), msg(llm.RoleAssistant, llm.TextPart("x"), thinking(sig)),
		}}, []string{"msg 1 block 0"}},
		{"an assistant message last has no previous-end marker", llm.Request{Messages: []llm.Message{
			llm.UserText("a"), llm.AssistantText("b"), llm.UserText("c"), llm.AssistantText("d"),
		}}, []string{"msg 3 block 0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.Model = "m"
			r := wire(t, tt.req)
			if got := marks(r); !slices.Equal(got, tt.want) {
				t.Errorf("markers %q, want %q", got, tt.want)
			}
			if r.Breakpoints() > maxBreakpoints {
				t.Errorf("%d breakpoints", r.Breakpoints())
			}
		})
	}
}

// The marker that ends request k is still there in request k+1, so k+1
// reads exactly the prefix k wrote, however many blocks the round added.
func TestCacheBreakpointCarriesOver(t *testing.T) {
	hist := []llm.Message{llm.UserText("go")}
	prevEnd := ""
	for i := range 3 {
		var calls, results []llm.Part
		for j := range 12 { // more blocks than the API's 20-block lookback
			id := fmt.Sprintf("c%d_%d", i, j)
			calls = append(calls, call(id, "a", `{}`))
			results = append(results, result(id, "ok", false))
		}
		hist = append(hist, msg(llm.RoleAssistant, calls...), msg(llm.RoleTool, results...))
		r := wire(t, llm.Request{Model: "m", Messages: hist})
		m := marks(r)
		if prevEnd != "" && !slices.Contains(m, prevEnd) {
			t.Errorf("request %d: markers %q lost the previous end %q", i, m, prevEnd)
		}
		prevEnd = m[len(m)-1]
	}
}
