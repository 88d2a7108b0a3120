package store

import (
	"context"
	"database/sql"
	"errors"
	"sync"
)

// maxPrepared bounds the statements a pool keeps prepared; past it they
// run unprepared rather than pile up.
const maxPrepared = 200

// db is a pool whose statements are prepared on their second use and
// kept: unprepared, SQLite parses each run (a tenth of a resident
// process's CPU), and a one-shot process runs most statements once. Its
// ExecContext, QueryContext and QueryRowContext take the place of
// *sql.DB's.
type db struct {
	*sql.DB
	mu    sync.Mutex
	stmts map[string]*sql.Stmt
	seen  map[string]bool // run once, unprepared
}

func newDB(d *sql.DB) *db { return &db{DB: d, stmts: map[string]*sql.Stmt{}, seen: map[string]bool{}} }

// lookup returns query's prepared statement, or nil.
func (d *db) lookup(query string) *sql.Stmt {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.stmts[query]
}

// prepared returns query's statement, preparing it on its second use,
// or nil: on the first use, or when the pool keeps maxPrepared already.
// The lock is not held while preparing, which waits for a connection
// the writer's transaction may hold.
func (d *db) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	if st := d.lookup(query); st != nil {
		return st, nil
	}
	d.mu.Lock()
	seen := d.seen[query]
	if !seen && len(d.seen) < 2*maxPrepared {
		d.seen[query] = true
	}
	full := len(d.stmts) >= maxPrepared
	d.mu.Unlock()
	if !seen || full {
		return nil, nil
	}
	st, err := d.DB.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if had := d.stmts[query]; had != nil { // another goroutine's won
		st.Close()
		return had, nil
	}
	d.stmts[query] = st
	return st, nil
}

func (d *db) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, err := d.prepared(ctx, query)
	if err != nil || st == nil {
		return d.DB.ExecContext(ctx, query, args...)
	}
	return st.ExecContext(ctx, args...)
}

func (d *db) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := d.prepared(ctx, query)
	if err != nil || st == nil {
		return d.DB.QueryContext(ctx, query, args...)
	}
	return st.QueryContext(ctx, args...)
}

func (d *db) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := d.prepared(ctx, query)
	if err != nil || st == nil {
		return d.DB.QueryRowContext(ctx, query, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

// Close closes the statements, then the pool.
func (d *db) Close() error {
	d.mu.Lock()
	var errs []error
	for q, st := range d.stmts {
		errs = append(errs, st.Close())
		delete(d.stmts, q)
	}
	clear(d.seen)
	d.mu.Unlock()
	return errors.Join(append(errs, d.DB.Close())...)
}

// txn is a write transaction that runs the writer's prepared statements.
// A statement not prepared yet runs unprepared, and counts as a use once
// the transaction has ended (prepared then, on its second): preparing
// needs the writer's one connection, which the transaction holds.
type txn struct {
	*sql.Tx
	db     *db
	missed []string
}

// stmt returns query's statement bound to the transaction, or nil.
func (t *txn) stmt(ctx context.Context, query string) *sql.Stmt {
	if st := t.db.lookup(query); st != nil {
		return t.Tx.StmtContext(ctx, st)
	}
	t.missed = append(t.missed, query)
	return nil
}

func (t *txn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := t.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return t.Tx.ExecContext(ctx, query, args...)
}

func (t *txn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := t.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return t.Tx.QueryContext(ctx, query, args...)
}

func (t *txn) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := t.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return t.Tx.QueryRowContext(ctx, query, args...)
}

// prepareMissed counts what the ended transaction ran unprepared as
// used, preparing those used before. A failure only leaves a statement
// unprepared: the next use tries again.
func (t *txn) prepareMissed(ctx context.Context) {
	for _, q := range t.missed {
		_, _ = t.db.prepared(ctx, q)
	}
	t.missed = nil
}
