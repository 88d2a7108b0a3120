// Package agent is godwit's turn loop. Runtime.Run takes one user message
// through assemble -> stream -> run tool calls -> append observations,
// until the model answers without tool calls, and reports every step as an
// Event to the run's own Sink (RunInput.Sink), so runs of several sessions
// proceed at once without routing. The store, the TUI, `run --json` and
// ACP all consume the same events.
//
// agent declares what it uses and wiring fills it: Store, its view of the
// record (*store.Store implements it), Assembler (the window builds
// requests and says its budget and counter), Sink. It never writes to
// stdout or stderr. Of godwit's packages it imports only event, internal/handoff,
// llm, internal/store, tool, internal/untrusted and internal/window.
package agent
