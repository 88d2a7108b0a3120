// Package deferred keeps rarely used tools (MCP tools, subagent,
// search_memory, ...) out of the tool table: they are listed one line
// each in the system prompt and called through the resident tool_call
// proxy. A deferred tool the model has called joins the real table at
// the next segment of that session, so the table, part of the cached
// prefix, never changes within a segment.
//
// Split and Listing are the pure parts: which tools stay resident, and
// the listing's text. Table holds the tools and, per session, which
// deferred tools were used; the window asks it once per segment for the
// table and the listing. Proxy is the tool_call tool.
//
// Modes (config tools.deferred): off keeps every tool resident; on
// defers every deferrable tool; auto defers them only when that saves at
// least AutoMin tokens per request.
//
// Of godwit's packages it imports only llm and tool.
package deferred
