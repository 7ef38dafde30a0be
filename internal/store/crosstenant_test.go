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

// A saved reference never reaches another tenant's private collection: the
// save statements refuse it on both databases (on SQLite nothing else
// would), and the reads that start from a tenant's references check the
// scope too, so a reference an earlier version wrote (the capsule import
// linked other tenants' private collections on SQLite) reads nothing.
func TestSavedReferencesStayInScope(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		a, b := uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7())
		for _, id := range []uuid.UUID{a, b} {
			require.NoError(t, st.InTx(store.WithTenant(ctx, id), func(tx *store.Tx) error {
				_, err := tx.TenantInsert(ctx, store.Tenant{ID: id, Name: "t-" + id.String(), Kind: store.TenantManaged, Status: store.TenantEnabled})
				return err
			}))
		}
		priv := uuid.Must(uuid.NewV7())
		actx, bctx := store.WithTenant(ctx, a), store.WithTenant(ctx, b)
		require.NoError(t, st.InTx(actx, func(tx *store.Tx) error {
			return tx.CollectionInsertAt(ctx, store.Collection{ID: priv, TenantID: a, Visibility: store.Private, DataScope: a,
				AccessScope: "private", Platform: "x", EntityType: "x.post", ExternalID: "1", AdapterID: "x", SourceURL: "https://x.com/i/status/1"},
				time.Now())
		}))

		err := st.InTx(bctx, func(tx *store.Tx) error { _, err := tx.TenantCollectionSave(ctx, b, priv); return err })
		require.ErrorIs(t, err, store.ErrNotFound, "save")
		err = st.InTx(bctx, func(tx *store.Tx) error { _, err := tx.TenantCollectionSaveAt(ctx, b, priv, time.Now()); return err })
		require.ErrorIs(t, err, store.ErrNotFound, "save at")
		err = st.InTx(bctx, func(tx *store.Tx) error { _, _, err := tx.CollectionCanonical(ctx, b, priv); return err })
		require.ErrorIs(t, err, store.ErrNotFound, "canonical")
		require.NoError(t, st.InTx(actx, func(tx *store.Tx) error { _, err := tx.TenantCollectionSave(ctx, a, priv); return err }),
			"the owner saves it")

		if st.Driver() != "sqlite" {
			return // row-level security refuses the reference below outright
		}
		_, err = st.WriteDB().ExecContext(ctx,
			`INSERT INTO tenant_collections (tenant_id, collection_id, saved_at, created_at) VALUES ($1, $2, $3, $3)`, b, priv, time.Now().UTC())
		require.NoError(t, err)
		_, err = st.SavedCollectionGet(bctx, b, priv)
		require.ErrorIs(t, err, store.ErrNotFound, "a stray reference reads nothing")
		list, err := st.SavedCollectionList(bctx, b, nil, 10)
		require.NoError(t, err)
		require.Empty(t, list)
		mine, err := st.SavedCollectionList(actx, a, nil, 10)
		require.NoError(t, err)
		require.Len(t, mine, 1)
	})
}
