// Package store is the only place in Monitor that speaks SQL. It hides the
// database behind typed methods named EntityVerb (TenantInsert,
// TokenTenantByDigest); the differences between SQLite and PostgreSQL live in
// one dialect value, so callers never change with the database.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/monitorhq/monitor/internal/config"
)

// ErrNotFound is returned when a row that was asked for does not exist (or is
// not visible to the caller).
var ErrNotFound = errors.New("store: not found")

// ErrConflict is returned when a write would break a unique constraint, such
// as a second tenant with the same name.
var ErrConflict = errors.New("store: already exists")

// Store is an open database: one write connection shared with the job queue
// and a pool of read connections.
type Store struct {
	d     dialect
	write *sql.DB
	read  *sql.DB
	// pool is PostgreSQL's connection pool under write/read (nil on
	// SQLite); the job queue's listener uses it too.
	pool *pgxpool.Pool
	log  *slog.Logger
	// clock is the time source of every time the store writes (WithClock;
	// time.Now by default).
	clock func() time.Time
	// searchDrive overrides searchDriveLimit in tests (export_test.go): 0
	// is the default, below 0 never reads from the index first.
	searchDrive int
	// changes reports commits (changes.go); nil on PostgreSQL.
	changes *changeWatch
	// group commits queued write transactions together (txgroup.go); nil
	// on PostgreSQL, whose transactions run side by side.
	group *txGroup
}

// querier is what both a pool and a transaction offer.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Option changes how Open sets up a store.
type Option func(*Store)

// WithClock makes now the time source of every time the store writes
// (created, updated, observed, revoked ...). A process builds one clock and
// hands it to the store and the business layer alike, so tests that move it
// move both. Without it the store uses time.Now.
func WithClock(now func() time.Time) Option {
	return func(s *Store) {
		if now != nil {
			s.clock = now
		}
	}
}

// Open connects to the database that cfg names. It does not migrate; call
// Migrate (embedded default) or Verify (scale mode) next.
func Open(ctx context.Context, cfg config.Database, log *slog.Logger, opts ...Option) (*Store, error) {
	var (
		s   *Store
		err error
	)
	switch cfg.Driver {
	case "sqlite":
		s, err = openSQLite(ctx, cfg.Path, log)
	case "postgres":
		s, err = openPostgres(ctx, cfg.URL, log)
	default:
		return nil, fmt.Errorf("store: unknown database driver %q", cfg.Driver)
	}
	if err != nil {
		return nil, err
	}
	for _, o := range opts {
		o(s)
	}
	return s, nil
}

// Close closes the pools.
func (s *Store) Close() error {
	if s.pool != nil {
		err := s.write.Close()
		s.pool.Close()
		return err
	}
	return errors.Join(s.read.Close(), s.write.Close(), s.changes.db.Close())
}

// Clock is the store's time source (WithClock), for the layers above that
// must share it.
func (s *Store) Clock() func() time.Time { return s.clock }

// Pool is PostgreSQL's connection pool (nil on SQLite), for the job
// queue's LISTEN connections.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Driver names the database in use: "sqlite" or "postgres".
func (s *Store) Driver() string { return s.d.name() }

// WriteDB is the write pool. The job queue's SQLite driver shares it, so that
// jobs inserted with a business change commit with it; nothing else should
// use it directly.
func (s *Store) WriteDB() *sql.DB { return s.write }

// Tx is a business transaction. Its methods see and change the database as
// of this transaction; it commits only if the function given to InTx returns
// nil.
type Tx struct {
	tx *sql.Tx
	d  dialect
	// clock is the store's clock.
	clock func() time.Time
	// afterCommit runs once the transaction has committed (AfterCommit).
	afterCommit []func()
}

// StagedAsWritten reports whether a capture's staged content reads back
// byte for byte as it was written: SQLite keeps it as text, PostgreSQL as
// jsonb, which orders an object's keys its own way (and a revision's
// content is built from what reads back).
func (s *Store) StagedAsWritten() bool { return s.d.name() == "sqlite" }

// AfterCommit runs fn once this transaction has committed, and never when
// it rolls back: for signals that must not fire before other connections
// can see the change.
func (tx *Tx) AfterCommit(fn func()) { tx.afterCommit = append(tx.afterCommit, fn) }

// Savepoint runs fn inside a savepoint of the transaction. When fn fails,
// what it wrote (and the AfterCommit signals it added) is undone and the
// transaction goes on, usable on PostgreSQL too; fn's error is returned.
// Savepoints of one transaction do not nest here: fn must not call it.
func (tx *Tx) Savepoint(ctx context.Context, fn func() error) error {
	if _, err := tx.tx.ExecContext(ctx, `SAVEPOINT monitor_step`); err != nil {
		return wrap(tx.d, "begin savepoint", err)
	}
	signals := len(tx.afterCommit)
	if ferr := fn(); ferr != nil {
		tx.afterCommit = tx.afterCommit[:signals]
		if _, err := tx.tx.ExecContext(context.WithoutCancel(ctx), `ROLLBACK TO SAVEPOINT monitor_step`); err != nil {
			return errors.Join(ferr, wrap(tx.d, "roll back to savepoint", err))
		}
		return ferr
	}
	_, err := tx.tx.ExecContext(ctx, `RELEASE SAVEPOINT monitor_step`)
	return wrap(tx.d, "release savepoint", err)
}

// SQL is the underlying transaction, for the job queue's InsertTx.
func (tx *Tx) SQL() *sql.Tx { return tx.tx }

// InTx runs fn in a write transaction and commits when fn returns nil. On
// SQLite the transaction takes the write lock at BEGIN, so two transactions
// never deadlock on upgrade, and callers queued for the writer share one
// commit (txgroup.go). Remote calls (HTTP, gRPC, S3) never belong in fn.
func (s *Store) InTx(ctx context.Context, fn func(tx *Tx) error) (err error) {
	if s.group != nil {
		return s.inGroup(ctx, fn)
	}
	sqlTx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	defer func() {
		if p := recover(); p != nil {
			_ = sqlTx.Rollback()
			panic(p)
		}
		if err != nil {
			_ = sqlTx.Rollback()
		}
	}()
	if err = s.setTenant(ctx, sqlTx); err != nil {
		return err
	}
	tx := &Tx{tx: sqlTx, d: s.d, clock: s.clock}
	if err = fn(tx); err != nil {
		return err
	}
	if err = sqlTx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	for _, f := range tx.afterCommit {
		f()
	}
	return nil
}

// now is the time the store writes: the store's clock in UTC, at the
// microsecond precision both databases keep.
func (s *Store) now() time.Time { return storeTime(s.clock) }

// now is the store's now, for writes in this transaction.
func (tx *Tx) now() time.Time { return storeTime(tx.clock) }

func storeTime(clock func() time.Time) time.Time { return clock().UTC().Truncate(time.Microsecond) }

// wrap adds context to an error, turning the driver's unique violation into
// ErrConflict and sql.ErrNoRows into ErrNotFound.
func wrap(d dialect, what string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("store: %s: %w", what, ErrNotFound)
	case d.isUniqueViolation(err):
		return fmt.Errorf("store: %s: %w", what, ErrConflict)
	}
	return fmt.Errorf("store: %s: %w", what, err)
}
