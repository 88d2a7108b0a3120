// Package window assembles each model request from a segment's history:
// the stable prefix (system prompt, project rules, memory, tool table,
// handoff) followed by the segment's messages, with the size of every part
// accounted for. It caps outputs over their share as they enter, keeps
// whole the outputs the turn in progress works with, pages the others
// the model has answered from once they pass the working set and paging
// costs less than keeping them, whatever the window, or when the window
// forces it (choose, a pure function of the outputs and their prices),
// and owns the history rules every vendor needs: every tool call has
// exactly one result, orphans are dropped or answered.
//
// What it decides (each segment's prefix, the pages, how each output is
// shown) it keeps through the Pages interface, so a later process builds
// the same requests byte for byte; wiring adapts the store to it and
// MemPages is the in-memory fake.
// Of godwit's packages it imports only internal/o200k, llm and
// internal/untrusted.
package window
