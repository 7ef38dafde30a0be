package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

// addConnection creates a connection with a first credential, as app's
// account add does.
func addConnection(t *testing.T, st *store.Store, tenantID uuid.UUID, account, handle string, sealed []byte) store.Connection {
	t.Helper()
	ctx := store.WithTenant(context.Background(), tenantID)
	var c store.Connection
	require.NoError(t, st.InTx(ctx, func(tx *store.Tx) (err error) {
		c, err = tx.ConnectionInsert(ctx, store.Connection{TenantID: tenantID, AdapterID: "x", Provider: "x-session", AccountID: account})
		if err != nil {
			return err
		}
		c, err = tx.ConnectionSetCredential(ctx, tenantID, c.ID, handle, store.AccountCredential{
			ID: uuid.Must(uuid.NewV7()), Ciphertext: sealed, Nonce: []byte("nonce-bytes!"), KeyVersion: 1})
		return err
	}))
	return c
}

func TestConnectionsReplaceRevokeAndDefault(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		alice, bob := webTenant(t, st, "alice"), webTenant(t, st, "bob")
		actx, bctx := store.WithTenant(context.Background(), alice), store.WithTenant(context.Background(), bob)

		c := addConnection(t, st, alice, "1001", "alice_x", []byte("sealed one"))
		require.Equal(t, store.ConnectionActive, c.Status)
		require.Equal(t, 1, c.CredentialRevision)
		require.NotNil(t, c.CredentialID)
		require.NotNil(t, c.CheckedAt)
		first := *c.CredentialID

		cred, err := st.AccountCredentialGet(actx, alice, first)
		require.NoError(t, err)
		require.Equal(t, []byte("sealed one"), cred.Ciphertext)
		require.Equal(t, []byte("nonce-bytes!"), cred.Nonce)
		require.Equal(t, 1, cred.Revision)
		require.Equal(t, 1, cred.KeyVersion)

		// The same account again: the same connection, a new credential,
		// the old one gone.
		err = st.InTx(actx, func(tx *store.Tx) error {
			_, err := tx.ConnectionInsert(actx, store.Connection{TenantID: alice, AdapterID: "x", Provider: "x-session", AccountID: "1001"})
			return err
		})
		require.ErrorIs(t, err, store.ErrConflict, "one connection per account and provider")
		require.NoError(t, st.InTx(actx, func(tx *store.Tx) error {
			got, err := tx.ConnectionGetByAccount(actx, alice, "x", "x-session", "1001")
			require.NoError(t, err)
			require.Equal(t, c.ID, got.ID)
			c, err = tx.ConnectionSetCredential(actx, alice, got.ID, "alice_renamed", store.AccountCredential{
				ID: uuid.Must(uuid.NewV7()), Ciphertext: []byte("sealed two"), Nonce: []byte("nonce-bytes2"), KeyVersion: 1})
			return err
		}))
		require.Equal(t, 2, c.CredentialRevision)
		require.Equal(t, "alice_renamed", c.Handle)
		require.NotEqual(t, first, *c.CredentialID)
		_, err = st.AccountCredentialGet(actx, alice, first)
		require.ErrorIs(t, err, store.ErrNotFound, "the replaced credential is deleted")
		n, err := st.AccountCredentialCount(actx, alice, c.ID)
		require.NoError(t, err)
		require.Equal(t, 1, n)

		// Bob sees nothing of Alice's.
		_, err = st.ConnectionGet(bctx, bob, c.ID)
		require.ErrorIs(t, err, store.ErrNotFound)
		_, err = st.AccountCredentialGet(bctx, bob, *c.CredentialID)
		require.ErrorIs(t, err, store.ErrNotFound)
		list, err := st.ConnectionList(bctx, bob)
		require.NoError(t, err)
		require.Empty(t, list)
		if st.Driver() == "postgres" {
			// Row-level security: acting for Bob, even Alice's own ids
			// name nothing.
			_, err = st.ConnectionGet(bctx, alice, c.ID)
			require.ErrorIs(t, err, store.ErrNotFound)
			_, err = st.AccountCredentialGet(bctx, alice, *c.CredentialID)
			require.ErrorIs(t, err, store.ErrNotFound)
			list, err = st.ConnectionList(bctx, alice)
			require.NoError(t, err)
			require.Empty(t, list)
			err = st.InTx(bctx, func(tx *store.Tx) error { _, err := tx.ConnectionRevoke(bctx, alice, c.ID); return err })
			require.ErrorIs(t, err, store.ErrNotFound)
		}
		err = st.InTx(bctx, func(tx *store.Tx) error { _, err := tx.ConnectionRevoke(bctx, bob, c.ID); return err })
		require.ErrorIs(t, err, store.ErrNotFound, "nobody revokes another tenant's connection")
		err = st.InTx(bctx, func(tx *store.Tx) error { return tx.TenantPreferenceSet(bctx, bob, "x", c.ID) })
		require.Error(t, err, "a default must be the tenant's own connection")

		// Default connection per adapter.
		_, err = st.TenantPreferenceGet(actx, alice, "x")
		require.ErrorIs(t, err, store.ErrNotFound)
		other := addConnection(t, st, alice, "1002", "alice_alt", []byte("sealed alt"))
		require.NoError(t, st.InTx(actx, func(tx *store.Tx) error { return tx.TenantPreferenceSet(actx, alice, "x", c.ID) }))
		require.NoError(t, st.InTx(actx, func(tx *store.Tx) error { return tx.TenantPreferenceSet(actx, alice, "x", other.ID) }))
		def, err := st.TenantPreferenceGet(actx, alice, "x")
		require.NoError(t, err)
		require.Equal(t, other.ID, def)
		prefs, err := st.TenantPreferenceList(actx, alice)
		require.NoError(t, err)
		require.Equal(t, map[string]uuid.UUID{"x": other.ID}, prefs)

		// Check outcomes.
		require.NoError(t, st.InTx(actx, func(tx *store.Tx) (err error) {
			c, err = tx.ConnectionSetStatus(actx, alice, c.ID, store.ConnectionReauth, "")
			return err
		}))
		require.Equal(t, store.ConnectionReauth, c.Status)
		require.Equal(t, "alice_renamed", c.Handle, "an empty handle keeps the known one")

		// Revoke: credential row gone, connection kept.
		require.NoError(t, st.InTx(actx, func(tx *store.Tx) (err error) {
			c, err = tx.ConnectionRevoke(actx, alice, c.ID)
			return err
		}))
		require.Equal(t, store.ConnectionRevoked, c.Status)
		require.Nil(t, c.CredentialID)
		require.NotNil(t, c.RevokedAt)
		require.Equal(t, 2, c.CredentialRevision, "the revision stays for the audit trail")
		n, err = st.AccountCredentialCount(actx, alice, c.ID)
		require.NoError(t, err)
		require.Zero(t, n)
		require.NoError(t, st.InTx(actx, func(tx *store.Tx) (err error) {
			c, err = tx.ConnectionSetStatus(actx, alice, c.ID, store.ConnectionActive, "x")
			return err
		}))
		require.Equal(t, store.ConnectionRevoked, c.Status, "a check does not bring back a revoked connection")
		list, err = st.ConnectionList(actx, alice)
		require.NoError(t, err)
		require.Len(t, list, 2)
		require.Equal(t, c.ID, list[0].ID)
		require.Equal(t, store.ConnectionRevoked, list[0].Status)

		// Adding the account again after the revoke revives the connection.
		require.NoError(t, st.InTx(actx, func(tx *store.Tx) (err error) {
			c, err = tx.ConnectionSetCredential(actx, alice, c.ID, "alice_back", store.AccountCredential{
				ID: uuid.Must(uuid.NewV7()), Ciphertext: []byte("sealed three"), Nonce: []byte("nonce-bytes3"), KeyVersion: 1})
			return err
		}))
		require.Equal(t, store.ConnectionActive, c.Status)
		require.Nil(t, c.RevokedAt)
		require.Equal(t, 3, c.CredentialRevision)
	})
}

