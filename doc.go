// Package godwit embeds godwit's coding agent in a Go program: Open an
// Agent over a workspace, start or resume a Session, Send it a message
// and receive the turn's events as they happen.
//
// Experimental: this API may change in any release until godwit 1.0.
//
// The Agent is the engine the godwit command runs, built from the same
// config with the same safety: read-only by default; Options.Mode and a
// Prompter allow more, as the command's --allow-write and --yes do.
// Commands run sandboxed and supervised only when the program's main
// first calls tool/shell.MaybeSupervise and sandbox.MaybeRunChild, as
// godwit's does: both re-run the program's own executable.
//
// Its types are its own or the public packages' (event, llm, tool), so
// a caller can name every field; an Event marshals to the JSON `godwit
// run --json` prints. Of godwit's packages it imports only event,
// internal/agent, internal/wiring, llm, internal/mail, internal/policy,
// internal/store and tool.
package godwit
