// Package store owns the one SQLite file godwit records in
// (modernc.org/sqlite, no cgo): sessions and everything they did, mail
// between them, long-term memory and eval results, with FTS5 indexes
// over pages, messages, handoffs and tool outputs. Each tool output is
// stored once per session and every reader gets its text back where it
// was. The schema is migrations/*.sql (embedded, numbered, each applied
// in one transaction, tracked by PRAGMA user_version); every statement is
// a constant in queries.go but the PRAGMAs (TestStatementsLiveInQueriesGo).
// Of godwit's packages it imports only llm.
//
// Concurrency: a *Store is safe for concurrent use, but Close must not
// race with other calls. Writes go through one connection; reads use a
// pool of read-only connections in parallel with the writer (WAL), and a
// read sees every write that returned before it started. The engine's
// reads between its own writes go through the writer. Several processes
// may open one file: SQLite's locks order their writes, and a writer
// waits up to 5 s (busy_timeout) rather than fail.
//
// Durability: every write method is one committed transaction by the time
// it returns, so a process killed at any moment loses at most the write
// in flight and the file stays consistent (synchronous=NORMAL: only an OS
// crash can roll back the last few commits). Turns left "running" by a
// killed process are closed with MarkInterrupted. A write interrupted by
// its context commits nothing; record a cancellation with
// context.WithoutCancel.
//
// Units: times are Unix milliseconds and come back in UTC, truncated to
// the millisecond; durations are microseconds; a zero time is stored as
// NULL and comes back zero. A zero TurnID means "no turn".
package store
