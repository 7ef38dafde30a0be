package testcore

import (
	"context"
	"log/slog"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/runtime"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit"
)

// Running is the runtime's whole core process in a test (Run): HTTP,
// channel API, built-in adapters and the bot, as `monitor serve` runs them.
type Running struct {
	*runtime.Core
	// Clock is the one clock of the core's store, business layer and checks.
	Clock *testkit.Clock
	*Signals
}

// Config is a configuration for Run: the embedded default in a fresh data
// directory, HTTP on a free loopback port, and env on top (MONITOR_* names
// as in production).
func Config(t testing.TB, env map[string]string) *config.Config {
	t.Helper()
	dir := t.TempDir()
	all := map[string]string{"MONITOR_DATA_DIR": dir, "MONITOR_HTTP_ADDR": "127.0.0.1:0"}
	for k, v := range env {
		all[k] = v
	}
	if all["MONITOR_DATA_DIR"] == dir && all["MONITOR_DATABASE_URL"] == "" {
		// The embedded default's database, migrated already: a copy of
		// the test process's template instead of seconds of migrations
		// under the race detector.
		storetest.SeedSQLite(t, filepath.Join(dir, "monitor.db"))
	}
	cfg, err := config.Load(func(k string) (string, bool) { v, ok := all[k]; return v, ok }, nil)
	must(t, "load the test configuration", err)
	return cfg
}

// Run opens a core from cfg on a clock the test moves, with the business
// layer's hooks armed and fetches allowed to reach the fakes, and runs it
// until the test ends; then it checks that the core stopped cleanly. opts
// are further runtime options, e.g. runtime.WithPageSize.
func Run(t testing.TB, cfg *config.Config, opts ...runtime.Option) *Running {
	t.Helper()
	r := &Running{Clock: &testkit.Clock{}, Signals: NewSignals()}
	ctx, cancel := context.WithCancel(context.Background())
	core, err := runtime.Open(ctx, cfg, slog.New(slog.DiscardHandler),
		append([]runtime.Option{runtime.WithClock(r.Clock.Now), runtime.WithHooks(r.Hooks())}, opts...)...)
	if err != nil {
		cancel()
		t.Fatalf("testcore: open the core: %v", err)
	}
	r.Core = core
	if _, err := core.App().SetSetting(ctx, "test", "fetch_allow_hosts", testkit.FetchAllowHosts); err != nil {
		cancel()
		_ = core.Close()
		t.Fatalf("testcore: allow fetches from the fakes: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- core.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("testcore: the core did not stop cleanly: %v", err)
			}
		case <-time.After(runtime.StopTimeout + 5*time.Second):
			t.Errorf("testcore: the core did not stop within %s", runtime.StopTimeout)
		}
		http.DefaultClient.CloseIdleConnections()
	})
	return r
}

// WaitEnded waits until the capture has ended, or fails the test after
// WaitTimeout.
func (s *Signals) WaitEnded(t testing.TB, captureID uuid.UUID) {
	t.Helper()
	select {
	case <-s.Ended(captureID):
	case <-time.After(WaitTimeout):
		t.Fatalf("testcore: capture %s did not end within %s", captureID, WaitTimeout)
	}
}
