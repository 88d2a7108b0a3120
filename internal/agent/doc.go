// Package agent is godwit's turn loop. Runtime.Run takes one user message
// through assemble -> stream -> run tool calls -> append observations,
// until the model answers without tool calls, and reports every step as an
// Event to the run's own Sink (RunInput.Sink), so runs of several sessions
// proceed at once without routing. The store, the TUI, `run --json` and
// ACP all consume the same events.
//
// agent imports the core (llm, tool, store) and defines the seams later
// layers fill: Assembler (the window package builds requests), Sink.
// It must not import internal/*, tui, cli, eval or acp, and never writes to
// stdout or stderr.
package agent
