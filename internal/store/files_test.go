package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// requireMode fails unless path's permission bits are within want: the
// process's umask may take more away, never add.
func requireMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.Zero(t, st.Mode().Perm()&^want, "%s is %v, more open than %v", path, st.Mode().Perm(), want)
}

// The database holds token digests, sessions and encrypted credentials:
// it and its -wal and -shm files are the owner's alone, new or old.
func TestSQLiteFilesAreOwnerOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "monitor.db")
	st := openTestSQLite(t, path)
	_, err := st.Migrate(ctx)
	require.NoError(t, err)
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		requireMode(t, p, 0o600)
	}
	require.NoError(t, st.Close())

	// A database made before, 0644, is restricted when opened.
	old := filepath.Join(t.TempDir(), "monitor.db")
	st = openTestSQLite(t, old)
	_, err = st.Migrate(ctx)
	require.NoError(t, err)
	require.NoError(t, st.Close())
	require.NoError(t, os.Chmod(old, 0o644))
	st = openTestSQLite(t, old)
	_, err = st.Migrate(ctx)
	require.NoError(t, err)
	for _, p := range []string{old, old + "-wal", old + "-shm"} {
		requireMode(t, p, 0o600)
	}
}
