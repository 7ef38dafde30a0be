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
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
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
	ctx := context.Background()
	switch driver {
	case "sqlite":
		p := filepath.Join(t.TempDir(), "monitor.db")
		st := open(t, config.Database{Driver: "sqlite", Path: p, URL: "sqlite://" + p}, opts...)
		migrate(t, st)
		return st, "sqlite://" + p
	case "postgres":
		ownerURL, appURL := NewPostgresDatabase(t)
		owner := open(t, config.Database{Driver: "postgres", URL: ownerURL})
		migrate(t, owner)
		withRoleLock(t, func() {
			if err := owner.EnsureAppRole(ctx, AppPassword); err != nil {
				t.Fatalf("storetest: create %s: %v", store.AppRole, err)
			}
		})
		_ = owner.Close()
		return open(t, config.Database{Driver: "postgres", URL: appURL}, opts...), appURL
	}
	t.Fatalf("storetest: unknown driver %q", driver)
	return nil, ""
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

func migrate(t testing.TB, st *store.Store) {
	t.Helper()
	ctx := context.Background()
	if _, err := st.Migrate(ctx); err != nil {
		t.Fatalf("storetest: migrate %s: %v", st.Driver(), err)
	}
	if err := queue.Migrate(ctx, st, Logger(t)); err != nil {
		t.Fatalf("storetest: migrate queue on %s: %v", st.Driver(), err)
	}
}

// NewPostgresDatabase creates an empty database for one test, dropped when
// the test ends, and returns the owner's and monitor_app's URLs for it.
// With MONITOR_TEST_KEEP_POSTGRES=1 the database is kept and its name
// logged, to look into after a benchmark (EXPLAIN ANALYZE); drop it by hand.
func NewPostgresDatabase(t testing.TB) (ownerURL, appURL string) {
	t.Helper()
	admin, err := sql.Open("pgx", PostgresURL())
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "monitor_test_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec(`CREATE DATABASE ` + name); err != nil {
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
	u, err := url.Parse(PostgresURL())
	if err != nil {
		t.Fatalf("storetest: MONITOR_TEST_POSTGRES_URL: %v", err)
	}
	u.Path = "/" + name
	ownerURL = u.String()
	u.User = url.UserPassword(store.AppRole, AppPassword)
	return ownerURL, u.String()
}

// withRoleLock runs fn while holding a cluster-wide lock, so parallel tests
// do not update the shared role at the same moment.
func withRoleLock(t testing.TB, fn func()) {
	t.Helper()
	ctx := context.Background()
	admin, err := sql.Open("pgx", PostgresURL())
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	defer admin.Close()
	conn, err := admin.Conn(ctx)
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, int64(roleLockKey)); err != nil {
		t.Fatalf("storetest: %v", err)
	}
	defer func() { _, _ = conn.ExecContext(ctx, `SELECT pg_advisory_unlock($1)`, int64(roleLockKey)) }()
	fn()
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
