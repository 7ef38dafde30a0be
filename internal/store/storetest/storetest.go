// Package storetest opens fresh, migrated stores for tests: one per test, on
// every database this machine offers, so one behaviour suite covers them all.
//
// SQLite always runs. PostgreSQL runs when MONITOR_TEST_POSTGRES_URL (default
// postgres://postgres@127.0.0.1:5432/postgres) answers; with
// MONITOR_REQUIRE_POSTGRES=1 (set by scripts/test) its absence fails the
// tests instead of skipping them. Each PostgreSQL test gets its own
// database, migrated by the owner, and a store connected as monitor_app, so
// row-level security is in force exactly as in production.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"

	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
)

// AppPassword is the password test databases give monitor_app.
const AppPassword = "monitor-app-test-password"

// roleLockKey serializes role updates across test processes (roles are
// cluster-wide).
const roleLockKey = 0x726f6c65

// PostgresURL is the superuser connection tests create databases with.
func PostgresURL() string {
	if u := os.Getenv("MONITOR_TEST_POSTGRES_URL"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

// Drivers lists the databases a suite runs on.
func Drivers() []string {
	if os.Getenv("MONITOR_REQUIRE_POSTGRES") == "1" || postgresReachable() {
		return []string{"sqlite", "postgres"}
	}
	return []string{"sqlite"}
}

func postgresReachable() bool {
	db, err := sql.Open("pgx", PostgresURL())
	if err != nil {
		return false
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return db.PingContext(ctx) == nil
}

// Each runs fn as a subtest on a fresh store of every driver.
func Each(t *testing.T, fn func(t *testing.T, st *store.Store)) {
	t.Helper()
	for _, d := range Drivers() {
		t.Run(d, func(t *testing.T) {
			fn(t, New(t, d))
		})
	}
}

// New opens a fresh store of the given driver with the app's and River's
// migrations applied, closed when the test ends. opts are given to
// store.Open (e.g. store.WithClock).
func New(t testing.TB, driver string, opts ...store.Option) *store.Store {
	t.Helper()
	st, _ := NewWithURL(t, driver, opts...)
	return st
}

// NewWithURL is New, also returning the connection string the store uses
// (for PostgreSQL: monitor_app's), so tests can open raw connections.
func NewWithURL(t testing.TB, driver string, opts ...store.Option) (*store.Store, string) {
	t.Helper()
	switch driver {
	case "sqlite":
		p := filepath.Join(t.TempDir(), "monitor.db")
		if err := sqliteTemplate.copyTo(p); err != nil {
			t.Fatalf("storetest: %v", err)
		}
		return open(t, config.Database{Driver: "sqlite", Path: p, URL: "sqlite://" + p}, opts...), "sqlite://" + p
	case "postgres":
		tmpl, err := postgresTemplate.get()
		if err != nil {
			t.Fatalf("storetest: %v", err)
		}
		_, appURL := newPostgresDatabase(t, tmpl)
		return open(t, config.Database{Driver: "postgres", URL: appURL}, opts...), appURL
	}
	t.Fatalf("storetest: unknown driver %q", driver)
	return nil, ""
}

// sqliteTemplate is this test process's migrated SQLite database, which
// every fresh SQLite store starts as a copy of: SQLite is Go code here, so
// migrating takes about two seconds of CPU under the race detector, and
// copying the result a millisecond. It is the one package-level value of
// storetest, built once per process on first use.
var sqliteTemplate = &fileTemplate{build: buildSQLiteTemplate}

// fileTemplate holds a database's files, built once.
type fileTemplate struct {
	build func() (map[string][]byte, error)
	once  sync.Once
	files map[string][]byte // by suffix of the database file: "", "-wal"
	err   error
}

// copyTo writes the template's files as a database at path.
func (f *fileTemplate) copyTo(path string) error {
	f.once.Do(func() { f.files, f.err = f.build() })
	if f.err != nil {
		return f.err
	}
	for suffix, b := range f.files {
		if err := os.WriteFile(path+suffix, b, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// buildSQLiteTemplate migrates a SQLite database in a temporary directory,
// closes it and reads its files back.
func buildSQLiteTemplate() (map[string][]byte, error) {
	dir, err := os.MkdirTemp("", "monitor-storetest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	p := filepath.Join(dir, "monitor.db")
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	st, err := store.Open(ctx, config.Database{Driver: "sqlite", Path: p, URL: "sqlite://" + p}, log)
	if err != nil {
		return nil, fmt.Errorf("open the SQLite template: %w", err)
	}
	if _, err := st.Migrate(ctx); err != nil {
		_ = st.Close()
		return nil, fmt.Errorf("migrate the SQLite template: %w", err)
	}
	if err := queue.Migrate(ctx, st, log); err != nil {
		_ = st.Close()
		return nil, fmt.Errorf("migrate the queue of the SQLite template: %w", err)
	}
	if err := st.Close(); err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(p + suffix)
		if errors.Is(err, fs.ErrNotExist) && suffix != "" {
			continue
		}
		if err != nil {
			return nil, err
		}
		files[suffix] = b
	}
	return files, nil
}

func open(t testing.TB, cfg config.Database, opts ...store.Option) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), cfg, Logger(t), opts...)
	if err != nil {
		t.Fatalf("storetest: open %s: %v", cfg.Driver, err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// NewPostgresDatabase creates an empty database for one test, dropped when
// the test ends, and returns the owner's and monitor_app's URLs for it.
// With MONITOR_TEST_KEEP_POSTGRES=1 the database is kept and its name
// logged, to look into after a benchmark (EXPLAIN ANALYZE); drop it by hand.
func NewPostgresDatabase(t testing.TB) (ownerURL, appURL string) {
	t.Helper()
	return newPostgresDatabase(t, "")
}

// newPostgresDatabase is NewPostgresDatabase, as a copy of the database
// named template when that is not "".
func newPostgresDatabase(t testing.TB, template string) (ownerURL, appURL string) {
	t.Helper()
	admin, err := sql.Open("pgx", PostgresURL())
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "monitor_test_" + hex.EncodeToString(b[:])
	ddl := `CREATE DATABASE ` + name
	if template != "" {
		ddl += ` TEMPLATE ` + template
	}
	if _, err := admin.Exec(ddl); err != nil {
		_ = admin.Close()
		t.Fatalf("storetest: PostgreSQL at %s is not usable (%v); start it, or unset MONITOR_REQUIRE_POSTGRES to skip PostgreSQL", PostgresURL(), err)
	}
	t.Cleanup(func() {
		if os.Getenv("MONITOR_TEST_KEEP_POSTGRES") == "1" {
			t.Logf("storetest: kept PostgreSQL database %s", name)
			fmt.Fprintf(os.Stderr, "storetest: kept PostgreSQL database %s\n", name)
		} else {
			_, _ = admin.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`)
		}
		_ = admin.Close()
	})
	return databaseURLs(t, name)
}

// databaseURLs are the owner's and monitor_app's URLs of database name.
func databaseURLs(t testing.TB, name string) (ownerURL, appURL string) {
	t.Helper()
	ownerURL, appURL, err := urlsOf(name)
	if err != nil {
		t.Fatalf("storetest: MONITOR_TEST_POSTGRES_URL: %v", err)
	}
	return ownerURL, appURL
}

func urlsOf(name string) (ownerURL, appURL string, err error) {
	u, err := url.Parse(PostgresURL())
	if err != nil {
		return "", "", err
	}
	u.Path = "/" + name
	ownerURL = u.String()
	u.User = url.UserPassword(store.AppRole, AppPassword)
	return ownerURL, u.String(), nil
}

// postgresTemplate is this test process's migrated PostgreSQL database,
// which every fresh PostgreSQL store is created as a copy of (CREATE
// DATABASE … TEMPLATE), sparing each test the migrations. Named
// monitor_tmpl_<pid>_<random>; a later process drops those whose process
// has ended.
var postgresTemplate = &dbTemplate{build: buildPostgresTemplate}

// dbTemplate is a database's name, built once.
type dbTemplate struct {
	build func() (string, error)
	once  sync.Once
	name  string
	err   error
}

func (d *dbTemplate) get() (string, error) {
	d.once.Do(func() { d.name, d.err = d.build() })
	return d.name, d.err
}

func buildPostgresTemplate() (string, error) {
	ctx := context.Background()
	admin, err := sql.Open("pgx", PostgresURL())
	if err != nil {
		return "", err
	}
	defer admin.Close()
	dropEndedTemplates(ctx, admin)
	var b [4]byte
	_, _ = rand.Read(b[:])
	name := fmt.Sprintf("monitor_tmpl_%d_%s", os.Getpid(), hex.EncodeToString(b[:]))
	if _, err := admin.ExecContext(ctx, `CREATE DATABASE `+name); err != nil {
		return "", fmt.Errorf("PostgreSQL at %s is not usable (%v); start it, or unset MONITOR_REQUIRE_POSTGRES to skip PostgreSQL", PostgresURL(), err)
	}
	ownerURL, _, err := urlsOf(name)
	if err != nil {
		return "", err
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	owner, err := store.Open(ctx, config.Database{Driver: "postgres", URL: ownerURL}, log)
	if err != nil {
		return "", err
	}
	defer owner.Close()
	if _, err := owner.Migrate(ctx); err != nil {
		return "", fmt.Errorf("migrate the PostgreSQL template: %w", err)
	}
	if err := queue.Migrate(ctx, owner, log); err != nil {
		return "", fmt.Errorf("migrate the queue of the PostgreSQL template: %w", err)
	}
	if err := roleLocked(ctx, func() error { return owner.EnsureAppRole(ctx, AppPassword) }); err != nil {
		return "", fmt.Errorf("create %s: %w", store.AppRole, err)
	}
	return name, owner.Close()
}

// dropEndedTemplates drops the templates of test processes that have
// ended on this machine.
func dropEndedTemplates(ctx context.Context, admin *sql.DB) {
	rows, err := admin.QueryContext(ctx, `SELECT datname FROM pg_database WHERE datname LIKE 'monitor\_tmpl\_%'`)
	if err != nil {
		return
	}
	var ended []string
	for rows.Next() {
		var name string
		if rows.Scan(&name) != nil {
			continue
		}
		var pid int
		if _, err := fmt.Sscanf(name, "monitor_tmpl_%d_", &pid); err == nil && !processAlive(pid) {
			ended = append(ended, name)
		}
	}
	_ = rows.Close()
	for _, name := range ended {
		_, _ = admin.ExecContext(ctx, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`)
	}
}

// processAlive reports whether process pid runs on this machine (as
// another user's, too).
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}

// roleLocked runs fn while holding a cluster-wide lock, so parallel test
// processes do not update the shared role at the same moment.
func roleLocked(ctx context.Context, fn func() error) error {
	admin, err := sql.Open("pgx", PostgresURL())
	if err != nil {
		return err
	}
	defer admin.Close()
	conn, err := admin.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, int64(roleLockKey)); err != nil {
		return err
	}
	defer func() { _, _ = conn.ExecContext(ctx, `SELECT pg_advisory_unlock($1)`, int64(roleLockKey)) }()
	return fn()
}

// Logger discards logs unless the test runs verbose, where it writes them to
// the test log.
func Logger(t testing.TB) *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

type tWriter struct{ t testing.TB }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(string(p))
	return len(p), nil
}
