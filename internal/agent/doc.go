// Package agent is godwit's turn loop. Runtime.Run takes one user message
// through assemble -> stream -> run tool calls -> append observations,
// until the model answers without tool calls, and reports every step as an
// Event to the run's own Sink (RunInput.Sink), so runs of several sessions
// proceed at once without routing. The store, the TUI, `run --json` and
// ACP all consume the same events.
//
// It defines the seams later layers fill: Assembler (the window package
// builds requests) and Sink. Of godwit's packages it imports only
// internal/handoff, llm, internal/store, tool, internal/untrusted and
// internal/window. It never writes to stdout or stderr.
package agent
