// Package tool defines what a tool is (the Tool interface), how tools fail
// (ToolError: a code and a remedy the model can act on), the Registry of
// tools offered to the model, the Approver gate, and the Runner that
// executes the tool calls of one model response in parallel under locks.
//
// Built-in tools live in internal/tool/fs, internal/tool/shell and the
// other packages under internal/tool. Of godwit's packages it imports only
// llm.
package tool
