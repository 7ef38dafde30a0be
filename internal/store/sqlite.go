package store

import (
	"bytes"
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/google/uuid"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// sqliteBusy reports SQLite's "database is locked": another connection
// held the write lock past the busy timeout.
func sqliteBusy(err error) bool {
	var e *sqlite.Error
	return errors.As(err, &e) && e.Code()&0xff == sqlite3.SQLITE_BUSY
}

//go:embed migrations/sqlite/*.sql
var sqliteMigrations embed.FS

// sqliteDialect is the embedded default: one SQLite file in the data dir.
type sqliteDialect struct{}

func (sqliteDialect) name() string { return "sqlite" }

func (sqliteDialect) migrations() fs.FS {
	sub, err := fs.Sub(sqliteMigrations, "migrations/sqlite")
	if err != nil {
		panic(err) // the directory is embedded at build time
	}
	return sub
}

func (sqliteDialect) isUniqueViolation(err error) bool {
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return false
	}
	return e.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || e.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
}

func (sqliteDialect) tableExistsQuery() string {
	return `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = $1`
}

func (sqliteDialect) tenantSQL() string { return "" }

func (sqliteDialect) purgeCandidatesQuery() string { return purgeCandidatesSQL }
func (sqliteDialect) gcObjectsQuery() string       { return gcObjectsSQL }
func (sqliteDialect) lockCollectionQuery() string  { return "" }
func (sqliteDialect) staleCapturesQuery() string   { return staleCapturesSQL }

func (sqliteDialect) markGarbageQuery() string {
	return `UPDATE objects SET state = 'garbage', updated_at = strftime('%Y-%m-%d %H:%M:%f+00:00', 'now')
		WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM blobs WHERE object_id = $1)`
}

// lockKeyQuery is empty: SQLite's write transactions run one at a time.
func (sqliteDialect) lockKeyQuery() string { return "" }

// lockCaptureQuery is empty: SQLite's write transactions run one at a time.
func (sqliteDialect) lockCaptureQuery() string { return "" }

func (sqliteDialect) schemaMigrationsDDL() string {
	return `CREATE TABLE IF NOT EXISTS schema_migrations (
	name TEXT PRIMARY KEY,
	sha256 TEXT NOT NULL,
	applied_at TIMESTAMP NOT NULL
)`
}

// lockMigrations needs no lock on SQLite: each file is applied in an
// immediate transaction that first checks it is still pending.
func (sqliteDialect) lockMigrations(context.Context, *sql.DB) (func(), error) { return func() {}, nil }

func (sqliteDialect) tokenTenantByDigestQuery() string {
	return `SELECT t.id, t.tenant_id, t.name, t.created_at, t.revoked_at, t.admin, n.name, n.status, NULL
		FROM tokens t JOIN tenants n ON n.id = t.tenant_id WHERE t.digest = $1`
}

func (sqliteDialect) tenantByNameQuery() string {
	return `SELECT ` + tenantColumns + ` FROM tenants WHERE name = $1`
}

func (sqliteDialect) tenantListQuery() string {
	return `SELECT ` + tenantColumns + ` FROM tenants ORDER BY name`
}

func (sqliteDialect) markDeliverableQuery() string {
	return `UPDATE submissions SET delivery_state = 'pending', updated_at = strftime('%Y-%m-%d %H:%M:%f+00:00', 'now')
		WHERE capture_id = $1 AND channel_id IS NOT NULL AND delivery_state = 'none'`
}

func (sqliteDialect) wakeDeliveriesQuery() string {
	return `UPDATE channel_work SET not_before = strftime('%Y-%m-%d %H:%M:%f+00:00', 'now'),
			updated_at = strftime('%Y-%m-%d %H:%M:%f+00:00', 'now')
		WHERE kind = 'deliver' AND state = 'pending' AND not_before > strftime('%Y-%m-%d %H:%M:%f+00:00', 'now')
		  AND submission_id IN (SELECT id FROM submissions WHERE capture_id = $1)`
}

func (sqliteDialect) identityLookupQuery() string {
	return `SELECT ` + identityColumns + ` FROM identities WHERE channel_id = $1 AND external_id = $2`
}

