package main

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// migrationProgress counts the migrations recorded in dir's database: app
// files plus River versions. It returns -1 while there is no database yet.
func migrationProgress(t *testing.T, db *sql.DB) int {
	t.Helper()
	var tables []string
	rows, err := db.Query(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name IN ('schema_migrations', 'river_migration')`)
	require.NoError(t, err)
	for rows.Next() {
		var n string
		require.NoError(t, rows.Scan(&n))
		tables = append(tables, n)
	}
	require.NoError(t, rows.Err())
	rows.Close()
	total := 0
	for _, table := range tables {
		var n int
		require.NoError(t, db.QueryRow(`SELECT count(*) FROM `+table).Scan(&n))
		total += n
	}
	return total
}

// schemaOf describes everything migrations create in dir's database.
func schemaOf(t *testing.T, dir string) string {
	t.Helper()
	db := openPoller(t, dir)
	defer db.Close()
	var b strings.Builder
	rows, err := db.Query(`SELECT type, name, coalesce(sql, '') FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name`)
	require.NoError(t, err)
	for rows.Next() {
		var typ, name, sqlText string
		require.NoError(t, rows.Scan(&typ, &name, &sqlText))
		fmt.Fprintf(&b, "%s %s %s\n", typ, name, sqlText)
	}
	require.NoError(t, rows.Err())
	rows.Close()
	for _, q := range []string{`SELECT name || ' ' || sha256 FROM schema_migrations ORDER BY name`, `SELECT CAST(version AS TEXT) FROM river_migration ORDER BY version`} {
		rows, err := db.Query(q)
		require.NoError(t, err)
		for rows.Next() {
			var s string
			require.NoError(t, rows.Scan(&s))
			b.WriteString(s + "\n")
		}
		require.NoError(t, rows.Err())
		rows.Close()
	}
	return b.String()
}

func openPoller(t *testing.T, dir string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "monitor.db")+"?_pragma=busy_timeout(5000)")
	require.NoError(t, err)
	db.SetMaxOpenConns(1)
	return db
}

// TestMigrateSurvivesSIGKILL kills `monitor migrate` at every other stage
// of a fresh migration (as soon as k migrations are recorded, for k = 0, 2,
// 4, … and the last one) and checks that the next run finishes the job and
// yields exactly the schema of an uninterrupted run. (Every stage took four
// minutes of the suite under the race detector.)
func TestMigrateSurvivesSIGKILL(t *testing.T) {
	t.Parallel()
	ref := t.TempDir()
	out, err := binary(t, map[string]string{"MONITOR_DATA_DIR": ref}, "migrate").CombinedOutput()
	require.NoError(t, err, string(out))
	want := schemaOf(t, ref)
	refDB := openPoller(t, ref)
	full := migrationProgress(t, refDB)
	refDB.Close()
	require.Greater(t, full, 2)

	interrupted, runs := 0, 0
	for k := 0; k < full; k += 2 {
		if k+2 >= full {
			k = full - 1 // the last stage, wherever the stride ends
		}
		runs++
		dir := t.TempDir()
		cmd := binary(t, map[string]string{"MONITOR_DATA_DIR": dir, "MONITOR_LOG_LEVEL": "error"}, "migrate")
		require.NoError(t, cmd.Start())

		// Wait for the database file, then for k recorded migrations, and
		// kill the process right there.
		deadline := time.Now().Add(30 * time.Second)
		for {
			_, err := os.Stat(filepath.Join(dir, "monitor.db"))
			if err == nil || time.Now().After(deadline) {
				break
			}
			time.Sleep(time.Millisecond)
		}
		db := openPoller(t, dir)
		for migrationProgress(t, db) < k && time.Now().Before(deadline) {
			time.Sleep(2 * time.Millisecond)
		}
		require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
		_ = cmd.Wait()
		after := migrationProgress(t, db)
		require.NoError(t, db.Close())
		if after < full {
			interrupted++
		}

		out, err := binary(t, map[string]string{"MONITOR_DATA_DIR": dir}, "migrate").CombinedOutput()
		require.NoError(t, err, "k=%d: %s", k, out)
		require.Contains(t, string(out), "database is up to date")
		require.Equal(t, want, schemaOf(t, dir), "k=%d: schema after an interrupted migration differs", k)
	}
	t.Logf("%d of %d kills (of %d stages) landed before the migration finished", interrupted, runs, full)
	require.Positive(t, interrupted, "no kill landed in the middle of a migration")
}
