package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"regexp"
	"sort"
	"time"
)

// ErrSchemaNewer means the database holds a migration this binary does not
// know: a newer monitor migrated it.
var ErrSchemaNewer = errors.New("store: database schema is newer than this binary")

// ErrMigrationChanged means a migration file differs from the one that was
// applied: migrations are forward-only and must never be edited.
var ErrMigrationChanged = errors.New("store: applied migration changed")

// ErrNeedsMigration means migrations are pending and the caller may not apply
// them itself (scale mode, where `monitor migrate` runs once per release).
var ErrNeedsMigration = errors.New("store: database needs migration")

// migrationName is the form of a migration file: a zero-padded number, a
// short name, .sql.
var migrationName = regexp.MustCompile(`^[0-9]{4}_[a-z0-9_]+\.sql$`)

// migration is one embedded migration file.
type migration struct {
	name   string
	sql    string
	sha256 string
}

// appliedMigration is one row of schema_migrations.
type appliedMigration struct {
	name      string
	sha256    string
	appliedAt time.Time
}

// loadMigrations reads and checks the numbered migration files of fsys.
func loadMigrations(fsys fs.FS) ([]migration, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("store: read migrations: %w", err)
	}
	var out []migration
	for _, e := range entries {
		if e.IsDir() || !migrationName.MatchString(e.Name()) {
			return nil, fmt.Errorf("store: migration file %s is not named NNNN_name.sql", e.Name())
		}
		b, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return nil, fmt.Errorf("store: read migration %s: %w", e.Name(), err)
		}
		sum := sha256.Sum256(b)
		out = append(out, migration{name: e.Name(), sql: string(b), sha256: hex.EncodeToString(sum[:])})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	for i := 1; i < len(out); i++ {
		if out[i].name[:4] == out[i-1].name[:4] {
			return nil, fmt.Errorf("store: migrations %s and %s share a number", out[i-1].name, out[i].name)
		}
	}
	return out, nil
}

// Migrate applies every pending migration in order, each file together with
// its schema_migrations row in one transaction, so a crash at any point
// leaves either the whole file applied or none of it. It first checks the
// recorded history and refuses a database migrated by a newer binary or one
// whose applied files have changed. It returns the names it applied.
func (s *Store) Migrate(ctx context.Context) ([]string, error) {
	return s.migrate(ctx, s.d.migrations())
}

// MigrateThrough applies the pending migrations up to and including the
// file named last, and none after it: a fresh database migrated so shows
// the schema an older one of that version has.
func (s *Store) MigrateThrough(ctx context.Context, last string) ([]string, error) {
	known, err := loadMigrations(s.d.migrations())
	if err != nil {
		return nil, err
	}
	for i, m := range known {
		if m.name == last {
			return s.apply(ctx, known[:i+1])
		}
	}
	return nil, fmt.Errorf("%w: this monitor has no migration %s", ErrSchemaNewer, last)
}

func (s *Store) migrate(ctx context.Context, fsys fs.FS) ([]string, error) {
	known, err := loadMigrations(fsys)
	if err != nil {
		return nil, err
	}
	return s.apply(ctx, known)
}

