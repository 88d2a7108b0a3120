// Package window assembles each model request from a segment's history:
// the stable prefix (system prompt, project rules, memory, tool table,
// handoff) followed by the segment's messages, with the size of every part
// accounted for. It also owns the history rules every vendor needs: every
// tool call has exactly one result, orphans are dropped or answered.
//
// Its functions over messages are pure and tested without a provider.
// window imports llm and store (for part statistics and pages); it must not
// import agent, tool runners, internal/* or any adapter.
package window
