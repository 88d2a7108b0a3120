// Package subagent is the subagent tool: a read-only investigation in
// its own context, with its own step limit, that returns a condensed
// report. Each call is recorded as a child session (store.Session with
// ParentID), so it can be inspected like any other.
//
// The sub-agent gets a subset of the parent's tools, read-only ones by
// default (file_read, file_list, grep, recall); tools that write, the
// plan, tool_call and subagent itself are refused, so it can neither
// change the workspace nor start sub-agents. Every tool it gets is also
// guarded: a call that declares a write is denied. recall searches the
// parent's session, since that is the history worth searching.
//
// The caller (wiring) builds the child's agent.Runtime through
// Options.New, so this package needs no provider or window of its own.
//
// Of godwit's packages it imports only internal/agent, llm, internal/store
// and tool.
package subagent
