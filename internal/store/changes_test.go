package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

// The change mark moves after every commit, this store's and another
// process's on the same file, and stays put while nothing is committed;
// PostgreSQL gives none, so nothing is kept there.
func TestChangeMarkMovesOnEveryCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, url := storetest.NewWithURL(t, "sqlite")
	m0, ok := st.ChangeMark(ctx)
	require.True(t, ok)
	m1, _ := st.ChangeMark(ctx)
	require.Equal(t, m0, m1, "nothing was committed")
	_, err := st.TenantList(ctx)
	require.NoError(t, err)
	m2, _ := st.ChangeMark(ctx)
	require.Equal(t, m0, m2, "a read commits nothing")

	webTenant(t, st, "alice")
	m3, _ := st.ChangeMark(ctx)
	require.NotEqual(t, m2, m3, "this store's own commit")

	// Another store on the same file stands for `monitor admin` beside serve.
	other, err := store.Open(ctx, config.Database{Driver: "sqlite", Path: strings.TrimPrefix(url, "sqlite://"), URL: url}, storetest.Logger(t))
	require.NoError(t, err)
	defer other.Close()
	webTenant(t, other, "bob")
	m4, _ := st.ChangeMark(ctx)
	require.NotEqual(t, m3, m4, "another connection's commit")
	m5, _ := st.ChangeMark(ctx)
	require.Equal(t, m4, m5)

	// A transaction rolled back leaves the mark.
	_ = st.InTx(ctx, func(tx *store.Tx) error {
		_, err := tx.TenantInsert(ctx, store.Tenant{Name: "carol", Kind: store.TenantManaged, Status: store.TenantEnabled})
		require.NoError(t, err)
		return context.Canceled
	})
	m6, _ := st.ChangeMark(ctx)
	require.Equal(t, m5, m6, "a rollback commits nothing")

	if storetest.PostgresURL() != "" {
		pg := storetest.New(t, "postgres")
		_, ok := pg.ChangeMark(ctx)
		require.False(t, ok, "PostgreSQL cannot tell")
	}
}
