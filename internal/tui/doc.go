// Package tui is godwit's chat: a terminal UI (bubbletea v2, lipgloss v2)
// over the agent's event stream, and the chat commands (/help lists
// them; ":" works as "/" does) that the line-oriented chat shares. An
// unknown command is never sent to the model; "//x" sends "/x", and a
// line whose first word is a path is a prompt. What the user runs
// without the model (!CMD, @path) goes through the engine's runner.
//
// A Controller holds what outlives the screen (the engine, the session,
// the approval mode as a ModeSwitch the engine reads at every call, the
// status figures); commands run on it and return text, so the terminal
// UI and the line mode behave alike. A Bridge is the agent.Sink and the
// approval Prompter and never blocks the turn loop. The Model is the
// bubbletea model: a transcript that renders only what is visible and
// caches each item's lines per width, a status line and an input. A key
// answers a question only once the terminal has drawn it (guard.go).
// Answers are markdown: goldmark parses, markdown.go draws the tree and
// highlight.go colours code blocks. Text godwit did not write goes
// through internal/termsafe on its way to the screen.
//
// Of godwit's packages it imports only internal/agent, internal/digits,
// llm, internal/policy, internal/snapshot, internal/store,
// internal/termsafe, internal/tool/plan and internal/atomicfile. The CLI
// builds the engine and hands it over as an Engine.
package tui
