// Package godwit embeds godwit's coding agent in a Go program: Open an
// Agent over a workspace, start or resume a Session, Send it a message
// and receive the turn's events as they happen.
//
// Experimental: this API may change in any release until godwit 1.0.
//
// The Agent is the same engine the godwit command runs (tools, context
// segments and handoffs, the SQLite record under Home), built from the
// same config and the same safety: by default it is read-only (the model
// reads and searches; writes and commands are refused); Options.Mode and
// a Prompter allow more, as the command's --allow-write and --yes do.
//
// Commands run sandboxed and supervised (nothing they start outlives the
// program) only when the program's main first calls
// tool/shell.MaybeSupervise and sandbox.MaybeRunChild, as godwit's does:
// both re-run the program's own executable.
//
// An Event marshals to the JSON `godwit run --json` prints; the Event*
// constants name the common types.
//
// Its types are its own, converted from the engine's at the boundary, or
// the public packages' (event, llm, tool), so a caller can name every
// field. It is a thin layer over internal/wiring. Of godwit's packages it
// imports only event, internal/agent, internal/wiring, llm,
// internal/mail, internal/policy, internal/store and tool.
package godwit
