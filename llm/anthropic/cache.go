package anthropic

// maxBreakpoints is the API's limit on cache_control markers per request.
const maxBreakpoints = 4

// placeCacheBreakpoints marks where Anthropic's prompt cache stores and
// looks up prefixes (tools, system, messages; a marker caches everything
// up to its block). Within a segment requests only grow, so the markers,
// at most four, are:
//
//  1. The last tool: the tool table outlives a segment's system prompt.
//  2. The last system block: fixed for the segment.
//  3. The newest message's last block: written now, read next request.
//  4. The last block of the message the previous request ended with:
//     reads what marker 3 wrote even past the API's 20-block lookback.
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
