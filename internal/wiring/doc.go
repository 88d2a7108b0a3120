// Package wiring turns configuration into a working engine: it opens the
// store, builds the provider, the tools and the prompt, and assembles an
// agent.Runtime. The CLI, ACP and eval share it, so a session behaves the
// same whichever door it came in by.
//
// wiring may import the core and internal/config; it must not import
// internal/cli, tui, acp or eval.
package wiring