// claimWorkQuery names the two claimable states on their own, so that
// SQLite narrows by (channel_id, state) on the index instead of reading
// every item the channel ever finished.
func (sqliteDialect) claimWorkQuery() string {
	return `UPDATE channel_work SET state = 'leased', lease_owner = $2, lease_expires_at = $5, attempts = attempts + 1, updated_at = $4
		WHERE id IN (SELECT id FROM channel_work
		             WHERE channel_id = $1 AND state IN ('pending', 'leased')
		               AND ((state = 'pending' AND not_before <= $4) OR (state = 'leased' AND lease_expires_at < $4))
		             ORDER BY not_before, id LIMIT $3)
		RETURNING ` + workColumns
}

func (sqliteDialect) workTenantQuery() string {
	return `SELECT tenant_id FROM channel_work WHERE id = $1`
}

func (sqliteDialect) idSet(n int) string { return fmt.Sprintf("SELECT value FROM json_each($%d)", n) }

// idArg is a JSON array of the ids.
func (sqliteDialect) idArg(ids []uuid.UUID) string { return joinIDs(ids, "[", "]", `"`) }

// lockTenantQuery is empty: SQLite's write transactions run one at a time.
func (sqliteDialect) lockTenantQuery() string { return "" }

// sqliteHeader starts every SQLite database file.
var sqliteHeader = []byte("SQLite format 3\x00")

// sqlitePragmas are applied to every connection: WAL so readers never block
// the writer, a busy timeout instead of immediate SQLITE_BUSY, foreign keys
// on, and NORMAL sync, which is durable across process crashes in WAL mode.
var sqlitePragmas = []string{
	"journal_mode(WAL)",
	"busy_timeout(5000)",
	"synchronous(NORMAL)",
	"foreign_keys(1)",
}

// sqliteWriterPragmas are applied to the one writer connection only. The
// default 2 MiB page cache and file-backed temp storage made a 10,000-post
// capsule import spill pages in many small writes (strace: ~545k pwrite
// calls; ~56k with temp tables in memory and a 32 MiB cache). The cache is
// 8 MiB (negative = KiB): side by side, importing 10,000 posts took 7.5-8.6 s
// and peaked at 130 MiB with it, 7.6-11.3 s and 120 MiB with the default,
// 6.1-7.9 s and 175 MiB with 32 MiB, which a long-running server would keep
// once filled. Readers keep the default cache, as there are several of them.
var sqliteWriterPragmas = []string{
	"temp_store(MEMORY)",
	"cache_size(-8192)",
}

func openSQLite(ctx context.Context, path string, log *slog.Logger) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("store: database path %s: %w", path, err)
	}
	if strings.ContainsAny(abs, "?#") {
		return nil, fmt.Errorf("store: database path %s must not contain '?' or '#'", abs)
	}
	if err := checkSQLiteFile(abs); err != nil {
		return nil, err
	}
	if err := secureSQLiteFiles(abs, log); err != nil {
		return nil, err
	}

	writeConn, err := newSQLiteConnector(sqliteDSN(abs, false))
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", abs, err)
	}
	writeConn.uncancelled = true
	write := sql.OpenDB(writeConn)
	// One writer: SQLite serializes writes anyway, and a single connection
	// turns lock contention into an orderly queue in database/sql.
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	write.SetConnMaxLifetime(0)
	write.SetConnMaxIdleTime(0)

	readConn, err := newSQLiteConnector(sqliteDSN(abs, true))
	if err != nil {
		_ = write.Close()
		return nil, fmt.Errorf("store: open %s: %w", abs, err)
	}
	read := sql.OpenDB(readConn)
	n := max(2, runtime.GOMAXPROCS(0))
	read.SetMaxOpenConns(n)
	read.SetMaxIdleConns(n)

	watch, err := newSQLiteConnector(sqliteDSN(abs, true))
	if err != nil {
		_ = write.Close()
		_ = read.Close()
		return nil, fmt.Errorf("store: open %s: %w", abs, err)
	}
	s := &Store{d: sqliteDialect{}, write: write, read: read, log: log, clock: time.Now, changes: newChangeWatch(sql.OpenDB(watch)), group: newTxGroup()}
	// The first statement on a connection applies the pragmas; touching the
	// schema surfaces "not a database" and permission problems now, not later.
	if _, err := write.ExecContext(ctx, "SELECT count(*) FROM sqlite_schema"); err != nil {
		_ = s.Close()
		return nil, sqliteOpenError(abs, err)
	}
	if _, err := read.ExecContext(ctx, "SELECT count(*) FROM sqlite_schema"); err != nil {
		_ = s.Close()
		return nil, sqliteOpenError(abs, err)
	}
	return s, nil
}

