package main

import (
	"fmt"
	"io"
	"net"
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

	mu  sync.Mutex
	cur *sessionRun
	srv *http.Server
	url string
}

func startEndpoint(tok *counter, maxRequests int) (*endpoint, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("starting the fake endpoint: %w", err)
	}
	e := &endpoint{tok: tok, maxRequests: maxRequests, url: "http://" + ln.Addr().String()}
	mux := http.NewServeMux()
	for format, path := range paths {
		mux.HandleFunc("POST "+path, func(w http.ResponseWriter, r *http.Request) { e.serve(w, r, format) })
	}
	e.srv = &http.Server{Handler: mux}
	go func() { _ = e.srv.Serve(ln) }()
	return e, nil
}

func (e *endpoint) close() { _ = e.srv.Close() }

// begin makes r the run the endpoint serves; end stops serving it.
func (e *endpoint) begin(r *sessionRun) { e.mu.Lock(); e.cur = r; e.mu.Unlock() }
func (e *endpoint) end()                { e.mu.Lock(); e.cur = nil; e.mu.Unlock() }

// process starts counting the requests of a new turn process.
func (e *endpoint) process(turn, proc int, overLimit func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.cur.turn, e.cur.proc, e.cur.inProc, e.cur.overLimit = turn, proc, 0, overLimit
}

func (e *endpoint) serve(w http.ResponseWriter, r *http.Request, format string) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	e.mu.Lock()
	cur := e.cur
	if cur == nil || cur.format != format {
		e.mu.Unlock()
		writeError(w, format, http.StatusBadRequest, fmt.Sprintf("longsession: no %s run is in progress", format))
		return
	}
	c := captured{proc: cur.proc, turn: cur.turn, body: body}
	c.req, err = parseRequest(format, body)
	if err != nil {
		c.err = err.Error()
	}
	for _, it := range c.req.items {
		c.tokens += e.tok.itemTokens(it)
	}
	if n := len(cur.reqs); n > 0 {
		c.cached = e.sharedTokens(cur.reqs[n-1].req, c.req)
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
		writeError(w, format, http.StatusBadRequest, "longsession: request cap reached; the process is being stopped")
		return
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
	writeReply(w, format, rep, callID, int64(c.tokens), int64(c.cached))
}

// sharedTokens is the bench's cache model: the tokens of the longest run
// of leading items equal, byte for byte, in both requests.
func (e *endpoint) sharedTokens(prev, cur request) int {
	n := 0
	for i := range min(len(prev.items), len(cur.items)) {
		if !prev.items[i].equal(cur.items[i]) {
			break
		}
		n += e.tok.itemTokens(cur.items[i])
	}
	return n
}

// writeReply streams rep in the vendor's format, reporting in input
// tokens of which cached were read from the cache.
func writeReply(w http.ResponseWriter, format string, rep reply, callID string, in, cached int64) {
	out := int64(10)
	var body string
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
		body = llmtest.ChatReply(append(events, llmtest.ChatUsageCached(in, out, cached))...).Body
	case fmtResponses:
		var ev []string
		if rep.text != "" || len(calls) == 0 {
			ev = append(ev, llmtest.ResponsesText(rep.text))
		}
		for i, c := range calls {
			ev = append(ev, llmtest.ResponsesFunctionCall(id(i), c.tool, c.args))
		}
		body = llmtest.ResponsesReply(append(ev, llmtest.ResponsesCompletedCached(in, out, cached, 0))...).Body
	case fmtAnthropic:
		var parts []llmtest.AnthropicPart
		if rep.text != "" || len(calls) == 0 {
			parts = append(parts, llmtest.AnthropicText(rep.text))
		}
		for i, c := range calls {
			parts = append(parts, llmtest.AnthropicToolUse(strings.Replace(id(i), "call_", "toolu_", 1), c.tool, c.args))
		}
		body = llmtest.AnthropicSSE(append(parts, llmtest.AnthropicUsage(in-cached, out, cached, 0))...)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, body)
}

// writeError answers with the vendor's error body.
func writeError(w http.ResponseWriter, format string, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if format == fmtAnthropic {
		fmt.Fprintf(w, `{"type":"error","error":{"type":"invalid_request_error","message":%q}}`, msg)
		return
	}
	fmt.Fprintf(w, `{"error":{"message":%q,"type":"invalid_request_error"}}`, msg)
}
