package runtime_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/runtime"
)

// A second serve, migrate or import on the embedded data dir of a running
// core refuses with a message naming the holder; once the core has
// stopped, each may run. Reading commands still work beside it.
func TestOneProcessPerDataDir(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	log := slog.New(slog.DiscardHandler)
	ctx := context.Background()
	first, err := runtime.Open(ctx, cfg, log)
	require.NoError(t, err)

	_, err = runtime.Open(ctx, cfg, log)
	require.ErrorContains(t, err, "is in use by another monitor process")
	require.ErrorContains(t, err, "only one monitor serve, migrate or import may run on an embedded data dir at a time")
	_, err = runtime.Migrate(ctx, cfg, log)
	require.ErrorContains(t, err, "is in use by another monitor process")
	_, err = runtime.OpenOffline(ctx, cfg, log, runtime.OfflineOptions{Media: true, Exclusive: true})
	require.ErrorContains(t, err, "is in use by another monitor process")
	admin, err := runtime.OpenOffline(ctx, cfg, log, runtime.OfflineOptions{})
	require.NoError(t, err, "an admin command runs beside serve")
	require.NoError(t, admin.Close())

	require.NoError(t, first.Close())
	applied, err := runtime.Migrate(ctx, cfg, log)
	require.NoError(t, err)
	require.Empty(t, applied)
	imp, err := runtime.OpenOffline(ctx, cfg, log, runtime.OfflineOptions{Media: true, Exclusive: true})
	require.NoError(t, err)
	_, err = runtime.Open(ctx, cfg, log)
	require.ErrorContains(t, err, "is in use by another monitor process")
	require.NoError(t, imp.Close())
	again, err := runtime.Open(ctx, cfg, log)
	require.NoError(t, err)
	require.NoError(t, again.Close())
}
