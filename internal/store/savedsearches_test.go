package store_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

func TestSavedSearchesAreTheTenants(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		alice, bob := webTenant(t, st, "alice"), webTenant(t, st, "bob")
		actx, bctx := store.WithTenant(ctx, alice), store.WithTenant(ctx, bob)

		var tide store.SavedSearch
		require.NoError(t, st.InTx(actx, func(tx *store.Tx) (err error) {
			tide, err = tx.SavedSearchInsert(actx, store.SavedSearch{TenantID: alice, Name: "Tide", Query: "潮 has:video"})
			if err != nil {
				return err
			}
			_, err = tx.SavedSearchInsert(actx, store.SavedSearch{TenantID: alice, Name: "Fog", Query: `"fog over"`})
			return err
		}))
		err := st.InTx(actx, func(tx *store.Tx) error {
			_, err := tx.SavedSearchInsert(actx, store.SavedSearch{TenantID: alice, Name: "Tide", Query: "other"})
			return err
		})
		require.ErrorIs(t, err, store.ErrConflict, "a name is unique per tenant")
		require.NoError(t, st.InTx(bctx, func(tx *store.Tx) error {
			_, err := tx.SavedSearchInsert(bctx, store.SavedSearch{TenantID: bob, Name: "Tide", Query: "bob's"})
			return err
		}), "another tenant may use the same name")

		list, err := st.SavedSearchList(actx, alice)
		require.NoError(t, err)
		require.Len(t, list, 2)
		require.Equal(t, []string{"Fog", "Tide"}, []string{list[0].Name, list[1].Name}, "by name")
		require.Equal(t, "潮 has:video", list[1].Query)
		got, err := st.SavedSearchGetByName(actx, alice, "Tide")
		require.NoError(t, err)
		require.Equal(t, tide.ID, got.ID)
		_, err = st.SavedSearchGetByName(bctx, bob, "Fog")
		require.ErrorIs(t, err, store.ErrNotFound)

		require.NoError(t, st.InTx(actx, func(tx *store.Tx) error {
			n, err := tx.SavedSearchCount(actx, alice)
			require.Equal(t, 2, n)
			return err
		}))

		// Bob can neither rename nor delete Alice's.
		err = st.InTx(bctx, func(tx *store.Tx) error {
			_, err := tx.SavedSearchDelete(bctx, bob, tide.ID)
			return err
		})
		require.ErrorIs(t, err, store.ErrNotFound)
		err = st.InTx(bctx, func(tx *store.Tx) error {
			_, err := tx.SavedSearchRename(bctx, bob, tide.ID, "mine")
			return err
		})
		require.ErrorIs(t, err, store.ErrNotFound)

		err = st.InTx(actx, func(tx *store.Tx) error {
			_, err := tx.SavedSearchRename(actx, alice, tide.ID, "Fog")
			return err
		})
		require.ErrorIs(t, err, store.ErrConflict, "renaming onto a name in use")
		require.NoError(t, st.InTx(actx, func(tx *store.Tx) error {
			r, err := tx.SavedSearchRename(actx, alice, tide.ID, "Tides")
			require.Equal(t, "Tides", r.Name)
			return err
		}))
		require.NoError(t, st.InTx(actx, func(tx *store.Tx) error {
			gone, err := tx.SavedSearchDelete(actx, alice, tide.ID)
			require.Equal(t, "Tides", gone.Name)
			return err
		}))
		list, err = st.SavedSearchList(actx, alice)
		require.NoError(t, err)
		require.Len(t, list, 1)
		require.Equal(t, "Fog", list[0].Name)
	})
}

// TestSavedSearchesUnderRowLevelSecurity reads and writes saved_searches
// as monitor_app with raw SQL: another tenant, or none, sees nothing and
// cannot write a row for Alice.
func TestSavedSearchesUnderRowLevelSecurity(t *testing.T) {
	t.Parallel()
	if !contains(storetest.Drivers(), "postgres") {
		t.Skip("PostgreSQL is not reachable; row-level security exists only there")
	}
	st, appURL := storetest.NewWithURL(t, "postgres")
	ctx := context.Background()
	alice, bob := webTenant(t, st, "alice"), webTenant(t, st, "bob")
	actx := store.WithTenant(ctx, alice)
	require.NoError(t, st.InTx(actx, func(tx *store.Tx) error {
		_, err := tx.SavedSearchInsert(actx, store.SavedSearch{TenantID: alice, Name: "Tide", Query: "tide"})
		return err
	}))
	db, err := sql.Open("pgx", appURL)
	require.NoError(t, err)
	defer db.Close()
	for _, as := range []uuid.UUID{bob, uuid.Nil} {
		require.NoError(t, asTenant(t, db, as, func(tx *sql.Tx) error {
			var n int
			require.NoError(t, tx.QueryRow(`SELECT count(*) FROM saved_searches`).Scan(&n))
			require.Zero(t, n, "as %s", as)
			return nil
		}))
		err := asTenant(t, db, as, func(tx *sql.Tx) error {
			_, err := tx.Exec(`INSERT INTO saved_searches (id, tenant_id, name, query, created_at, updated_at) VALUES ($1, $2, 'forged', 'x', now(), now())`,
				uuid.New(), alice)
			return err
		})
		require.Error(t, err, "as %s", as)
	}
}
