package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrNotFound matches (errors.Is) the error for a session, turn, segment
// or page that does not exist.
var ErrNotFound = errors.New("store: not found")

// ErrAmbiguous matches (errors.Is) the error for a session id prefix that
// matches more than one session.
var ErrAmbiguous = errors.New("store: ambiguous id prefix")

// lookupError is a miss or an ambiguity, worded for whoever asked; it
// matches its sentinel without repeating the sentinel's text.
type lookupError struct {
	msg  string
	kind error // ErrNotFound or ErrAmbiguous
}

func (e *lookupError) Error() string        { return e.msg }
func (e *lookupError) Is(target error) bool { return target == e.kind }

func notFound(format string, args ...any) error {
	return &lookupError{msg: "store: " + fmt.Sprintf(format, args...), kind: ErrNotFound}
}

//go:embed migrations/*.sql
var migrationFS embed.FS

// readers bounds the read pool: enough for an inspector and a live session
// to read at once without holding many idle connections.
const readers = 4

// Store is godwit's database. See the package doc for the concurrency
// contract.
type Store struct {
	w   *db // the one writer
	r   *db // read-only pool
	now func() time.Time
	log *slog.Logger

	// watch is one read connection of its own for Watch (store/mail.go),
	// opened on first use: pinning pool connections would starve reads.
	path    string
	watchMu sync.Mutex
	watch   *db
}

// Option configures Open.
type Option func(*Store)

// WithClock sets the clock used for every time the store stamps itself
// (default time.Now).
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// WithLogger sets the logger for migrations and close-time maintenance
// (default: discard).
func WithLogger(l *slog.Logger) Option { return func(s *Store) { s.log = l } }

// Open opens the database at path, creating it and its parent directory
// (mode 0700) if needed, and applies any pending migrations.
func Open(ctx context.Context, path string, opts ...Option) (*Store, error) {
	if path == "" {
		return nil, errors.New("store: empty database path; pass a file under $GODWIT_HOME")
	}
	if strings.Contains(path, "?") {
		return nil, fmt.Errorf("store: database path %q contains '?', which the driver reads as options; choose a directory without it", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("store: create database directory: %w", err)
	}
	s := &Store{now: time.Now, log: slog.New(slog.DiscardHandler), path: path}
	for _, o := range opts {
		o(s)
	}

	// busy_timeout comes first (the driver orders it so): switching to WAL
	// needs a lock another process may hold. _txlock=immediate takes the
	// write lock at BEGIN, so a transaction never fails upgrading from a
	// stale read snapshot.
	common := "?_pragma=busy_timeout(5000)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)"
	s.w = pool(path+common+"&_pragma=journal_mode(WAL)&_txlock=immediate", 1)
	if err := s.migrate(ctx); err != nil {
		s.w.Close()
		// wrap says what to do about a full disk, a read-only folder, a
		// lock held too long or a damaged file.
		return nil, wrap("open "+path, err)
	}
	// The pool connects on first read: each connection parses the whole
	// schema (~1-2 ms), which a one-shot run that never reads need not pay.
	s.r = pool(path+common+"&_pragma=query_only(1)", readers)
	return s, nil
}

// pool is a pool of up to n connections to dsn, kept open; it connects
// on first use.
func pool(dsn string, n int) *db {
	d, _ := sql.Open("sqlite", dsn) // fails only for an unknown driver
	d.SetMaxOpenConns(n)
	d.SetMaxIdleConns(n)
	return newDB(d)
}

// Close runs SQLite's optimizer and closes both pools. Closing the last
// connection checkpoints the WAL into the main file. The optimizer's
// analysis is bounded (analysis_limit), as SQLite advises for short-lived
// connections: unbounded, it cost a one-shot run 110-180 ms.
func (s *Store) Close() error {
	if _, err := s.w.Exec("PRAGMA analysis_limit=200; PRAGMA optimize"); err != nil {
		s.log.Debug("store: optimize", "err", err)
	}
	var cerr error
	s.watchMu.Lock()
	if s.watch != nil {
		cerr = s.watch.Close()
	}
	s.watchMu.Unlock()
	rerr := s.r.Close()
	werr := s.w.Close()
	if err := errors.Join(cerr, rerr, werr); err != nil {
		return fmt.Errorf("store: close: %w", err)
	}
	return nil
}

type migration struct {
	version int
	name    string
	sql     string
}

// migrations lists the embedded files: NNNN_name.sql, numbered from 1
// without gaps.
func migrations() ([]migration, error) {
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var ms []migration
	for i, name := range names {
		base := filepath.Base(name)
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v != i+1 {
			return nil, fmt.Errorf("migration %s: want name %04d_something.sql", base, i+1)
		}
		b, err := migrationFS.ReadFile(name)
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: base, sql: string(b)})
	}
	return ms, nil
}

