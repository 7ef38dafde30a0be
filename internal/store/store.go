// Package store is the only place in Monitor that speaks SQL. It hides the
// database behind typed methods named EntityVerb (TenantInsert,
// TokenGetByDigest); the differences between SQLite and PostgreSQL live in
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
}

// querier is what both a pool and a transaction offer.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Open connects to the database that cfg names. It does not migrate; call
// Migrate (embedded default) or Verify (scale mode) next.
func Open(ctx context.Context, cfg config.Database, log *slog.Logger) (*Store, error) {
	switch cfg.Driver {
	case "sqlite":
		return openSQLite(ctx, cfg.Path, log)
	case "postgres":
		return openPostgres(ctx, cfg.URL, log)
	default:
		return nil, fmt.Errorf("store: unknown database driver %q", cfg.Driver)
	}
}

// Close closes the pools.
func (s *Store) Close() error {
	if s.pool != nil {
		err := s.write.Close()
		s.pool.Close()
		return err
	}
	return errors.Join(s.read.Close(), s.write.Close())
}

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
}

// SQL is the underlying transaction, for the job queue's InsertTx.
func (tx *Tx) SQL() *sql.Tx { return tx.tx }

// InTx runs fn in a write transaction and commits when fn returns nil. On
// SQLite the transaction takes the write lock at BEGIN, so two transactions
// never deadlock on upgrade. Remote calls (HTTP, gRPC, S3) never belong in fn.
func (s *Store) InTx(ctx context.Context, fn func(tx *Tx) error) (err error) {
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
	if err = fn(&Tx{tx: sqlTx, d: s.d}); err != nil {
		return err
	}
	if err = sqlTx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

// now is the time the store writes: UTC, at the microsecond precision both
// databases keep.
func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

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
