package runtime_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/runtime"
)

// TestOpenOfflineOpensMediaOnlyWhenAsked: admin commands work on the
// database alone, so a broken media store stops only the commands that
// need media bytes.
func TestOpenOfflineOpensMediaOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	ctx := context.Background()
	log := slog.New(slog.DiscardHandler)
	require.NoError(t, os.WriteFile(filepath.Join(cfg.DataDir, "objects"), []byte("in the way"), 0o600))

	o, err := runtime.OpenOffline(ctx, cfg, log, runtime.OfflineOptions{})
	require.NoError(t, err)
	tn, err := o.App().CreateTenant(ctx, "test", "alice", nil)
	require.NoError(t, err)
	require.Equal(t, "alice", tn.Name)
	require.NoError(t, o.Close())

	_, err = runtime.OpenOffline(ctx, cfg, log, runtime.OfflineOptions{Media: true})
	require.ErrorContains(t, err, filepath.Join(cfg.DataDir, "objects"), "the error names the media store that cannot open")

	// The next command finds what the first one wrote.
	o, err = runtime.OpenOffline(ctx, cfg, log, runtime.OfflineOptions{})
	require.NoError(t, err)
	defer o.Close()
	got, err := o.App().TenantByName(ctx, "alice")
	require.NoError(t, err)
	require.Equal(t, tn.ID, got.ID)
}
