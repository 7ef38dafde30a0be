package backup_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/backup"
	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
)

// olderSnapshot exports a snapshot of a database migrated only through the
// next-to-last migration, as an older monitor leaves it, after running
// extra SQL on it (none: as exported).
func olderSnapshot(t *testing.T, extra string) (zipPath, version string) {
	t.Helper()
	ctx := context.Background()
	files, err := filepath.Glob(filepath.Join("..", "store", "migrations", "sqlite", "*.sql"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 2)
	older := filepath.Base(files[len(files)-2])
	dir := t.TempDir()
	st, err := store.Open(ctx, config.Database{Driver: "sqlite", Path: filepath.Join(dir, "monitor.db")}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	defer st.Close()
	_, err = st.MigrateThrough(ctx, older)
	require.NoError(t, err)
	require.NoError(t, queue.Migrate(ctx, st, slog.New(slog.DiscardHandler)))
	if extra != "" {
		_, err = st.WriteDB().ExecContext(ctx, extra)
		require.NoError(t, err)
	}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "objects"), 0o750))
	zipPath = filepath.Join(t.TempDir(), "old.zip")
	_, err = backup.Export(ctx, st, filepath.Join(dir, "objects"), zipPath, "monitor test")
	require.NoError(t, err)
	return zipPath, older[:4]
}

// The known schema is the one of the snapshot's own version: a snapshot of
// an older instance is compared with a database migrated as far, not with
// this binary's newest schema.
func TestStageComparesWithTheSnapshotsOwnVersion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clean, _ := olderSnapshot(t, "")
	dataDir := t.TempDir()
	staged, err := backup.Stage(ctx, clean, dataDir)
	require.NoError(t, err)
	require.Equal(t, 1, staged.Pending, "the next start applies the newest migration")
	require.FileExists(t, filepath.Join(dataDir, backup.RestoreDir, "monitor.db"))
	entries, err := os.ReadDir(filepath.Join(dataDir, backup.RestoreDir))
	require.NoError(t, err)
	for _, e := range entries {
		require.NotContains(t, e.Name(), "schema", "the reference database is not left behind")
	}

	bad, version := olderSnapshot(t, `CREATE TRIGGER mint_admin AFTER INSERT ON tokens BEGIN UPDATE tokens SET admin = 1 WHERE id = NEW.id; END`)
	dataDir = t.TempDir()
	_, err = backup.Stage(ctx, bad, dataDir)
	require.ErrorContains(t, err, "snapshot refused, nothing was replaced: its database has trigger mint_admin on tokens, which migration "+version+" does not create")
	require.NoDirExists(t, filepath.Join(dataDir, backup.RestoreDir))
}
