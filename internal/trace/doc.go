// Package trace reads back what the store recorded about one session and
// explains it: Analyze sums it up (calls, tokens, costs, re-reads, shell
// and test runs, phases), Transcript renders it as plain text for a
// review or another agent, and Handler serves a read-only web page of it
// that follows a live session.
//
// Load is the only code that reads a session's rows; everything else is
// pure functions over a *Trace, so the analysis is testable on data
// alone. Handler also asks the store for the session's stamp
// (store.SessionStamp), a few index lookups that tell an unchanged poll
// from a changed one before Load runs: what Load reads, the stamp must
// cover.
// Nothing here writes to the store, prints to stdout or reaches the
// network: Handler only answers the requests it is given.
//
// Of godwit's packages it imports only internal/agent, internal/digits,
// llm and internal/store. agent gives it the event payloads.
package trace
