package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

// A source counts the watches on it for watch_max_sources: a watch that
// goes, by its own delete or with its deleted tenant, counts no more, in
// the transaction that removes it; a rejected watch, released when it was
// rejected, is not released twice.
func TestWatchCountFollowsDeletes(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		bg := context.Background()
		src := store.WatchSource{ID: uuid.New(), AdapterID: "telegram", Provider: "tme-public", Platform: "telegram",
			EntityType: "telegram.channel", ExternalID: "harbour", URL: "https://t.me/harbour"}
		watch := func(name string, state string) (context.Context, uuid.UUID, uuid.UUID) {
			t.Helper()
			ctx, id := newTenantCtx(bg)
			var w store.Watch
			require.NoError(t, st.InTx(ctx, func(tx *store.Tx) error {
				if _, err := insertTenant(t, ctx, tx, store.Tenant{ID: id, Name: name, Kind: store.TenantManaged, Status: store.TenantEnabled}); err != nil {
					return err
				}
				if _, err := tx.WatchSourceAdd(ctx, src, time.Now()); err != nil {
					return err
				}
				var err error
				w, err = tx.WatchInsert(ctx, store.Watch{TenantID: id, SourceID: src.ID, URL: src.URL, IntervalSeconds: 900,
					Notify: "deliver", State: state})
				return err
			}))
			return ctx, id, w.ID
		}
		counts := func() (watchers, sources int) {
			t.Helper()
			got, err := st.WatchSourceGet(bg, src.ID)
			require.NoError(t, err)
			require.NoError(t, st.InTx(bg, func(tx *store.Tx) error {
				var err error
				sources, err = tx.WatchSourceCount(bg)
				return err
			}))
			return got.Watchers, sources
		}

		aliceCtx, alice, _ := watch("alice", store.WatchActive)
		bobCtx, bob, bobWatch := watch("bob", store.WatchPaused)
		carolCtx, carol, carolWatch := watch("carol", store.WatchPending)
		w, n := counts()
		require.Equal(t, 3, w)
		require.Equal(t, 1, n)

		// Alice's tenant is deleted: its watch goes with it (the foreign key
		// cascades) and so does its count.
		require.NoError(t, st.InTx(aliceCtx, func(tx *store.Tx) error {
			_, err := tx.SQL().ExecContext(aliceCtx, `DELETE FROM tenants WHERE id = $1`, alice)
			return err
		}))
		w, _ = counts()
		require.Equal(t, 2, w, "the deleted tenant's watch counts no more")

		// A delete that rolls back changes nothing.
		err := st.InTx(bobCtx, func(tx *store.Tx) error {
			if _, err := tx.SQL().ExecContext(bobCtx, `DELETE FROM tenants WHERE id = $1`, bob); err != nil {
				return err
			}
			return store.ErrConflict
		})
		require.ErrorIs(t, err, store.ErrConflict)
		w, _ = counts()
		require.Equal(t, 2, w, "a delete that rolled back released nothing")

		// Carol's pending watch is rejected (released then) and deleted.
		require.NoError(t, st.InTx(carolCtx, func(tx *store.Tx) error {
			cur, err := tx.WatchGet(carolCtx, carol, carolWatch)
			if err != nil {
				return err
			}
			cur.State = store.WatchRejected
			if _, err := tx.WatchUpdate(carolCtx, cur); err != nil {
				return err
			}
			return tx.WatchSourceRelease(carolCtx, src.ID)
		}))
		w, _ = counts()
		require.Equal(t, 1, w)
		require.NoError(t, st.InTx(carolCtx, func(tx *store.Tx) error {
			_, err := tx.WatchDelete(carolCtx, carol, carolWatch)
			return err
		}))
		w, _ = counts()
		require.Equal(t, 1, w, "a rejected watch is not released twice")

		// Bob deletes his watch: no watcher is left, no source counts.
		require.NoError(t, st.InTx(bobCtx, func(tx *store.Tx) error {
			_, err := tx.WatchDelete(bobCtx, bob, bobWatch)
			return err
		}))
		w, n = counts()
		require.Equal(t, 0, w)
		require.Equal(t, 0, n, "the source no longer counts against watch_max_sources")
	})
}