// migrate applies the pending migrations, each with its version bump in
// one transaction. The version is read again inside the transaction
// (which holds the write lock), so two processes opening a new file at
// once apply each migration once.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	// The common case, a database already at the latest version, needs
	// one read and no write lock (BEGIN IMMEDIATE would wait for a live
	// session's writes).
	var v int
	if err := s.w.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return fmt.Errorf("migrate: read schema version: %w", err)
	}
	if v == len(ms) {
		return nil
	}
	for _, m := range ms {
		if err := s.apply(ctx, m, len(ms)); err != nil {
			return err
		}
	}
	return nil
}

// apply applies m unless the database has it.
func (s *Store) apply(ctx context.Context, m migration, latest int) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer tx.Rollback()
	var v int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return fmt.Errorf("migrate: read schema version: %w", err)
	}
	if v > latest {
		return fmt.Errorf("database schema version %d is newer than this godwit knows (%d); upgrade godwit", v, latest)
	}
	if v >= m.version {
		return nil
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return fmt.Errorf("migrate %s: %w", m.name, err)
	}
	// PRAGMA takes no parameters; the version is our own integer.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.version)); err != nil {
		return fmt.Errorf("migrate %s: set version: %w", m.name, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate %s: commit: %w", m.name, err)
	}
	s.log.Debug("store: migrated", "migration", m.name)
	return nil
}

// wrap prefixes err with the operation and explains constraint failures
// in terms of what the caller did wrong.
func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
			return fmt.Errorf("store: %s: the session or turn it refers to does not exist (create it first): %w", op, err)
		case sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY, sqlite3.SQLITE_CONSTRAINT_UNIQUE:
			return fmt.Errorf("store: %s: already exists: %w", op, err)
		}
		switch se.Code() & 0xff { // the primary result code
		case sqlite3.SQLITE_FULL:
			return &diskError{fmt.Errorf("store: %s: the disk holding the database is full; free some space and go on (what was recorded before is intact): %w", op, err)}
		case sqlite3.SQLITE_IOERR:
			return &diskError{fmt.Errorf("store: %s: the disk failed a read or write; check it and free space (what was recorded before is intact): %w", op, err)}
		case sqlite3.SQLITE_READONLY:
			return fmt.Errorf("store: %s: the database cannot be written; check the permissions of the file and its folder ($GODWIT_HOME): %w", op, err)
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return fmt.Errorf("store: %s: another godwit process held the database for over 5 s; try again when it is done: %w", op, err)
		case sqlite3.SQLITE_CANTOPEN:
			// WAL needs the folder writable for the -wal and -shm files,
			// even to read.
			return fmt.Errorf("store: %s: the database cannot be opened; check that its folder ($GODWIT_HOME) is on a writable disk and this user may write there, or set GODWIT_HOME to another folder: %w", op, err)
		case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
			return fmt.Errorf("store: %s: the database file is damaged; move it away to start a new one (sqlite3's .recover can save what it holds): %w", op, err)
		}
	}
	return fmt.Errorf("store: %s: %w", op, err)
}

// ErrDiskFull matches (errors.Is) a write that failed because the disk is
// full or failing: nothing was recorded, and the caller may stop rather
// than go on unrecorded.
var ErrDiskFull = errors.New("store: disk full or failing")

type diskError struct{ err error }

func (e *diskError) Error() string        { return e.err.Error() }
func (e *diskError) Unwrap() error        { return e.err }
func (e *diskError) Is(target error) bool { return target == ErrDiskFull }

// ms converts t for storage: Unix milliseconds, or NULL for the zero time.
func ms(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMilli()
}

// fromMS is the inverse of ms (queries coalesce NULL to 0).
func fromMS(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMilli(v).UTC()
}

// stamp returns t, or the store's clock when t is zero.
func (s *Store) stamp(t time.Time) time.Time {
	if t.IsZero() {
		return s.now()
	}
	return t
}

// null stores a zero value as NULL (no turn, no text).
func null[T comparable](v T) any {
	var zero T
	if v == zero {
		return nil
	}
	return v
}

// insert runs one INSERT ... RETURNING id and returns the id.
func (s *Store) insert(ctx context.Context, op, query string, args ...any) (int64, error) {
	var id int64
	if err := s.w.QueryRowContext(ctx, query, args...).Scan(&id); err != nil {
		return 0, wrap(op, err)
	}
	return id, nil
}

// update runs one write statement that must change a row; when none
// matches, the error says missing (and matches ErrNotFound).
func (s *Store) update(ctx context.Context, op, missing, query string, args ...any) error {
	res, err := s.w.ExecContext(ctx, query, args...)
	if err != nil {
		return wrap(op, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return wrap(op, err)
	}
	if n == 0 {
		return notFound("%s: %s", op, missing)
	}
	return nil
}

// inTx runs f in one write transaction.
func (s *Store) inTx(ctx context.Context, op string, f func(*txn) error) error {
	sqlTx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return wrap(op, err)
	}
	tx := &txn{Tx: sqlTx, db: s.w}
	defer tx.prepareMissed(ctx)
	defer tx.Rollback()
	if err := f(tx); err != nil {
		return wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return wrap(op, err)
	}
	return nil
}
