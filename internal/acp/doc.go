// Package acp serves godwit to editors over the Agent Client Protocol
// (https://agentclientprotocol.com), JSON-RPC on stdio, with
// github.com/coder/acp-go-sdk.
//
// Serve answers initialize, session/new, session/load (the stored history
// and plan replayed as session/update notifications, then the session's
// usage), session/prompt, session/cancel, session/set_mode and
// session/close. A prompt runs one agent turn whose events stream out as
// session/update notifications: message and thought chunks, tool calls
// and their updates (kind, locations, diffs, the editor's terminal), the
// plan, and after each model call a usage_update.
//
// Calls are judged by godwit's policy, not by the editor: the engine
// Options.Build makes for a session has the same policy as `godwit run`,
// in the session's mode, read at every call so that session/set_mode
// takes effect from the next one. The session is the policy's Prompter:
// it asks with session/request_permission only where the policy would ask
// a person, and maps "allow always" to the policy's session-scoped
// Always. A gate in front of the policy shows each call as a pending
// tool_call before it is judged, so the question can name the call.
//
// When the client can read and write files, the file tools go through the
// editor (they see unsaved buffers); when it offers terminals, foreground
// shell commands run in them, inside godwit's sandbox wrapper.
//
// Each session has its own engine, built around it (cwd, mode, prompter,
// gate, the editor's files and terminal, plan), and is its turns' sink,
// so sessions' turns run at once.
//
// Of godwit's packages it imports only internal/agent, llm,
// internal/policy, internal/store, tool, internal/tool/fs,
// internal/tool/plan and internal/tool/shell. It writes nothing but protocol messages to its output; diagnostics go to
// Options.Logger.
package acp
