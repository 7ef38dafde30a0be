package store_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

// TestCaptureAdminListPages pages through a tenant's captures with the
// (created_at, id) cursor: every capture once, none of another tenant's,
// also when many share one creation time.
func TestCaptureAdminListPages(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		a, b := uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7())
		colls := map[uuid.UUID]uuid.UUID{}
		for _, id := range []uuid.UUID{a, b} {
			tctx := store.WithTenant(ctx, id)
			coll := uuid.Must(uuid.NewV7())
			colls[id] = coll
			require.NoError(t, st.InTx(tctx, func(tx *store.Tx) error {
				if _, err := tx.TenantInsert(tctx, store.Tenant{ID: id, Name: "t-" + id.String(), Kind: store.TenantManaged, Status: store.TenantEnabled}); err != nil {
					return err
				}
				return tx.CollectionInsertAt(tctx, store.Collection{ID: coll, TenantID: id, Visibility: store.Private, DataScope: id,
					AccessScope: "private", Platform: "x", EntityType: "x.post", ExternalID: id.String(), AdapterID: "x",
					SourceURL: "https://x.com/i/status/1"}, time.Now())
			}))
		}
		const n = 2300
		insert := func(tenant uuid.UUID, count int) {
			tctx := store.WithTenant(ctx, tenant)
			require.NoError(t, st.InTx(tctx, func(tx *store.Tx) error {
				for i := range count {
					// One page each: a collection has one capture in flight per page.
					if _, err := tx.CaptureInsert(tctx, store.Capture{CollectionID: colls[tenant], TenantID: tenant, Visibility: store.Private,
						DataScope: tenant, AccessScope: "private", AdapterID: "x", Provider: "fxtwitter", PageCursor: strconv.Itoa(i)}); err != nil {
						return err
					}
				}
				return nil
			}))
		}
		insert(a, n)
		insert(b, 3)

		seen := map[uuid.UUID]bool{}
		f := store.CaptureFilter{TenantID: a, Limit: 1000}
		for {
			rows, err := st.CaptureAdminList(ctx, f)
			require.NoError(t, err)
			for _, r := range rows {
				require.Equal(t, a, r.TenantID)
				require.Equal(t, "x", r.Platform)
				require.False(t, seen[r.ID], "capture %s listed twice", r.ID)
				seen[r.ID] = true
			}
			if len(rows) < f.Limit {
				break
			}
			last := rows[len(rows)-1]
			f.BeforeAt, f.BeforeID = last.CreatedAt, last.ID
		}
		require.Len(t, seen, n)

		none, err := st.CaptureAdminList(ctx, store.CaptureFilter{TenantID: a, State: store.CaptureFailed, Limit: 10})
		require.NoError(t, err)
		require.Empty(t, none)
		other, err := st.CaptureAdminList(ctx, store.CaptureFilter{TenantID: b, Platform: "x", Adapter: "x", Limit: 10})
		require.NoError(t, err)
		require.Len(t, other, 3)
		later, err := st.CaptureAdminList(ctx, store.CaptureFilter{TenantID: b, Since: time.Now().Add(time.Hour), Limit: 10})
		require.NoError(t, err)
		require.Empty(t, later)
	})
}
