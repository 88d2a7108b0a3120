// Package wiring turns configuration into a working engine: it opens the
// store, builds the provider, the tools and the prompt, and assembles an
// agent.Runtime. The CLI, ACP and eval share it, so a session behaves the
// same whichever door it came in by.
//
// Build is a sequence of steps, one a file by idea: the model
// (provider.go), the store, the guard and sandbox (safety.go), the
// shells, memory and tools (tools.go), MCP and deferred tools
// (extensions.go), then the window and the runtime (wiring.go).
//
// Of godwit's packages it imports only internal/agent, llm, llm/anthropic,
// llm/catalog, llm/openai, llm/retry, internal/prompt, internal/store,
// tool, internal/tool/fs, internal/tool/plan, internal/tool/recall,
// internal/tool/shell, internal/tool/workspace, internal/window,
// internal/config, internal/suggest, internal/memory, internal/policy,
// internal/sandbox, internal/snapshot, internal/gitguard, internal/mcp,
// internal/subagent, internal/tool/deferred and internal/mail.
package wiring
