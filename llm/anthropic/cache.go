package anthropic

// maxBreakpoints is the API's limit on cache_control markers per request.
const maxBreakpoints = 4

// placeCacheBreakpoints marks where Anthropic's prompt cache should store
// and look up prefixes. The API hashes the prompt in the order tools,
// system, messages, and a marker caches everything before and including its
// block. Within a godwit segment requests only grow by appending (the
// window package guarantees it), so each request's prefix is the previous
// request plus new messages. The markers, at most four:
//
//  1. The last tool: the tool table is the same in every segment, so it
//     stays cached when a new segment changes the system prompt (which
//     holds the handoff).
//  2. The last system block: tools plus system, fixed for the segment.
//  3. The newest message's last block: writes the conversation so far;
//     the next request, which extends it, reads it back.
//  4. The last block of the message the previous request ended with (the
//     one before the newest assistant turn): reads what request 3 wrote
//     last time, even when one round of parallel tool calls added more
//     blocks than the API's 20-block lookback from marker 3 reaches.
//
// Thinking blocks cannot carry a marker; the nearest earlier block does.
func placeCacheBreakpoints(p *request) {
	cc := &cacheControl{Type: "ephemeral"}
	used := 0
	if n := len(p.Tools); n > 0 {
		p.Tools[n-1].CacheControl = cc
		used++
	}
	if n := len(p.System); n > 0 {
		p.System[n-1].CacheControl = cc
		used++
	}
	n := len(p.Messages)
	if n == 0 {
		return
	}
	if markLastBlock(p.Messages[n-1], cc) {
		used++
	}
	if used >= maxBreakpoints || p.Messages[n-1].Role != "user" {
		return
	}
	for i := n - 2; i > 0; i-- {
		if p.Messages[i].Role == "assistant" {
			markLastBlock(p.Messages[i-1], cc)
			return
		}
	}
}

// markLastBlock sets cc on the last block of m that can carry it.
func markLastBlock(m message, cc *cacheControl) bool {
	for i := len(m.Content) - 1; i >= 0; i-- {
		switch m.Content[i].Type {
		case "text", "image", "tool_use", "tool_result":
			m.Content[i].CacheControl = cc
			return true
		}
	}
	return false
}
