// Package store keeps everything godwit records in one SQLite file
// (modernc.org/sqlite, no cgo): sessions, segments and their handoffs,
// turns, messages, model calls, tool calls, events, pages of paged-out
// context, verify runs, file snapshots, the process groups of shell
// commands (so a later process can end what a dead one left), and mail
// between sessions with its receipts and residents (mail.go), with FTS5
// indexes over pages, messages, handoffs and tool outputs. Each tool
// output is stored once per session (outputs, deflated when long): the
// tool call, the tool message, the page and the tool.finished event
// refer to it, and every reader gets the text back where it was. The
// schema lives in migrations/*.sql (embedded, numbered, applied in order, each in one transaction, tracked by
// PRAGMA user_version); every statement is a constant in queries.go,
// but the PRAGMAs and two built at run time
// (TestStatementsLiveInQueriesGo).
//
// Of godwit's packages it imports only llm. The store is the bottom of the
// stack.
//
// The eval tables (eval_results, eval_verdicts: eval.go) live here though
// only internal/eval writes them: rows of plain values in the same file,
// under the same migrations, as the sessions they may name.
//
// # Concurrency
//
// A *Store is safe for concurrent use: every method may be called from
// any number of goroutines at once. Writes go through one connection
// (a *sql.DB limited to one open connection), so they are serialized in
// this process and each waits for the one before it; every write is
// small, so the wait is short. Reads use a separate pool of read-only
// connections and run in parallel with each other and with the writer
// (WAL mode); a read sees every write that returned before it started.
// The engine's own reads between its writes (the ledger, compactions,
// memory entries at a segment's start) go through the writer instead:
// they are small, and the pool connects on first use, so a one-shot run
// opens one connection and parses the schema once. Each pool keeps the
// statements it has run prepared (prepared.go), so SQLite parses each
// once per connection, not on every run; Close closes them.
// Several processes may open the same file (a running session and an
// inspector, two sessions in two terminals): SQLite's file locks order
// their writes and busy_timeout (5 s) makes a writer wait rather than fail.
// Close must not race with other calls.
//
// # Durability
//
// Every write method is one committed transaction by the time it returns
// (a message and its index entry, say, commit together or not at all).
// So a process killed at any moment (SIGKILL, a crash, Ctrl-C) loses at
// most the write in flight, and the file stays consistent. The database
// runs with synchronous=NORMAL in WAL mode: that is fully safe against
// process death; only an OS crash or power loss can roll back the last
// few commits (never corrupt the file). Turns left "running" by a killed
// process are closed with MarkInterrupted when the session is resumed.
//
// Writes interrupted by their context fail and commit nothing; a caller
// that must record a cancellation should use context.WithoutCancel.
//
// # Units
//
// Times are stored as Unix milliseconds and come back in UTC, truncated to
// the millisecond; durations are stored in microseconds. A zero time is
// stored as NULL and comes back zero. A zero TurnID means "no turn".
package store
