package llmtest

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/godwit/godwit/llm/internal/sse"
)

// Invariant checks on captured requests. They report with t.Errorf (never
// Fatal), naming the request and the message or item index, and go on, so
// one run shows every broken rule.

// checkArgs reports arguments that are missing, null or not a string:
// vendors reject a null tool input in the history.
func checkArgs(t testing.TB, where string, args json.RawMessage) {
	t.Helper()
	if v := strings.TrimSpace(string(args)); v == "" || v == "null" {
		t.Errorf("llmtest: %s: arguments are missing or JSON null; send \"{}\" for a call without input", where)
		return
	}
	var s string
	if err := json.Unmarshal(args, &s); err != nil {
		t.Errorf("llmtest: %s: arguments must be a JSON string, got %s", where, args)
		return
	}
	if v := strings.TrimSpace(s); v == "" || v == "null" {
		t.Errorf("llmtest: %s: arguments are %q; send {} for a call without input", where, s)
	}
}

// decodeBody parses a captured request body, reporting failure.
func decodeBody(t testing.TB, i int, body []byte, v any) bool {
	t.Helper()
	if err := json.Unmarshal(body, v); err != nil {
		t.Errorf("llmtest: request %d: body is not JSON: %v", i, err)
		return false
	}
	return true
}

type chatMessage struct {
	Role      string `json:"role"`
	ToolCalls []struct {
		ID       string `json:"id"`
		Function struct {
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	ToolCallID string `json:"tool_call_id"`
}

// CheckChat checks Chat Completions requests: every assistant tool call is
// answered exactly once by the "tool" messages right after its message,
// no tool message answers anything else, and no call's arguments are
// empty or null.
func CheckChat(t testing.TB, reqs []Captured) {
	t.Helper()
	for i, r := range reqs {
		var body struct {
			Messages []chatMessage `json:"messages"`
		}
		if !decodeBody(t, i, r.Body, &body) {
			continue
		}
		var open map[string]int // calls of the last assistant message -> answers
		for j, m := range body.Messages {
			where := "request " + strconv.Itoa(i) + " message " + strconv.Itoa(j)
			if m.Role == "tool" {
				n, ok := open[m.ToolCallID]
				switch {
				case !ok:
					t.Errorf("llmtest: %s: tool message answers %q, which is not a call of the assistant message before it", where, m.ToolCallID)
				case n > 0:
					t.Errorf("llmtest: %s: call %q answered twice", where, m.ToolCallID)
				}
				if ok {
					open[m.ToolCallID] = n + 1
				}
				continue
			}
			reportUnanswered(t, i, open)
			open = nil
			for _, c := range m.ToolCalls {
				checkArgs(t, where+" call "+c.ID, c.Function.Arguments)
				if open == nil {
					open = map[string]int{}
				}
				open[c.ID] = 0
			}
		}
		reportUnanswered(t, i, open)
	}
}

func reportUnanswered(t testing.TB, i int, open map[string]int) {
	t.Helper()
	for id, n := range open {
		if n == 0 {
			t.Errorf("llmtest: request %d: call %q has no tool message answering it", i, id)
		}
	}
}

type responsesItem struct {
	Type             string          `json:"type"`
	ID               string          `json:"id"`
	CallID           string          `json:"call_id"`
	Arguments        json.RawMessage `json:"arguments"`
	EncryptedContent *string         `json:"encrypted_content"`
}

// CheckResponses checks Responses API requests: every function_call item
// is answered by exactly one later function_call_output, no output answers
// an unknown call, no arguments are empty or null, and with store:false
// every reasoning item carries encrypted_content. When the replies that
// were served are given, each reasoning item's encrypted_content must be
// byte for byte the one the server sent for that id.
func CheckResponses(t testing.TB, reqs []Captured, served ...Reply) {
	t.Helper()
	sent := servedReasoning(served)
	for i, r := range reqs {
		var body struct {
			Store *bool           `json:"store"`
			Input []responsesItem `json:"input"`
		}
		if !decodeBody(t, i, r.Body, &body) {
			continue
		}
		calls := map[string]int{}
		answers := map[string]int{}
		for j, it := range body.Input {
			where := "request " + strconv.Itoa(i) + " item " + strconv.Itoa(j)
			switch it.Type {
			case "function_call":
				checkArgs(t, where+" call "+it.CallID, it.Arguments)
				if _, dup := calls[it.CallID]; dup {
					t.Errorf("llmtest: %s: call id %q appears twice", where, it.CallID)
				}
				calls[it.CallID] = j
			case "function_call_output":
				if _, ok := calls[it.CallID]; !ok {
					t.Errorf("llmtest: %s: output answers %q, which no earlier function_call made", where, it.CallID)
				}
				answers[it.CallID]++
				if answers[it.CallID] == 2 {
					t.Errorf("llmtest: %s: call %q answered twice", where, it.CallID)
				}
			case "reasoning":
				checkReasoning(t, where, it, body.Store != nil && !*body.Store, sent)
			}
		}
		for id := range calls {
			if answers[id] == 0 {
				t.Errorf("llmtest: request %d: call %q has no function_call_output", i, id)
			}
		}
	}
}

func checkReasoning(t testing.TB, where string, it responsesItem, noStore bool, sent map[string]string) {
	t.Helper()
	if it.EncryptedContent == nil || *it.EncryptedContent == "" {
		if noStore {
			t.Errorf("llmtest: %s: reasoning %q has no encrypted_content; with store:false the server cannot resolve it", where, it.ID)
		}
		return
	}
	if want, ok := sent[it.ID]; ok && want != *it.EncryptedContent {
		t.Errorf("llmtest: %s: reasoning %q: encrypted_content was changed (%d bytes sent by the server, %d echoed)", where, it.ID, len(want), len(*it.EncryptedContent))
	}
}

// servedReasoning collects id -> encrypted_content from the
// response.output_item.done events of streamed replies.
func servedReasoning(replies []Reply) map[string]string {
	out := map[string]string{}
	for _, r := range replies {
		body := r.Body
		if len(r.Chunks) > 0 {
			body = strings.Join(r.Chunks, "")
		}
		for _, data := range sseData(body) {
			var ev struct {
				Type string        `json:"type"`
				Item responsesItem `json:"item"`
			}
			if json.Unmarshal([]byte(data), &ev) != nil || ev.Type != "response.output_item.done" {
				continue
			}
			if ev.Item.Type == "reasoning" && ev.Item.EncryptedContent != nil {
				out[ev.Item.ID] = *ev.Item.EncryptedContent
			}
		}
	}
	return out
}

// sseData returns the data payloads of an SSE body, read as the adapters
// read it.
func sseData(body string) []string {
	var out []string
	events := sse.NewReader(strings.NewReader(body))
	for {
		ev, err := events.Next()
		if err != nil {
			return out
		}
		out = append(out, string(ev.Data))
	}
}

// CheckAppendOnly checks that each request extends the one before it: its
// "messages" (Chat Completions, Anthropic) or "input" (Responses) array
// starts with every element of the previous request's, byte for byte
// after compaction, and "tools", "system" and "instructions" are
// unchanged. Anthropic's cache_control markers are ignored: they move
// with the newest message by design and are not part of the prefix. Pass
// one segment's requests: a reset starts a new prefix.
func CheckAppendOnly(t testing.TB, reqs []Captured) {
	t.Helper()
	var prev map[string]json.RawMessage
	var prevList []json.RawMessage
	for i, r := range reqs {
		var body map[string]json.RawMessage
		if !decodeBody(t, i, r.Body, &body) {
			return
		}
		list, key := historyOf(body)
		if list == nil && key == "" {
			t.Errorf("llmtest: request %d: neither \"messages\" nor \"input\" is an array", i)
			return
		}
		if prev != nil {
			for _, k := range []string{"tools", "system", "instructions"} {
				if !sameIgnoringCache(prev[k], body[k]) {
					t.Errorf("llmtest: request %d: %q differs from request %d; the cached prefix is lost", i, k, i-1)
				}
			}
			if len(list) < len(prevList) {
				t.Errorf("llmtest: request %d: %s has %d elements, fewer than the %d of request %d", i, key, len(list), len(prevList), i-1)
			}
			for j := 0; j < len(prevList) && j < len(list); j++ {
				if !sameIgnoringCache(prevList[j], list[j]) {
					t.Errorf("llmtest: request %d: %s[%d] differs from request %d:\n  was %s\n  now %s", i, key, j, i-1, prevList[j], list[j])
					break
				}
			}
		}
		prev, prevList = body, list
	}
}

func historyOf(body map[string]json.RawMessage) ([]json.RawMessage, string) {
	for _, k := range []string{"messages", "input"} {
		raw, ok := body[k]
		if !ok {
			continue
		}
		var list []json.RawMessage
		if json.Unmarshal(raw, &list) == nil {
			return list, k
		}
	}
	return nil, ""
}

// sameIgnoringCache reports whether a and b are the same JSON, compacted,
// but for cache_control markers.
func sameIgnoringCache(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(StripCacheControl(ca.Bytes()), StripCacheControl(cb.Bytes()))
}

var cacheControlRe = regexp.MustCompile(`,"cache_control":\{[^{}]*\}|"cache_control":\{[^{}]*\},?`)

// StripCacheControl drops Anthropic's cache_control markers from compact
// JSON: they say where to cache, not what, and move from block to block
// between requests, so prefixes are compared without them.
func StripCacheControl(raw []byte) []byte {
	if !bytes.Contains(raw, []byte(`"cache_control"`)) {
		return raw
	}
	return cacheControlRe.ReplaceAll(raw, nil)
}
