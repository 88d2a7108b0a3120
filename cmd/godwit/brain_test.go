package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/o200k"
	"github.com/godwit/godwit/llm/llmtest"
)

// dayBrain is a scripted model behind a Chat Completions endpoint that
// answers from what each request holds, not from a fixed list, so a
// session can run as long as a test likes and survive context resets,
// handoffs and end-of-turn checks in any order. It reads the request in
// progress (the newest user message that is not godwit's own, or the
// handoff that restates it) and acts on its words:
//
//	read NAME      file_read NAME unless it was read since, then answer
//	write NAME     file_write NAME, then answer
//	run CMD;       shell_exec CMD, then answer
//	slowly         stream a long answer slowly (Ctrl-C tests)
//
// Every answer names the tag [tNN] of the request, so the test knows which
// turn ended. A handoff request gets "ok": a useless handoff, the engine
// must write its own. Usage is the brain's own o200k count of what it
// received, and the cached part is the prefix shared with the previous
// request, so the chat's counters can be checked against it.
type dayBrain struct {
	t   *testing.T
	srv *httptest.Server

	mu    sync.Mutex
	reqs  []brainReq
	calls int
}

// brainReq is one request as received.
type brainReq struct {
	body   []byte
	msgs   []brainMsg
	items  [][]byte // cacheItems of the body
	tokens int      // o200k count of the items, as the brain bills it
	cached int      // tokens of the leading items equal to the previous request's
	// handoff: the request asked for a handoff.
	handoff bool
}

type brainMsg struct {
	Role      string `json:"role"`
	Content   any    `json:"content"`
	ToolCalls []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	ToolCallID string `json:"tool_call_id"`
}

// text is the message's content as one string (a string, or text parts).
func (m brainMsg) text() string {
	switch c := m.Content.(type) {
	case string:
		return c
	case []any:
		var b strings.Builder
		for _, p := range c {
			if pm, ok := p.(map[string]any); ok {
				if s, ok := pm["text"].(string); ok {
					b.WriteString(s)
				}
			}
		}
		return b.String()
	}
	return ""
}

func newDayBrain(t *testing.T) *dayBrain {
	t.Helper()
	b := &dayBrain{t: t}
	b.srv = httptest.NewServer(http.HandlerFunc(b.serve))
	t.Cleanup(b.srv.Close)
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		// What the model saw last, to tell a model's loop from godwit's.
		reqs := b.requests()
		for i := max(0, len(reqs)-3); i < len(reqs); i++ {
			msgs := reqs[i].msgs
			for j := max(0, len(msgs)-3); j < len(msgs); j++ {
				t.Logf("request %d message %d (%s): %.600s", i, j, msgs[j].Role, msgs[j].text())
			}
		}
	})
	return b
}

func (b *dayBrain) URL() string { return b.srv.URL }

// requests returns a copy of what was received.
func (b *dayBrain) requests() []brainReq {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]brainReq(nil), b.reqs...)
}

// captured is the requests in llmtest's form, for its invariant checks.
func (b *dayBrain) captured() []llmtest.Captured {
	var out []llmtest.Captured
	for _, r := range b.requests() {
		out = append(out, llmtest.Captured{Method: "POST", Body: r.body})
	}
	return out
}

// brainTokens is what a provider bills for each item, as the bench
// counts it: the o200k tokens of the text it carries (strings decoded,
// wire bookkeeping left out; the tool table's keys count, as its schemas
// are shown to the model), plus 4 of framing.
func brainTokens(items [][]byte) []int {
	out := make([]int, len(items))
	for i, it := range items {
		var v any
		if json.Unmarshal(it, &v) != nil {
			out[i] = o200k.Count(string(it))
			continue
		}
		var b strings.Builder
		itemText(&b, v, "", i == 0)
		out[i] = o200k.Count(b.String()) + 4
	}
	return out
}

var bookkeeping = map[string]bool{"type": true, "role": true, "id": true, "tool_call_id": true}

func itemText(b *strings.Builder, v any, key string, keys bool) {
	switch x := v.(type) {
	case string:
		if !bookkeeping[key] {
			b.WriteString(x)
			b.WriteByte('\n')
		}
	case float64:
		fmt.Fprintf(b, "%v\n", x)
	case []any:
		for _, e := range x {
			itemText(b, e, key, keys)
		}
	case map[string]any:
		names := make([]string, 0, len(x))
		for k := range x {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			if keys {
				b.WriteString(k + ": ")
			}
			itemText(b, x[k], k, keys)
		}
	}
}

const handoffAskPrefix = "[godwit: the context window is full"

var (
	tagRe   = regexp.MustCompile(`\[t\d+\]`)
	readRe  = regexp.MustCompile(`\bread (\S+\.(?:txt|log|go))`)
	writeRe = regexp.MustCompile(`\bwrite (\S+\.txt)`)
	runRe   = regexp.MustCompile(`\brun ([^;]+);`)
)

