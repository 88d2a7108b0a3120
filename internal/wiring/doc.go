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
// wiring may import the core and internal/config; it must not import
// internal/cli, tui, acp or eval.
package wiring
