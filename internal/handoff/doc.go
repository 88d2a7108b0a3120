// Package handoff builds the message that opens a new segment: seven
// sections in a fixed order (current task, coordinates, decisions,
// verification, progress and blockers, next step, references), each but
// Decisions trimmed to its byte budget.
//
// The Decisions section is the engine's ledger, not the model's: the
// user's messages are entered as said, and a model can only propose new
// entries or mark an entry superseded by a later user entry; no text in
// the ledger is ever rewritten. That is how a rule given in turn 1 is
// still there, verbatim, after any number of resets.
//
// Everything here is a pure function over strings and small structs,
// tested without a provider.
//
// Of godwit's packages it imports only llm and internal/untrusted.
package handoff
