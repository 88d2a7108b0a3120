// Package acp serves godwit to editors over the Agent Client Protocol
// (https://agentclientprotocol.com), JSON-RPC on stdio, with
// github.com/coder/acp-go-sdk.
//
// Serve answers initialize, session/new, session/load (the stored
// history replayed as session/update notifications), session/prompt,
// session/cancel, session/set_mode and session/close. A prompt runs one
// agent turn; its events stream out as session/update notifications:
// text and thinking deltas as agent_message_chunk and
// agent_thought_chunk, tool calls as tool_call and tool_call_update (with
// a kind, the paths as locations, diffs for file edits, the editor's
// terminal for commands when it offers one), the plan tool's steps as
// a plan, and after each model call a usage_update (the context in use
// against the window, the session's cost). session/load replays the plan
// updates too, and ends with the session's usage.
//
// Calls are judged by godwit's policy, not by the editor: Build puts the
// same policy as `godwit run` (rules, the secrets screen, the read-only
// commands, the workspace boundary, the sandbox) in the session's mode,
// read at every call so that session/set_mode takes effect from the next
// one (EngineRequest.Mode). The session is the policy's Prompter: it
// asks the user with session/request_permission only where the policy
// would ask a person, and maps "allow always" to the policy's
// session-scoped Always. A gate in front of the policy
// (EngineRequest.Gate) shows each call as a pending tool_call before it
// is judged, so the question can name the call.
//
// When the client can read and write files (fs/read_text_file,
// fs/write_text_file), the file tools go through the editor, so they see
// unsaved buffers; when it offers terminals, foreground shell commands
// run in them, as godwit's sandbox wrapper (tool/shell applies the
// sandbox before the terminal gets the command line).
//
// The engine of each session is built by Options.Build (internal/cli
// uses internal/wiring). Each turn passes the session as its own sink
// (agent.RunInput.Sink), so sessions' turns run at once; the engine stays
// per session because it is built around the session: its cwd, mode,
// prompter and gate, the editor's files and terminal for its id, and its
// plan.
//
// Of godwit's packages it imports only internal/agent, llm,
// internal/policy, internal/store, tool, internal/tool/fs,
// internal/tool/plan, internal/tool/shell and internal/atomicfile. It
// writes nothing but protocol messages to its output; diagnostics go to
// Options.Logger.
package acp
