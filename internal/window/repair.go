package window

import "github.com/godwit/godwit/llm"

// CancelledResult is the content given to a call that never got a result.
const CancelledResult = "CANCELLED: this call did not run to completion (the turn was interrupted)."

// Repair makes a history valid for every vendor: a tool result whose call
// is not in the assistant message just before it is dropped; a call
// without a result gets a cancelled one. It returns the repaired history
// and the messages it appended at the end (to persist), never mutating
// msgs.
func Repair(msgs []llm.Message) (fixed []llm.Message, added []llm.Message) {
	fixed = make([]llm.Message, 0, len(msgs))
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		switch m.Role {
		case llm.RoleTool:
			// Reached only when the previous message did not claim it:
			// every result here is an orphan.
			continue
		case llm.RoleAssistant:
			calls := m.ToolCalls()
			fixed = append(fixed, m)
			if len(calls) == 0 {
				continue
			}
			var results []llm.Part
			if i+1 < len(msgs) && msgs[i+1].Role == llm.RoleTool {
				results = msgs[i+1].Parts
				i++
			}
			answered := answer(calls, results)
			fixed = append(fixed, answered)
			if i == len(msgs)-1 && len(results) == 0 {
				added = append(added, answered)
			}
		default:
			fixed = append(fixed, m)
		}
	}
	return fixed, added
}

// answer returns a tool message with exactly one result per call, in call
// order: the existing result when there is one, a cancelled one otherwise.
func answer(calls []llm.ToolCall, results []llm.Part) llm.Message {
	byID := make(map[string]llm.Part, len(results))
	for _, p := range results {
		if p.Kind == llm.PartToolResult && p.ToolResult != nil {
			if _, dup := byID[p.ToolResult.CallID]; !dup {
				byID[p.ToolResult.CallID] = p
			}
		}
	}
	parts := make([]llm.Part, len(calls))
	for i, c := range calls {
		if p, ok := byID[c.ID]; ok {
			parts[i] = p
			continue
		}
		parts[i] = llm.Part{Kind: llm.PartToolResult, ToolResult: &llm.ToolResult{
			CallID: c.ID, Name: c.Name, Content: CancelledResult, IsError: true,
		}}
	}
	return llm.Message{Role: llm.RoleTool, Parts: parts}
}

// TrimLeadingResults drops messages from the front until the first user
// message, so that a history cut anywhere starts as vendors require.
func TrimLeadingResults(msgs []llm.Message) []llm.Message {
	for i, m := range msgs {
		if m.Role == llm.RoleUser {
			return msgs[i:]
		}
	}
	return nil
}