// What a provider keeps per connection and object scope: read back by
// the same tenant only, replaced in place, refused over 1 KiB, deleted
// when the connection is revoked, and not kept for a revoked one.
func TestConnectionPeers(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		alice, bob := webTenant(t, st, "alice"), webTenant(t, st, "bob")
		actx, bctx := store.WithTenant(context.Background(), alice), store.WithTenant(context.Background(), bob)
		c := addConnection(t, st, alice, "5001", "spore", []byte("sealed"))
		get := func(ctx context.Context, tenant uuid.UUID, scope string) string {
			t.Helper()
			var v string
			require.NoError(t, st.InTx(ctx, func(tx *store.Tx) (err error) {
				v, err = tx.ConnectionPeerGet(ctx, tenant, c.ID, scope)
				return err
			}))
			return v
		}
		put := func(scope, value string) {
			t.Helper()
			require.NoError(t, st.InTx(actx, func(tx *store.Tx) error { return tx.ConnectionPeerPut(actx, alice, c.ID, scope, value) }))
		}
		require.Empty(t, get(actx, alice, "c/1234567890"))
		put("c/1234567890", "access_hash:4242")
		put("c/1234567890", "access_hash:4343")
		put("c/999", strings.Repeat("x", 1025))
		require.Equal(t, "access_hash:4343", get(actx, alice, "c/1234567890"))
		require.Empty(t, get(actx, alice, "c/999"), "over 1 KiB is not kept")
		require.Empty(t, get(bctx, bob, "c/1234567890"), "another tenant reads nothing")
		if st.Driver() == "postgres" {
			require.Empty(t, get(bctx, alice, "c/1234567890"), "row security: not even naming the tenant")
		}

		require.NoError(t, st.InTx(actx, func(tx *store.Tx) error {
			_, err := tx.ConnectionRevoke(actx, alice, c.ID)
			return err
		}))
		require.Empty(t, get(actx, alice, "c/1234567890"), "revoking deletes it")
		put("c/1234567890", "access_hash:4444")
		require.Empty(t, get(actx, alice, "c/1234567890"), "a revoked connection keeps nothing")
	})
}
