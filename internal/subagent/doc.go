// Package subagent is the subagent tool: a read-only investigation in
// its own context and step limit, recorded as a child session
// (store.Session with ParentID), that returns a condensed report.
//
// It gets read-only tools of the parent's (file_read, file_list, grep,
// recall by default); tools that write, the plan, tool_call and
// subagent itself are refused, and a call that declares a write is
// denied. recall searches the parent's session. Wiring builds the
// child's agent.Runtime through Options.New.
//
// Of godwit's packages it imports only internal/agent, llm, internal/store
// and tool.
package subagent