func sqliteDSN(path string, readOnly bool) string {
	q := url.Values{}
	for _, p := range sqlitePragmas {
		q.Add("_pragma", p)
	}
	if readOnly {
		q.Add("_pragma", "query_only(1)")
	} else {
		for _, p := range sqliteWriterPragmas {
			q.Add("_pragma", p)
		}
		q.Set("_txlock", "immediate")
	}
	q.Set("_time_format", "sqlite")
	return "file:" + path + "?" + q.Encode()
}

// dbFilePerm is the mode of the database file. It holds token digests,
// sessions and encrypted credentials, so only Monitor's own user reads it;
// SQLite gives its -wal and -shm files the database file's mode.
const dbFilePerm = 0o600

// secureSQLiteFiles creates a missing database file as dbFilePerm, before
// SQLite would create it readable by everyone, and takes group and other
// access away from an existing one and its -wal and -shm files (databases
// made before this was done are created 0644).
func secureSQLiteFiles(path string, log *slog.Logger) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, dbFilePerm)
	if err == nil {
		return f.Close()
	}
	if !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("store: create database file %s: %w; check the permissions of its directory", path, err)
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		p := path + suffix
		st, err := os.Stat(p)
		if err != nil || st.Mode().Perm()&0o077 == 0 {
			continue
		}
		if err := os.Chmod(p, st.Mode().Perm()&^0o077); err != nil {
			log.Warn("the database file is readable by other users and could not be restricted", slog.String("file", p), slog.Any("err", err))
			continue
		}
		log.Info("restricted the database file to its owner", slog.String("file", p), slog.String("was", st.Mode().Perm().String()))
	}
	return nil
}

// checkSQLiteFile refuses, before SQLite touches it, a file that exists and
// is not an SQLite database, so that nothing is written into it.
func checkSQLiteFile(path string) error {
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("store: database directory %s: %w; create it or set MONITOR_DATA_DIR", dir, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("store: database directory %s is not a directory; set MONITOR_DATA_DIR or MONITOR_DATABASE_URL", dir)
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: database file %s: %w", path, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return fmt.Errorf("store: database file %s is a directory; point MONITOR_DATABASE_URL at a file", path)
	}
	head := make([]byte, len(sqliteHeader))
	n, err := io.ReadFull(f, head)
	if n == 0 && (err == io.EOF || err == nil) {
		return nil // an empty file becomes a new database
	}
	if !bytes.Equal(head[:n], sqliteHeader) {
		return fmt.Errorf("store: %s is not an SQLite database; move it away or point MONITOR_DATABASE_URL at another file", path)
	}
	return nil
}

func sqliteOpenError(path string, err error) error {
	var e *sqlite.Error
	if errors.As(err, &e) {
		switch e.Code() & 0xff {
		case sqlite3.SQLITE_NOTADB:
			return fmt.Errorf("store: %s is not an SQLite database; move it away or point MONITOR_DATABASE_URL at another file", path)
		case sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM, sqlite3.SQLITE_AUTH:
			return fmt.Errorf("store: cannot open %s for writing (%v); check the permissions of the file and its directory", path, err)
		}
	}
	return fmt.Errorf("store: open %s: %w", path, err)
}

func (sqliteDialect) repointCapture(ctx context.Context, q querier, capture, from, to uuid.UUID, at time.Time) error {
	return repointCapture(ctx, q, capture, from, to, at)
}

func (sqliteDialect) adoptImports(ctx context.Context, q querier, capture, to uuid.UUID, at time.Time) error {
	return adoptImports(ctx, q, capture, to, at)
}

func (sqliteDialect) channelPurge(ctx context.Context, q querier, step channelPurgeStep, cutoff time.Time, limit int) (int64, error) {
	return step.runSQLite(ctx, q, cutoff, limit)
}
