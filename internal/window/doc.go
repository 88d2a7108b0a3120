// Package window assembles each model request from a segment's history:
// the stable prefix (system prompt, project rules, memory, tool table,
// handoff) then the segment's messages, every part measured. It caps
// outputs over their share as they enter, pages the outputs the model
// has answered from once they pass the working set or the window forces
// it (choose), and keeps the history valid for every vendor (Repair).
//
// What it decides it keeps through Pages, so a later process builds the
// same requests byte for byte; wiring adapts the store to it and
// MemPages is the in-memory fake.
//
// Of godwit's packages it imports only internal/o200k, llm and
// internal/untrusted.
package window
