package store

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSQLiteWriterPragmas checks the writer connection keeps temp storage
// in memory and an 8 MiB page cache (the capsule import's small pwrites),
// and the readers keep SQLite's defaults.
func TestSQLiteWriterPragmas(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openTestSQLite(t, filepath.Join(t.TempDir(), "p.db"))

	var tempStore, cache int
	require.NoError(t, st.write.QueryRowContext(ctx, "PRAGMA temp_store").Scan(&tempStore))
	require.NoError(t, st.write.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&cache))
	require.Equal(t, 2, tempStore, "temp_store on the writer: 2 is MEMORY")
	require.Equal(t, -8192, cache)

	require.NoError(t, st.read.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&cache))
	require.Equal(t, -2000, cache, "readers keep the default cache")
}
