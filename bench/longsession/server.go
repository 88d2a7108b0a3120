package main

import (
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/godwit/godwit/llm/llmtest"
)

// paths are the endpoints of the three wire formats.
var paths = map[string]string{
	fmtChat:      "/v1/chat/completions",
	fmtResponses: "/v1/responses",
	fmtAnthropic: "/v1/messages",
}

// captured is one request the endpoint received, as received.
type captured struct {
	proc   int // the turn process that sent it, from 0
	turn   int
	body   []byte
	req    request
	tokens int // billed input, o200k
	cached int // tokens of the prefix shared with the previous request
	// extends: it begins with every item of the previous request.
	extends bool
	// shown is the tokens of the tool outputs the model sees here for
	// the first time, as shown.
	shown int
	err   string
}

// sessionRun is the state of one session on one format while the bench drives
// it. The endpoint serves one run at a time.
type sessionRun struct {
	spec   spec
	format string
	turn   int
	proc   int
	calls  int // call ids handed out
	inProc int // requests from the current process
	// overLimit is called once when the current process passes the
	// request cap.
	overLimit func()
	reqs      []captured
	seen      map[string]bool // tool outputs shown, by call id
}

// endpoint is the fake provider: it records every request body byte for
// byte and answers with the scripted model, streamed in the vendor's
// format, with usage from the bench's own count and cache model.
type endpoint struct {
	tok         *counter
	maxRequests int
	srv         *llmtest.Server

	mu  sync.Mutex
	cur *sessionRun
}

func startEndpoint(tok *counter, maxRequests int) *endpoint {
	e := &endpoint{tok: tok, maxRequests: maxRequests}
	e.srv = llmtest.NewFuncServer(e.serve)
	return e
}

// begin makes r the run the endpoint serves; end stops serving it.
func (e *endpoint) begin(r *sessionRun) { e.mu.Lock(); e.cur = r; e.mu.Unlock() }
func (e *endpoint) end()                { e.mu.Lock(); e.cur = nil; e.mu.Unlock() }

// process starts counting the requests of a new turn process.
func (e *endpoint) process(turn, proc int, overLimit func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.cur.turn, e.cur.proc, e.cur.inProc, e.cur.overLimit = turn, proc, 0, overLimit
}

func (e *endpoint) serve(in llmtest.Captured) llmtest.Reply {
	e.mu.Lock()
	cur := e.cur
	if cur == nil || in.Path != paths[cur.format] {
		e.mu.Unlock()
		return errorReply(in.Path, "longsession: no run is in progress on "+in.Path)
	}
	format := cur.format
	c := captured{proc: cur.proc, turn: cur.turn, body: in.Body}
	var err error
	c.req, err = parseRequest(format, in.Body)
	if err != nil {
		c.err = err.Error()
	}
	for _, it := range c.req.items {
		c.tokens += e.tok.itemTokens(it)
	}
	if n := len(cur.reqs); n > 0 {
		c.cached, c.extends = e.sharedTokens(cur.reqs[n-1].req, c.req)
	}
	for _, en := range c.req.entries {
		if en.role == "tool" && !cur.seen[en.callID] {
			cur.seen[en.callID] = true
			c.shown += e.tok.count(en.text)
		}
	}
	cur.reqs = append(cur.reqs, c)
	cur.inProc++
	if cur.inProc > e.maxRequests {
		if cur.overLimit != nil {
			cur.overLimit()
			cur.overLimit = nil
		}
		e.mu.Unlock()
		return errorReply(in.Path, "longsession: request cap reached; the process is being stopped")
	}
	var rep reply
	if err == nil {
		rep = decide(cur.spec, cur.turn, c.req.entries)
	} else {
		rep = reply{text: "The request could not be read: " + err.Error()}
	}
	cur.calls++
	callID := fmt.Sprintf("call_%s%d_%04d", cur.spec.Name, cur.proc, cur.calls)
	e.mu.Unlock()
	return replyIn(format, rep, callID, int64(c.tokens), int64(c.cached))
}

// sharedTokens is the bench's cache model: the tokens of the longest run
// of leading items equal, byte for byte, in both requests; extends says
// whether that run is all of prev.
func (e *endpoint) sharedTokens(prev, cur request) (n int, extends bool) {
	for i := range min(len(prev.items), len(cur.items)) {
		if !prev.items[i].equal(cur.items[i]) {
			return n, false
		}
		n += e.tok.itemTokens(cur.items[i])
	}
	return n, len(cur.items) >= len(prev.items)
}

// replyIn streams rep in the vendor's format, reporting in input tokens
// of which cached were read from the cache.
func replyIn(format string, rep reply, callID string, in, cached int64) llmtest.Reply {
	out := int64(10)
	calls := rep.toolCalls()
	id := func(i int) string {
		if i == 0 {
			return callID
		}
		return fmt.Sprintf("%s_%d", callID, i)
	}
	switch format {
	case fmtChat:
		var events []string
		if rep.text != "" || len(calls) == 0 {
			events = append(events, llmtest.ChatText(rep.text))
		}
		for i, c := range calls {
			events = append(events, llmtest.ChatToolCallAt(i, id(i), c.tool, c.args))
		}
		if len(calls) > 0 {
			events = append(events, llmtest.ChatFinish("tool_calls"))
		} else {
			events = append(events, llmtest.ChatFinish("stop"))
		}
		return llmtest.ChatReply(append(events, llmtest.ChatUsageCached(in, out, cached))...)
	case fmtResponses:
		var ev []string
		if rep.text != "" || len(calls) == 0 {
			ev = append(ev, llmtest.ResponsesText(rep.text))
		}
		for i, c := range calls {
			ev = append(ev, llmtest.ResponsesFunctionCall(id(i), c.tool, c.args))
		}
		return llmtest.ResponsesReply(append(ev, llmtest.ResponsesCompletedCached(in, out, cached, 0))...)
	default:
		var parts []llmtest.AnthropicPart
		if rep.text != "" || len(calls) == 0 {
			parts = append(parts, llmtest.AnthropicText(rep.text))
		}
		for i, c := range calls {
			parts = append(parts, llmtest.AnthropicToolUse(strings.Replace(id(i), "call_", "toolu_", 1), c.tool, c.args))
		}
		return llmtest.AnthropicReply(append(parts, llmtest.AnthropicUsage(in-cached, out, cached, 0))...)
	}
}

// errorReply is a 400 with the error body of the vendor whose path was
// asked.
func errorReply(path, msg string) llmtest.Reply {
	if path == paths[fmtAnthropic] {
		return llmtest.AnthropicError(http.StatusBadRequest, "invalid_request_error", msg)
	}
	return llmtest.JSON(http.StatusBadRequest, fmt.Sprintf(`{"error":{"message":%q,"type":"invalid_request_error"}}`, msg))
}
