// Package store keeps everything godwit records in one SQLite file
// (modernc.org/sqlite, no cgo): sessions, segments and their handoffs,
// turns, messages, model and tool calls, events, pages of paged-out
// context, verify runs, file snapshots, the process groups of shell
// commands, mail between sessions with its receipts and residents, and
// eval results (written only by internal/eval), with FTS5 indexes over
// pages, messages, handoffs and tool outputs. Each tool output is stored
// once per session (outputs, deflated when long): the tool call, the
// tool message, the page and the tool.finished event refer to it, and
// every reader gets the text back where it was. The schema lives in
// migrations/*.sql (embedded, numbered, applied in order, each in one
// transaction, tracked by PRAGMA user_version); every statement is a
// constant in queries.go but the PRAGMAs (TestStatementsLiveInQueriesGo).
//
// Of godwit's packages it imports only llm. The store is the bottom of the
// stack.
//
// # Concurrency
//
// A *Store is safe for concurrent use. Writes go through one connection,
// so they are serialized in this process; reads use a pool of read-only
// connections and run in parallel with each other and with the writer
// (WAL mode); a read sees every write that returned before it started.
// The engine's own reads between its writes (the ledger, compactions,
// memory entries at a segment's start) go through the writer: the pool
// connects on first use, so a one-shot run opens one connection and
// parses the schema once. Each pool keeps the statements it has run
// prepared (prepared.go). Several processes may open the same file:
// SQLite's file locks order their writes and busy_timeout (5 s) makes a
// writer wait rather than fail. Close must not race with other calls.
//
// # Durability
//
// Every write method is one committed transaction by the time it returns,
// so a process killed at any moment loses at most the write in flight and
// the file stays consistent. synchronous=NORMAL in WAL mode is safe
// against process death; only an OS crash or power loss can roll back the
// last few commits. Turns left "running" by a killed process are closed
// with MarkInterrupted when the session is resumed. Writes interrupted by
// their context commit nothing; a caller that must record a cancellation
// should use context.WithoutCancel.
//
// # Units
//
// Times are stored as Unix milliseconds and come back in UTC, truncated to
// the millisecond; durations are stored in microseconds. A zero time is
// stored as NULL and comes back zero. A zero TurnID means "no turn".
package store
