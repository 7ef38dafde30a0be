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

// A join request is its tenant's: another tenant neither sees nor
// decides it; operators list and find it across tenants; one pending
// request per connection and invite; a decision happens once.
func TestJoinRequestsPrivateAndDecidedOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		alice, bob := webTenant(t, st, "alice"), webTenant(t, st, "bob")
		actx, bctx := store.WithTenant(context.Background(), alice), store.WithTenant(context.Background(), bob)
		c := addConnection(t, st, alice, "5001", "spore_reader", []byte("sealed"))

		var r store.JoinRequest
		require.NoError(t, st.InTx(actx, func(tx *store.Tx) (err error) {
			r, err = tx.JoinRequestInsert(actx, store.JoinRequest{TenantID: alice, ConnectionID: c.ID,
				Invite: "https://t.me/+HarbourInvite01", Title: "Harbour Watch", AskedBy: "tenant:alice"})
			return err
		}))
		require.Equal(t, store.JoinPending, r.State)
		err := st.InTx(actx, func(tx *store.Tx) error {
			_, err := tx.JoinRequestInsert(actx, store.JoinRequest{TenantID: alice, ConnectionID: c.ID,
				Invite: "https://t.me/+HarbourInvite01", AskedBy: "tenant:alice"})
			return err
		})
		require.ErrorIs(t, err, store.ErrConflict)

		got, err := st.JoinRequestGet(actx, alice, r.ID)
		require.NoError(t, err)
		require.Equal(t, "Harbour Watch", got.Title)
		require.Nil(t, got.DecidedAt)
		_, err = st.JoinRequestGet(bctx, bob, r.ID)
		require.ErrorIs(t, err, store.ErrNotFound)
		list, err := st.JoinRequestList(bctx, bob, 10)
		require.NoError(t, err)
		require.Empty(t, list)

		all, err := st.JoinRequestListAll(context.Background(), store.JoinPending, 10)
		require.NoError(t, err)
		require.Len(t, all, 1)
		owner, err := st.JoinRequestTenant(context.Background(), r.ID)
		require.NoError(t, err)
		require.Equal(t, alice, owner)
		_, err = st.JoinRequestTenant(context.Background(), uuid.Must(uuid.NewV7()))
		require.ErrorIs(t, err, store.ErrNotFound)

		// Bob deciding Alice's request changes nothing.
		err = st.InTx(bctx, func(tx *store.Tx) error {
			_, err := tx.JoinRequestDecide(bctx, store.JoinRequest{ID: r.ID, TenantID: bob, State: store.JoinDenied, DecidedBy: "bob"})
			return err
		})
		require.ErrorIs(t, err, store.ErrNotFound)

		r.State, r.ChannelURL, r.DecidedBy = store.JoinJoined, "https://t.me/c/5550001", "ops"
		require.NoError(t, st.InTx(actx, func(tx *store.Tx) (err error) {
			_, err = tx.JoinRequestDecide(actx, r)
			return err
		}))
		err = st.InTx(actx, func(tx *store.Tx) error {
			_, err := tx.JoinRequestDecide(actx, store.JoinRequest{ID: r.ID, TenantID: alice, State: store.JoinDenied})
			return err
		})
		require.ErrorIs(t, err, store.ErrNotFound, "decided once")
		got, err = st.JoinRequestGet(actx, alice, r.ID)
		require.NoError(t, err)
		require.Equal(t, store.JoinJoined, got.State)
		require.Equal(t, "https://t.me/c/5550001", got.ChannelURL)
		require.NotNil(t, got.DecidedAt)
	})
}

// On PostgreSQL the rows are behind row-level security: raw SQL as
// monitor_app under another tenant, or none, sees, changes and deletes
// nothing.
func TestJoinRequestsRowLevelSecurity(t *testing.T) {
	t.Parallel()
	if !contains(storetest.Drivers(), "postgres") {
		t.Skip("PostgreSQL is not reachable; row-level security exists only there")
	}
	st, appURL := storetest.NewWithURL(t, "postgres")
	db, err := sql.Open("pgx", appURL)
	require.NoError(t, err)
	defer db.Close()
	alice, bob := webTenant(t, st, "alice"), webTenant(t, st, "bob")
	actx := store.WithTenant(context.Background(), alice)
	c := addConnection(t, st, alice, "5001", "spore_reader", []byte("sealed"))
	var r store.JoinRequest
	require.NoError(t, st.InTx(actx, func(tx *store.Tx) (err error) {
		r, err = tx.JoinRequestInsert(actx, store.JoinRequest{TenantID: alice, ConnectionID: c.ID, Invite: "https://t.me/+X1", AskedBy: "a"})
		return err
	}))
	for _, as := range []uuid.UUID{bob, uuid.Nil} {
		require.NoError(t, asTenant(t, db, as, func(tx *sql.Tx) error {
			var n int
			require.NoError(t, tx.QueryRow(`SELECT count(*) FROM join_requests`).Scan(&n))
			require.Zero(t, n)
			res, err := tx.Exec(`UPDATE join_requests SET state = 'joined' WHERE id = $1`, r.ID)
			require.NoError(t, err)
			m, _ := res.RowsAffected()
			require.Zero(t, m)
			res, err = tx.Exec(`DELETE FROM join_requests WHERE id = $1`, r.ID)
			require.NoError(t, err)
			m, _ = res.RowsAffected()
			require.Zero(t, m)
			return nil
		}))
	}
	err = asTenant(t, db, bob, func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT INTO join_requests (id, tenant_id, connection_id, invite, state, asked_by, created_at, updated_at)
			VALUES ($1, $2, $3, 'https://t.me/+X2', 'pending', 'b', now(), now())`, uuid.New(), alice, c.ID)
		return err
	})
	require.Error(t, err, "bob cannot write into Alice's requests")
	got, err := st.JoinRequestGet(actx, alice, r.ID)
	require.NoError(t, err)
	require.Equal(t, store.JoinPending, got.State)
}
