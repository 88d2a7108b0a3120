// Package agent is godwit's turn loop. Runtime.Run takes one user message
// through assemble -> stream -> run tool calls -> append observations,
// until the model answers without tool calls, and reports every step as an
// Event to the run's own Sink (RunInput.Sink), so runs of several sessions
// proceed at once without routing. The store, the TUI, `run --json` and
// ACP all consume the same events.
//
// agent declares what it uses and wiring fills it: Store, its view of
// the record (*store.Store implements it), Assembler (the window builds
// requests and says its budget and counter), Sink. It imports llm, tool,
// store's types, window, handoff and untrusted; never the layers above
// it (mail, wiring, cli, tui, acp, eval), and it never writes to stdout
// or stderr.
package agent
