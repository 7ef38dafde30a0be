package store

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/config"
)

func openTestSQLite(t *testing.T, path string) *Store {
	t.Helper()
	st, err := Open(context.Background(), config.Database{Driver: "sqlite", Path: path}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func TestMigrateAppliesOnceAndRecordsChecksums(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openTestSQLite(t, filepath.Join(t.TempDir(), "m.db"))

	applied, err := st.Migrate(ctx)
	require.NoError(t, err)
	known, err := loadMigrations(st.d.migrations())
	require.NoError(t, err)
	require.Len(t, applied, len(known))
	require.Equal(t, "0001_initial.sql", applied[0])

	again, err := st.Migrate(ctx)
	require.NoError(t, err)
	require.Empty(t, again)
	require.NoError(t, st.Verify(ctx))

	rows, err := st.appliedMigrations(ctx)
	require.NoError(t, err)
	require.Len(t, rows, len(known))
	for i, r := range rows {
		require.Equal(t, known[i].name, r.name)
		require.Equal(t, known[i].sha256, r.sha256)
		require.False(t, r.appliedAt.IsZero())
	}
}

func TestInitialMigrationCreatesDataModel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openTestSQLite(t, filepath.Join(t.TempDir(), "m.db"))
	_, err := st.Migrate(ctx)
	require.NoError(t, err)
	for _, table := range []string{
		// identity and access
		"tenants", "channels", "identities", "tokens", "connections", "account_credentials", "tenant_preferences",
		// content
		"collections", "captures", "revisions", "tenant_collections", "submissions", "assets", "blobs", "objects",
		"source_responses", "entities", "entity_versions", "revision_entities", "entity_relations",
		// channel plumbing
		"inbox", "replies", "channel_work", "channel_media_cache",
		// operator
		"usage_daily", "audit_log", "events", "error_logs", "config", "web_sessions", "schema_migrations",
	} {
		ok, err := st.tableExists(ctx, table)
		require.NoError(t, err)
		require.True(t, ok, "table %s", table)
	}
	var problems int
	require.NoError(t, st.write.QueryRowContext(ctx, `SELECT count(*) FROM pragma_foreign_key_check`).Scan(&problems))
	require.Zero(t, problems)
}

func TestMigrateRefusesNewerDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openTestSQLite(t, filepath.Join(t.TempDir(), "m.db"))
	_, err := st.Migrate(ctx)
	require.NoError(t, err)
	_, err = st.write.ExecContext(ctx, `INSERT INTO schema_migrations (name, sha256, applied_at) VALUES ('9999_from_the_future.sql', 'abc', $1)`, st.now())
	require.NoError(t, err)

	_, err = st.Migrate(ctx)
	require.ErrorIs(t, err, ErrSchemaNewer)
	require.ErrorContains(t, err, "9999_from_the_future.sql")
	require.ErrorIs(t, st.Verify(ctx), ErrSchemaNewer)
}

func TestMigrateRefusesChangedMigration(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openTestSQLite(t, filepath.Join(t.TempDir(), "m.db"))
	v1 := fstest.MapFS{"0001_a.sql": {Data: []byte(`CREATE TABLE a (x INTEGER);`)}}
	_, err := st.migrate(ctx, v1)
	require.NoError(t, err)

	edited := fstest.MapFS{
		"0001_a.sql": {Data: []byte(`CREATE TABLE a (x INTEGER, y TEXT);`)},
		"0002_b.sql": {Data: []byte(`CREATE TABLE b (x INTEGER);`)},
	}
	_, err = st.migrate(ctx, edited)
	require.ErrorIs(t, err, ErrMigrationChanged)
	require.ErrorContains(t, err, "migration 0001_a.sql was applied with sha256")
	ok, err := st.tableExists(ctx, "b")
	require.NoError(t, err)
	require.False(t, ok, "nothing after a changed migration may be applied")
}

func TestFailedMigrationLeavesNoTrace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openTestSQLite(t, filepath.Join(t.TempDir(), "m.db"))
	files := fstest.MapFS{
		"0001_a.sql": {Data: []byte(`CREATE TABLE a (x INTEGER);`)},
		"0002_b.sql": {Data: []byte(`CREATE TABLE b (x INTEGER); INSERT INTO a VALUES (1); CREATE TABLE oops (;`)},
	}
	applied, err := st.migrate(ctx, files)
	require.ErrorContains(t, err, "store: apply migration 0002_b.sql")
	require.Equal(t, []string{"0001_a.sql"}, applied)
	for table, want := range map[string]bool{"a": true, "b": false} {
		ok, err := st.tableExists(ctx, table)
		require.NoError(t, err)
		require.Equal(t, want, ok, table)
	}
	var n int
	require.NoError(t, st.write.QueryRowContext(ctx, `SELECT count(*) FROM a`).Scan(&n))
	require.Zero(t, n)

	// Fixed file: the next run applies it.
	files["0002_b.sql"] = &fstest.MapFile{Data: []byte(`CREATE TABLE b (x INTEGER);`)}
	applied, err = st.migrate(ctx, files)
	require.NoError(t, err)
	require.Equal(t, []string{"0002_b.sql"}, applied)
}

func TestMigrationFileNames(t *testing.T) {
	t.Parallel()
	_, err := loadMigrations(fstest.MapFS{"1_a.sql": {Data: []byte(`SELECT 1`)}})
	require.ErrorContains(t, err, "migration file 1_a.sql is not named NNNN_name.sql")
	_, err = loadMigrations(fstest.MapFS{"0001_a.sql": {}, "0001_b.sql": {}})
	require.ErrorContains(t, err, "migrations 0001_a.sql and 0001_b.sql share a number")
}

func TestConcurrentMigrateSerializes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	a, b := openTestSQLite(t, path), openTestSQLite(t, path)
	errs := make(chan error, 2)
	for _, st := range []*Store{a, b} {
		go func() { _, err := st.Migrate(ctx); errs <- err }()
	}
	require.NoError(t, <-errs)
	require.NoError(t, <-errs)
	require.NoError(t, a.Verify(ctx))
}

func TestOpenRefusesNonSQLiteFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "monitor.db")
	content := []byte("these are my notes, not a database\n")
	require.NoError(t, os.WriteFile(path, content, 0o600))

	_, err := Open(context.Background(), config.Database{Driver: "sqlite", Path: path}, slog.New(slog.DiscardHandler))
	require.EqualError(t, err, "store: "+path+" is not an SQLite database; move it away or point MONITOR_DATABASE_URL at another file")

	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, content, got, "the file must not be touched")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no -wal or -shm files may appear")
}

func TestOpenRefusesMissingDirectory(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "plain-file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	_, err := Open(context.Background(), config.Database{Driver: "sqlite", Path: filepath.Join(file, "monitor.db")}, slog.New(slog.DiscardHandler))
	require.ErrorContains(t, err, "is not a directory")
	require.False(t, errors.Is(err, ErrNotFound))
}