// apply applies the migrations of known that are not applied yet.
func (s *Store) apply(ctx context.Context, known []migration) ([]string, error) {
	// schema_migrations is created outside the numbered files because it
	// must exist before them.
	if err := whileBusy(ctx, func() error {
		_, err := s.write.ExecContext(ctx, s.d.schemaMigrationsDDL())
		return err
	}); err != nil {
		return nil, wrap(s.d, "create schema_migrations", err)
	}
	pending, err := s.pendingMigrations(ctx, known)
	if err != nil {
		return nil, err
	}
	var applied []string
	for _, m := range pending {
		err := whileBusy(ctx, func() error {
			return s.InTx(ctx, func(tx *Tx) error {
				// Another process may have applied it since we looked.
				var n int
				if err := tx.tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE name = $1`, m.name).Scan(&n); err != nil {
					return err
				}
				if n > 0 {
					return nil
				}
				if _, err := tx.tx.ExecContext(ctx, m.sql); err != nil {
					return err
				}
				if step := afterMigration[m.name]; step != nil {
					if err := step(ctx, tx); err != nil {
						return err
					}
				}
				_, err := tx.tx.ExecContext(ctx,
					`INSERT INTO schema_migrations (name, sha256, applied_at) VALUES ($1, $2, $3)`,
					m.name, m.sha256, s.now())
				return err
			})
		})
		if err != nil {
			return applied, fmt.Errorf("store: apply migration %s: %w", m.name, err)
		}
		s.log.InfoContext(ctx, "applied migration", slog.String("file", m.name))
		applied = append(applied, m.name)
	}
	return applied, nil
}

// migrationBusyWait is how long a migration waits, beyond each statement's
// busy timeout, while another process's migration holds SQLite's write
// lock: one migration of a large database can take longer than the 5 s.
const migrationBusyWait = time.Minute

// whileBusy runs fn again while it fails on SQLite's write lock, for up to
// migrationBusyWait.
func whileBusy(ctx context.Context, fn func() error) error {
	deadline := time.Now().Add(migrationBusyWait)
	for {
		err := fn()
		if !sqliteBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// WithMigrationLock runs fn while holding the database's migration lock (a
// session advisory lock on PostgreSQL), so that concurrent `monitor
// migrate` runs take turns: the second finds nothing left to do.
func (s *Store) WithMigrationLock(ctx context.Context, fn func() error) error {
	unlock, err := s.d.lockMigrations(ctx, s.write)
	if err != nil {
		return wrap(s.d, "lock migrations", err)
	}
	defer unlock()
	return fn()
}

// Verify checks that the database is exactly at this binary's schema: no
// unknown or changed migrations, none pending.
func (s *Store) Verify(ctx context.Context) error {
	known, err := loadMigrations(s.d.migrations())
	if err != nil {
		return err
	}
	pending, err := s.pendingMigrations(ctx, known)
	if err != nil {
		return err
	}
	if len(pending) > 0 {
		return fmt.Errorf("%w: %d migration(s) pending, starting with %s; run `monitor migrate`", ErrNeedsMigration, len(pending), pending[0].name)
	}
	return nil
}

// pendingMigrations compares the recorded history with the known files and
// returns the files not applied yet.
func (s *Store) pendingMigrations(ctx context.Context, known []migration) ([]migration, error) {
	applied, err := s.appliedMigrations(ctx)
	if err != nil {
		return nil, err
	}
	byName := make(map[string]migration, len(known))
	for _, m := range known {
		byName[m.name] = m
	}
	done := make(map[string]bool, len(applied))
	for _, a := range applied {
		m, ok := byName[a.name]
		if !ok {
			return nil, fmt.Errorf("%w: the database has migration %s (applied %s), which this monitor does not know; run the newer monitor that applied it, or restore a backup",
				ErrSchemaNewer, a.name, a.appliedAt.Format(time.RFC3339))
		}
		if m.sha256 != a.sha256 {
			return nil, fmt.Errorf("%w: migration %s was applied with sha256 %.12s… but this monitor's file has %.12s…; applied migrations must never be edited: restore the original file and put the change in a new migration",
				ErrMigrationChanged, a.name, a.sha256, m.sha256)
		}
		done[a.name] = true
	}
	var pending []migration
	for _, m := range known {
		if !done[m.name] {
			pending = append(pending, m)
		}
	}
	return pending, nil
}

func (s *Store) appliedMigrations(ctx context.Context) ([]appliedMigration, error) {
	exists, err := s.tableExists(ctx, "schema_migrations")
	if err != nil || !exists {
		return nil, err
	}
	rows, err := s.write.QueryContext(ctx, `SELECT name, sha256, applied_at FROM schema_migrations ORDER BY name`)
	if err != nil {
		return nil, wrap(s.d, "read schema_migrations", err)
	}
	defer rows.Close()
	var out []appliedMigration
	for rows.Next() {
		var a appliedMigration
		if err := rows.Scan(&a.name, &a.sha256, &a.appliedAt); err != nil {
			return nil, wrap(s.d, "read schema_migrations", err)
		}
		out = append(out, a)
	}
	return out, wrap(s.d, "read schema_migrations", rows.Err())
}

func (s *Store) tableExists(ctx context.Context, table string) (bool, error) {
	var n int
	err := s.write.QueryRowContext(ctx, s.d.tableExistsQuery(), table).Scan(&n)
	if err != nil {
		return false, wrap(s.d, "look up table "+table, err)
	}
	return n > 0, nil
}
