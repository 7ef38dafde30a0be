// Package storetest opens fresh, migrated stores for tests: one per test, on
// every database this build supports, so one behaviour suite covers them all.
package storetest

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/store"
)

// Drivers lists the databases a suite runs on.
func Drivers() []string { return []string{"sqlite"} }

// Each runs fn as a subtest on a fresh store of every driver.
func Each(t *testing.T, fn func(t *testing.T, st *store.Store)) {
	t.Helper()
	for _, d := range Drivers() {
		t.Run(d, func(t *testing.T) {
			fn(t, New(t, d))
		})
	}
}

// New opens and migrates a fresh store of the given driver, closed when the
// test ends.
func New(t testing.TB, driver string) *store.Store {
	t.Helper()
	ctx := context.Background()
	var cfg config.Database
	switch driver {
	case "sqlite":
		p := filepath.Join(t.TempDir(), "monitor.db")
		cfg = config.Database{Driver: "sqlite", Path: p, URL: "sqlite://" + p}
	default:
		t.Fatalf("storetest: unknown driver %q", driver)
	}
	st, err := store.Open(ctx, cfg, Logger(t))
	if err != nil {
		t.Fatalf("storetest: open %s: %v", driver, err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if _, err := st.Migrate(ctx); err != nil {
		t.Fatalf("storetest: migrate %s: %v", driver, err)
	}
	return st
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