func (b *dayBrain) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var top struct {
		Messages []brainMsg `json:"messages"`
	}
	if err := json.Unmarshal(body, &top); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	items := cacheItems(b.t, "openai-chat", body)
	toks := brainTokens(items)
	req := brainReq{body: body, msgs: top.Messages, items: items}
	for _, n := range toks {
		req.tokens += n
	}
	b.mu.Lock()
	if n := len(b.reqs); n > 0 {
		prev := b.reqs[n-1].items
		for i := 0; i < len(prev) && i < len(items) && bytes.Equal(prev[i], items[i]); i++ {
			req.cached += toks[i]
		}
	}
	last := top.Messages[len(top.Messages)-1]
	req.handoff = last.Role == "user" && strings.HasPrefix(strings.TrimSpace(last.text()), handoffAskPrefix)
	b.reqs = append(b.reqs, req)
	b.calls++
	callID := fmt.Sprintf("call_%d", b.calls)
	b.mu.Unlock()

	usage := llmtest.ChatUsageCached(int64(req.tokens), 9, int64(req.cached))
	w.Header().Set("Content-Type", "text/event-stream")
	reply := func(events ...string) {
		_, _ = io.WriteString(w, strings.Join(events, "")+llmtest.ChatDone)
	}
	text := func(s string) { reply(llmtest.ChatText(s), llmtest.ChatFinish("stop"), usage) }
	call := func(name, args string) {
		reply(llmtest.ChatToolCall(callID, name, args), llmtest.ChatFinish("tool_calls"), usage)
	}
	if req.handoff {
		text("ok")
		return
	}
	at, asked := inProgressAt(top.Messages)
	lastText := strings.TrimSpace(last.text())
	if last.Role == "user" && strings.HasPrefix(lastText, "[godwit") && !strings.HasPrefix(lastText, "[godwit handoff") && at != len(top.Messages)-1 {
		text("Done: nothing more to check. " + lastTag(asked))
		return
	}
	tag := lastTag(asked)
	switch {
	case strings.Contains(asked, "slowly"):
		f, _ := w.(http.Flusher)
		for i := 0; i < 40; i++ {
			_, _ = io.WriteString(w, llmtest.ChatText("slowly "))
			if f != nil {
				f.Flush()
			}
			select {
			case <-r.Context().Done():
				return
			case <-time.After(150 * time.Millisecond):
			}
		}
		text(" " + tag)
		return
	}
	for _, m := range readRe.FindAllStringSubmatch(asked, -1) {
		if !calledSince(top.Messages, at, "file_read", m[1]) {
			call("file_read", `{"path": "`+m[1]+`"}`)
			return
		}
	}
	for _, m := range writeRe.FindAllStringSubmatch(asked, -1) {
		if !calledSince(top.Messages, at, "file_write", m[1]) {
			call("file_write", fmt.Sprintf(`{"path": %q, "content": "written at %s\n"}`, m[1], strings.Trim(tag, "[]")))
			return
		}
	}
	for _, m := range runRe.FindAllStringSubmatch(asked, -1) {
		if !calledSince(top.Messages, at, "shell_exec", m[1]) {
			call("shell_exec", fmt.Sprintf(`{"command": %q}`, m[1]))
			return
		}
	}
	text("answer " + tag + ": done as asked.")
}

// inProgressAt is the index and text of the request in progress: the
// newest user message that is the user's own words or a handoff.
func inProgressAt(msgs []brainMsg) (int, string) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != "user" {
			continue
		}
		t := strings.TrimSpace(msgs[i].text())
		if strings.HasPrefix(t, "[godwit") && !strings.HasPrefix(t, "[godwit handoff") && !strings.HasPrefix(t, "[godwit note") {
			continue
		}
		if strings.HasPrefix(t, "[godwit handoff") {
			// The request in progress is the task section; the rest
			// (decisions, earlier requests) is memory, not work.
			if _, task, ok := strings.Cut(t, "## Current task\n"); ok {
				task, _, _ = strings.Cut(task, "\n## ")
				return i, task
			}
		}
		return i, t
	}
	return -1, ""
}

func lastTag(s string) string {
	tags := tagRe.FindAllString(s, -1)
	if len(tags) == 0 {
		return "[t?]"
	}
	return tags[len(tags)-1]
}

// calledSince reports whether the model called tool on arg (a path or a
// command, found in its arguments) after message at and got an answer.
func calledSince(msgs []brainMsg, at int, tool, arg string) bool {
	ids := map[string]bool{}
	for _, m := range msgs[at+1:] {
		for _, c := range m.ToolCalls {
			if c.Function.Name == tool && strings.Contains(c.Function.Arguments, arg) {
				ids[c.ID] = true
			}
		}
		if m.Role == "tool" && ids[m.ToolCallID] {
			return true
		}
	}
	return false
}
