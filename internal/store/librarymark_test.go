package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

// A tenant's library mark moves with every commit that changes what its
// listing shows, also when another tenant changes shared public content it
// saved (a capture of it, the collection itself), and stays put while
// nothing is committed. On PostgreSQL it is the tenant's own: what other
// tenants do to content it does not save, and what the listing does not
// read, leave it.
func TestLibraryMarkMovesWithTheListing(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		pg := st.Driver() == "postgres"
		a, b, c := webTenant(t, st, "a"), webTenant(t, st, "b"), webTenant(t, st, "c")
		actx, bctx, cctx := store.WithTenant(ctx, a), store.WithTenant(ctx, b), store.WithTenant(ctx, c)
		exec := func(ctx context.Context, q string, args ...any) {
			t.Helper()
			require.NoError(t, st.InTx(ctx, func(tx *store.Tx) error {
				_, err := tx.SQL().ExecContext(ctx, q, args...)
				return err
			}))
		}
		mark := func(tenant uuid.UUID) uint64 {
			t.Helper()
			m, ok := st.LibraryMark(ctx, tenant)
			require.True(t, ok)
			return m
		}
		now := time.Now().UTC()
		pub := uuid.Must(uuid.NewV7())
		require.NoError(t, st.InTx(bctx, func(tx *store.Tx) error {
			return tx.CollectionInsertAt(ctx, store.Collection{ID: pub, TenantID: b, Visibility: store.Public, DataScope: store.PublicScope,
				AccessScope: "public", Platform: "x", EntityType: "x.post", ExternalID: "1", AdapterID: "x",
				SourceURL: "https://x.com/i/status/1"}, now)
		}))
		for _, ctx := range []context.Context{actx, bctx} {
			tenant, _ := store.TenantFrom(ctx)
			require.NoError(t, st.InTx(ctx, func(tx *store.Tx) error { _, err := tx.TenantCollectionSave(ctx, tenant, pub); return err }))
		}

		m := mark(a)
		require.Equal(t, m, mark(a), "nothing was committed")
		_, err := st.SavedCollectionList(actx, a, nil, 10)
		require.NoError(t, err)
		require.Equal(t, m, mark(a), "a read commits nothing")

		// c's own private collection is nothing of a's.
		priv := uuid.Must(uuid.NewV7())
		require.NoError(t, st.InTx(cctx, func(tx *store.Tx) error {
			if err := tx.CollectionInsertAt(ctx, store.Collection{ID: priv, TenantID: c, Visibility: store.Private, DataScope: c,
				AccessScope: "private", Platform: "x", EntityType: "x.post", ExternalID: "2", AdapterID: "x",
				SourceURL: "https://x.com/i/status/2"}, now); err != nil {
				return err
			}
			_, err := tx.TenantCollectionSave(ctx, c, priv)
			return err
		}))
		if pg {
			require.Equal(t, m, mark(a), "another tenant's own save")
		}
		m = mark(a)

		// b captures the public post a saved too: a's listing shows its state.
		capture := uuid.Must(uuid.NewV7())
		exec(bctx, `INSERT INTO captures (id, collection_id, tenant_id, visibility, data_scope, access_scope, adapter_id, provider_id, state, created_at, updated_at)
			VALUES ($1, $2, $3, 'public', $4, 'public', 'x', 'fxtwitter', 'queued', $5, $5)`, capture, pub, b, store.PublicScope, now)
		require.NotEqual(t, m, mark(a), "another tenant's capture of shared content")
		m = mark(a)
		exec(bctx, `UPDATE captures SET state = 'downloading', updated_at = $2 WHERE id = $1`, capture, now.Add(time.Second))
		require.NotEqual(t, m, mark(a), "its state")
		m = mark(a)
		exec(bctx, `UPDATE captures SET updated_at = $2 WHERE id = $1`, capture, now.Add(2*time.Second))
		if pg {
			require.Equal(t, m, mark(a), "what the listing does not read")
		}
		m = mark(a)
		exec(bctx, `UPDATE collections SET source_url = 'https://x.com/b/status/1' WHERE id = $1`, pub)
		require.NotEqual(t, m, mark(a), "the shared collection")
		m = mark(a)

		// A rollback changes nothing.
		_ = st.InTx(actx, func(tx *store.Tx) error {
			require.NoError(t, tx.TenantCollectionDelete(ctx, a, pub))
			return context.Canceled
		})
		require.Equal(t, m, mark(a), "a rollback")
		require.NoError(t, st.InTx(actx, func(tx *store.Tx) error { return tx.TenantCollectionDelete(ctx, a, pub) }))
		require.NotEqual(t, m, mark(a), "a's delete")
		m = mark(a)
		exec(bctx, `UPDATE captures SET state = 'complete' WHERE id = $1`, capture)
		if pg {
			require.Equal(t, m, mark(a), "content a no longer saves")
		}

		if !pg {
			return // one writer: the transactions below cannot overlap on SQLite
		}
		// Two tenants save the same public post at once, each touching
		// itself first and then both: versions written when touched
		// would deadlock here; they are written at commit.
		require.NoError(t, st.InTx(actx, func(tx *store.Tx) error { _, err := tx.TenantCollectionSave(ctx, a, pub); return err }))
		for range 3 {
			var both sync.WaitGroup
			both.Add(2)
			errs := make(chan error, 2)
			var wg sync.WaitGroup
			for _, ctx := range []context.Context{actx, bctx} {
				wg.Go(func() {
					tenant, _ := store.TenantFrom(ctx)
					errs <- st.InTx(ctx, func(tx *store.Tx) error {
						if _, err := tx.SQL().ExecContext(ctx, `UPDATE tenant_collections SET saved_at = $3 WHERE tenant_id = $1 AND collection_id = $2`,
							tenant, pub, time.Now().UTC()); err != nil {
							both.Done()
							return err
						}
						both.Done()
						both.Wait()
						_, err := tx.SQL().ExecContext(ctx, `INSERT INTO captures (id, collection_id, tenant_id, visibility, data_scope, access_scope, adapter_id, provider_id, state, created_at, updated_at)
							VALUES ($1, $2, $3, 'public', $4, 'public', 'x', 'fxtwitter', 'complete', $5, $5)`,
							uuid.Must(uuid.NewV7()), pub, tenant, store.PublicScope, time.Now().UTC())
						return err
					})
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				require.NoError(t, err)
			}
			require.NotEqual(t, m, mark(a))
			m = mark(a)
		}
	})
}
