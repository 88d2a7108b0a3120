// Package tui is godwit's chat: a terminal UI (bubbletea v2, lipgloss v2)
// over the agent's event stream, and the chat commands
// (/help, /context, /reset, /clear, /undo, /model, /mode, /cost,
// /sessions, /resume, /plan, /export, /init, /quit, a skill by its name;
// ":" works as "/" does) that the line-oriented chat shares. An unknown
// command is never sent to the model; "//x" sends "/x", and a line whose
// first word is a path is a prompt. What the user runs without the model
// (!CMD, the files a message names with @path) goes through the engine's
// runner (user.go).
//
// # Pieces
//
// A Controller holds what outlives the screen: the engine, the session id,
// a pending /reset, the approval mode (a ModeSwitch the engine reads at
// every call, so /mode and Shift-Tab hold from the next call), and the
// figures the status line shows (from the
// model.request and model.response events it observes). Commands run on
// it and return text, so the terminal UI and the plain line mode (used
// when stdout is not a terminal) behave alike.
//
// A Bridge connects the agent's goroutines to the UI's: it is the
// agent.Sink and the approval Prompter, and it never blocks the turn loop
// (see bridge.go for what is merged and what is kept).
//
// The Model is the bubbletea model: a transcript of items (user
// messages, streamed markdown, folded thinking, one line per tool call
// with expandable output and diff, inline approval prompts, notices), a
// status line and a multi-line input with history, completion (the menu
// of complete.go) and a queue of what is sent during a turn. A key
// answers a question only once the terminal has drawn it (guard.go). It renders only what
// is visible and caches each item's lines per width, so a 2,000-message
// session or a 50,000-line tool output costs no more per frame than a
// screenful.
//
// Answers are markdown: goldmark parses, markdown.go draws the tree and
// highlight.go colours code blocks.
//
// Text that godwit did not write goes through internal/termsafe on its
// way to the screen (docs/architecture.md, "The terminal").
//
// Of godwit's packages it imports only internal/agent, internal/digits,
// llm, internal/policy, internal/snapshot, internal/store,
// internal/termsafe, internal/tool/plan and internal/atomicfile. The CLI
// builds the engine and hands it over as an Engine.
package tui
