package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

// TestStoreWritesTheTimeOfItsClock: every time the store writes comes from
// the clock it was opened with (store.WithClock), in UTC at microseconds,
// and AfterCommit runs only once the transaction has committed.
func TestStoreWritesTheTimeOfItsClock(t *testing.T) {
	t.Parallel()
	at := time.Date(2031, 2, 3, 4, 5, 6, 789123456, time.FixedZone("UTC+1", 3600))
	want := at.UTC().Truncate(time.Microsecond)
	for _, d := range storetest.Drivers() {
		t.Run(d, func(t *testing.T) {
			st := storetest.New(t, d, store.WithClock(func() time.Time { return at }))
			require.Equal(t, at, st.Clock()(), "the business layer reads the same clock")
			ctx, id := newTenantCtx(context.Background())
			committed := false
			err := st.InTx(ctx, func(tx *store.Tx) error {
				tx.AfterCommit(func() { committed = true })
				created, err := insertTenant(t, ctx, tx, store.Tenant{ID: id, Name: "alice", Kind: store.TenantManaged, Status: store.TenantEnabled})
				require.Equal(t, want, created.CreatedAt)
				require.False(t, committed, "not before the commit")
				return err
			})
			require.NoError(t, err)
			require.True(t, committed)
			got, err := st.TenantGetByID(ctx, id)
			require.NoError(t, err)
			require.Equal(t, want, got.CreatedAt.UTC(), "stored as the clock said")

			rolledBack := false
			_ = st.InTx(ctx, func(tx *store.Tx) error {
				tx.AfterCommit(func() { rolledBack = true })
				return store.ErrConflict
			})
			require.False(t, rolledBack, "never after a rollback")
		})
	}
}
