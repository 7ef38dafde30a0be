package store_test

import (
	"context"
	"crypto/sha256"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

// insertTenant creates a tenant the way the app does: acting as the new
// tenant, which row-level security requires on PostgreSQL.
func insertTenant(t *testing.T, ctx context.Context, tx *store.Tx, tn store.Tenant) (store.Tenant, error) {
	t.Helper()
	return tx.TenantInsert(ctx, tn)
}

func newTenantCtx(ctx context.Context) (context.Context, uuid.UUID) {
	id := uuid.Must(uuid.NewV7())
	return store.WithTenant(ctx, id), id
}

func TestTenants(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx, id := newTenantCtx(context.Background())
		quota := int64(10 << 20)
		var created store.Tenant
		err := st.InTx(ctx, func(tx *store.Tx) error {
			var err error
			created, err = insertTenant(t, ctx, tx, store.Tenant{ID: id, Name: "alice", Kind: store.TenantManaged, Status: store.TenantEnabled, QuotaBytes: &quota})
			return err
		})
		require.NoError(t, err)
		require.NotEqual(t, uuid.Nil, created.ID)

		got, err := st.TenantGetByName(ctx, "alice")
		require.NoError(t, err)
		require.Equal(t, created.ID, got.ID)
		require.Equal(t, quota, *got.QuotaBytes)
		require.Equal(t, store.TenantEnabled, got.Status)
		require.True(t, created.CreatedAt.Equal(got.CreatedAt))

		byID, err := st.TenantGetByID(ctx, created.ID)
		require.NoError(t, err)
		require.Equal(t, "alice", byID.Name)

		dupCtx, dupID := newTenantCtx(context.Background())
		err = st.InTx(dupCtx, func(tx *store.Tx) error {
			_, err := tx.TenantInsert(dupCtx, store.Tenant{ID: dupID, Name: "alice", Kind: store.TenantManaged, Status: store.TenantEnabled})
			return err
		})
		require.ErrorIs(t, err, store.ErrConflict)

		_, err = st.TenantGetByName(ctx, "bob")
		require.ErrorIs(t, err, store.ErrNotFound)
		other := uuid.New()
		_, err = st.TenantGetByID(store.WithTenant(ctx, other), other)
		require.ErrorIs(t, err, store.ErrNotFound)
	})
}

func TestTokens(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx, id := newTenantCtx(context.Background())
		digest := sha256.Sum256([]byte("secret"))
		var tok store.Token
		err := st.InTx(ctx, func(tx *store.Tx) error {
			tenant, err := tx.TenantInsert(ctx, store.Tenant{ID: id, Name: "carol", Kind: store.TenantManaged, Status: store.TenantEnabled})
			if err != nil {
				return err
			}
			tok, err = tx.TokenInsert(ctx, store.Token{TenantID: tenant.ID, Name: "cli", Digest: digest[:]})
			return err
		})
		require.NoError(t, err)

		got, err := st.TokenTenantByDigest(ctx, digest[:])
		require.NoError(t, err)
		require.Equal(t, tok.ID, got.ID)
		require.Equal(t, tok.TenantID, got.TenantID)
		require.Nil(t, got.RevokedAt)

		other := sha256.Sum256([]byte("other"))
		_, err = st.TokenTenantByDigest(ctx, other[:])
		require.ErrorIs(t, err, store.ErrNotFound)

		orphan := uuid.New()
		err = st.InTx(store.WithTenant(ctx, orphan), func(tx *store.Tx) error {
			_, err := tx.TokenInsert(ctx, store.Token{TenantID: orphan, Name: "orphan", Digest: other[:]})
			return err
		})
		require.Error(t, err, "a token must belong to an existing tenant")
	})
}

func TestInTxRollsBackOnError(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx, id := newTenantCtx(context.Background())
		boom := context.Canceled
		err := st.InTx(ctx, func(tx *store.Tx) error {
			if _, err := tx.TenantInsert(ctx, store.Tenant{ID: id, Name: "dave", Kind: store.TenantManaged, Status: store.TenantEnabled}); err != nil {
				return err
			}
			return boom
		})
		require.ErrorIs(t, err, boom)
		_, err = st.TenantGetByName(ctx, "dave")
		require.ErrorIs(t, err, store.ErrNotFound)
	})
}

func TestTenantAdminMarkIsKeptAndListed(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx, id := newTenantCtx(context.Background())
		require.NoError(t, st.InTx(ctx, func(tx *store.Tx) error {
			_, err := insertTenant(t, ctx, tx, store.Tenant{ID: id, Name: "ops", Kind: store.TenantPersonal, Status: store.TenantEnabled})
			return err
		}))
		got, err := st.TenantGetByName(ctx, "ops")
		require.NoError(t, err)
		require.False(t, got.Admin, "a new tenant is no operator")

		got.Admin = true
		require.NoError(t, st.InTx(ctx, func(tx *store.Tx) error { return tx.TenantUpdate(ctx, got) }))
		byName, err := st.TenantGetByName(ctx, "ops")
		require.NoError(t, err)
		require.True(t, byName.Admin)
		byID, err := st.TenantGetByID(ctx, id)
		require.NoError(t, err)
		require.True(t, byID.Admin)
		all, err := st.TenantList(ctx)
		require.NoError(t, err)
		require.Len(t, all, 1)
		require.True(t, all[0].Admin)
	})
}
