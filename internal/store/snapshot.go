package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
)

// Snapshots are byte-level backups of the embedded default: a consistent
// copy of the SQLite file and the media objects it knows.

// ErrSnapshotUnsupported is returned for snapshot work on PostgreSQL.
var ErrSnapshotUnsupported = errors.New("store: snapshots are for the embedded default (SQLite); back up PostgreSQL with pg_dump and the media bucket with the S3 server's tools")

// snapshotTables are the tables a snapshot must hold to be Monitor's.
func snapshotTables() []string {
	return []string{"schema_migrations", "tenants", "collections", "captures", "revisions", "tenant_collections",
		"assets", "blobs", "objects", "entities", "entity_versions"}
}

// SnapshotInto writes a consistent copy of the database to path with
// VACUUM INTO; the file must not exist.
func (s *Store) SnapshotInto(ctx context.Context, path string) error {
	if s.d.name() != "sqlite" {
		return ErrSnapshotUnsupported
	}
	if _, err := s.write.ExecContext(ctx, `VACUUM INTO $1`, path); err != nil {
		return wrap(s.d, "snapshot database", err)
	}
	return nil
}

// SnapshotObject is a media object a snapshot's database records.
type SnapshotObject struct {
	Key   string
	State string
}

// SnapshotInfo is what verifying a snapshot database found.
type SnapshotInfo struct {
	// Migrations are the applied migration files.
	Migrations []string
	// Pending counts the migrations this binary will apply to it.
	Pending int
	// QueueVersion is the last migration of River's queue tables it
	// records (0: none).
	QueueVersion int
	// Schema is what its catalogue holds, to compare with the schema its
	// migrations create.
	Schema  Schema
	Objects []SnapshotObject
}

// VerifySnapshot checks an SQLite file before it may replace the
// database: it passes PRAGMA integrity_check, every applied migration is
// one this binary knows with the same checksum (so it is not newer), and
// Monitor's tables exist. It returns the migrations and the objects the
// file records.
func VerifySnapshot(ctx context.Context, path string) (SnapshotInfo, error) {
	var info SnapshotInfo
	abs, err := filepath.Abs(path)
	if err != nil {
		return info, err
	}
	if err := checkSQLiteFile(abs); err != nil {
		return info, err
	}
	if _, err := os.Stat(abs); err != nil {
		return info, fmt.Errorf("store: snapshot database: %w", err)
	}
	q := url.Values{}
	q.Add("_pragma", "query_only(1)")
	q.Set("mode", "ro")
	q.Set("_time_format", "sqlite")
	db, err := sql.Open("sqlite", "file:"+abs+"?"+q.Encode())
	if err != nil {
		return info, fmt.Errorf("store: open snapshot database: %w", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var check string
	if err := db.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&check); err != nil {
		return info, fmt.Errorf("store: the snapshot's database is damaged: %v", err)
	}
	if check != "ok" {
		return info, fmt.Errorf("store: the snapshot's database is damaged: integrity check says %q", check)
	}
	for _, t := range snapshotTables() {
		var n int
		if err := db.QueryRowContext(ctx, sqliteDialect{}.tableExistsQuery(), t).Scan(&n); err != nil {
			return info, fmt.Errorf("store: read snapshot database: %w", err)
		}
		if n == 0 {
			return info, fmt.Errorf("store: the snapshot's database has no %s table; it is not a Monitor database", t)
		}
	}
	known, err := loadMigrations(sqliteDialect{}.migrations())
	if err != nil {
		return info, err
	}
	byName := map[string]migration{}
	for _, m := range known {
		byName[m.name] = m
	}
	rows, err := db.QueryContext(ctx, `SELECT name, sha256 FROM schema_migrations ORDER BY name`)
	if err != nil {
		return info, fmt.Errorf("store: read snapshot migrations: %w", err)
	}
	for rows.Next() {
		var name, sum string
		if err := rows.Scan(&name, &sum); err != nil {
			rows.Close()
			return info, fmt.Errorf("store: read snapshot migrations: %w", err)
		}
		m, ok := byName[name]
		if !ok {
			rows.Close()
			return info, fmt.Errorf("%w: the snapshot has migration %s, which this monitor does not know; restore it with the newer monitor that made it", ErrSchemaNewer, name)
		}
		if m.sha256 != sum {
			rows.Close()
			return info, fmt.Errorf("%w: the snapshot's migration %s differs from this monitor's", ErrMigrationChanged, name)
		}
		if i := len(info.Migrations); known[i].name != name {
			rows.Close()
			return info, fmt.Errorf("store: the snapshot has migration %s but not %s before it; it is not a database Monitor migrated", name, known[i].name)
		}
		info.Migrations = append(info.Migrations, name)
	}
	if err := rows.Close(); err != nil {
		return info, err
	}
	if len(info.Migrations) == 0 {
		return info, errors.New("store: the snapshot's database records no migrations; it is not a Monitor database")
	}
	info.Pending = len(known) - len(info.Migrations)
	var river int
	if err := db.QueryRowContext(ctx, sqliteDialect{}.tableExistsQuery(), "river_migration").Scan(&river); err != nil {
		return info, fmt.Errorf("store: read snapshot database: %w", err)
	}
	if river > 0 {
		if err := db.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM river_migration`).Scan(&info.QueueVersion); err != nil {
			return info, fmt.Errorf("store: read the snapshot's queue migrations: %w", err)
		}
	}
	if info.Schema, err = schemaGetSQLite(ctx, db); err != nil {
		return info, err
	}
	orows, err := db.QueryContext(ctx, `SELECT key, state FROM objects ORDER BY key`)
	if err != nil {
		return info, fmt.Errorf("store: read snapshot objects: %w", err)
	}
	defer orows.Close()
	for orows.Next() {
		var o SnapshotObject
		if err := orows.Scan(&o.Key, &o.State); err != nil {
			return info, fmt.Errorf("store: read snapshot objects: %w", err)
		}
		info.Objects = append(info.Objects, o)
	}
	return info, orows.Err()
}
