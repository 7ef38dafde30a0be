package app_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

const accountsMasterKey = "accounts-test-master-key-0123456789"

// accountCore is a core with the account test adapter beside the
// built-in ones, over gRPC, and a master key.
func eachAccountCore(t *testing.T, fn func(t *testing.T, c *testcore.Core, fake *testkit.AccountAdapter)) {
	t.Helper()
	for _, d := range storetest.Drivers() {
		t.Run(d, func(t *testing.T) {
			fake := testkit.NewAccountAdapter()
			c := testcore.New(t, testcore.Options{DB: d, MasterKey: accountsMasterKey, NoStart: true,
				Adapters: []adapterv1.AdapterServer{fake}})
			fn(t, c, fake)
		})
	}
}

func addAccount(ctx context.Context, a *app.App, tenant uuid.UUID, secret string) (app.AddConnectionResult, error) {
	return a.AddConnection(ctx, app.AddConnectionRequest{TenantID: tenant, Adapter: testkit.AccountAdapterID, Secret: []byte(secret), Actor: "test"})
}

func TestConnectionLifecycle(t *testing.T) {
	t.Parallel()
	eachAccountCore(t, func(t *testing.T, c *testcore.Core, fake *testkit.AccountAdapter) {
		ctx := context.Background()
		alice, bob := c.Tenant(t, "alice", nil), c.Tenant(t, "bob", nil)

		added, err := addAccount(ctx, c.App, alice, "account=1001\nhandle=alice_acct\ntoken=tok-one\n")
		require.NoError(t, err)
		conn := added.Connection
		require.False(t, added.Replaced)
		require.Equal(t, "acct", conn.Adapter)
		require.Equal(t, testkit.AccountAdapterProvider, conn.Provider, "the adapter's default account provider")
		require.Equal(t, "1001", conn.AccountID)
		require.Equal(t, "alice_acct", conn.Handle)
		require.Equal(t, "active", conn.Status)
		require.Equal(t, 1, conn.CredentialRevision)
		require.True(t, conn.Default, "the first connection of an adapter is the default")
		require.Equal(t, [][]byte{[]byte("acct1|1001|alice_acct|tok-one")}, fake.Checked(),
			"the adapter's prepared credential reaches its check unchanged")

		// What is stored is sealed: the token is not in it.
		sc, err := c.Store.ConnectionGet(store.WithTenant(ctx, alice), alice, conn.ID)
		require.NoError(t, err)
		cred, err := c.Store.AccountCredentialGet(store.WithTenant(ctx, alice), alice, *sc.CredentialID)
		require.NoError(t, err)
		require.NotContains(t, string(cred.Ciphertext), "tok-one")
		require.Equal(t, 1, cred.KeyVersion)

		// The same account again: the credential is replaced, the id kept.
		again, err := addAccount(ctx, c.App, alice, "account=1001; handle=alice_new; token=tok-two")
		require.NoError(t, err)
		require.True(t, again.Replaced)
		require.Equal(t, conn.ID, again.Connection.ID)
		require.Equal(t, 2, again.Connection.CredentialRevision)
		require.Equal(t, "alice_new", again.Connection.Handle)
		_, err = c.Store.AccountCredentialGet(store.WithTenant(ctx, alice), alice, cred.ID)
		require.ErrorIs(t, err, store.ErrNotFound, "the old credential is gone")

		second, err := addAccount(ctx, c.App, alice, "account=2002\nhandle=alice_alt\ntoken=tok-alt")
		require.NoError(t, err)
		require.False(t, second.Connection.Default, "the default stays the first one")
		list, err := c.App.Connections(ctx, alice)
		require.NoError(t, err)
		require.Len(t, list, 2)
		require.Equal(t, []string{"1001", "2002"}, []string{list[0].AccountID, list[1].AccountID})

		// Checks.
		res, err := c.App.CheckConnection(ctx, alice, conn.ID)
		require.NoError(t, err)
		require.True(t, res.OK)
		require.Equal(t, "active", res.Connection.Status)
		fake.Rename("1001", "alice_renamed")
		res, err = c.App.CheckConnection(ctx, alice, conn.ID)
		require.NoError(t, err)
		require.Equal(t, "alice_renamed", res.Connection.Handle, "the check records the upstream's handle")

		// The session now signs in as someone else: not this account.
		fake.Move("1001", "9999")
		res, err = c.App.CheckConnection(ctx, alice, conn.ID)
		require.NoError(t, err)
		require.False(t, res.OK)
		require.Equal(t, "reauth_required", res.Connection.Status)
		require.Contains(t, res.Message, "now signs in as account 9999, not 1001")
		fake.Move("1001", "1001")
		res, err = c.App.CheckConnection(ctx, alice, conn.ID)
		require.NoError(t, err)
		require.True(t, res.OK, "a check that passes again makes it active")
		require.Equal(t, "active", res.Connection.Status)

		fake.RateLimit(true)
		_, err = c.App.CheckConnection(ctx, alice, conn.ID)
		require.ErrorContains(t, err, "slow down")
		fake.RateLimit(false)
		v, err := c.App.Connection(ctx, alice, conn.ID)
		require.NoError(t, err)
		require.Equal(t, "active", v.Status, "a rate limit never changes the auth state")

		fake.Expire("tok-two")
		res, err = c.App.CheckConnection(ctx, alice, conn.ID)
		require.NoError(t, err)
		require.False(t, res.OK)
		require.Equal(t, "reauth_required", res.Connection.Status)
		require.Contains(t, res.Message, "no longer accepts this session")

		// Adding it again with a working session makes it active again.
		again, err = addAccount(ctx, c.App, alice, "account=1001\nhandle=alice_renamed\ntoken=tok-three")
		require.NoError(t, err)
		require.Equal(t, "active", again.Connection.Status)
		require.Equal(t, 3, again.Connection.CredentialRevision)

		// Bob sees, checks and revokes nothing of Alice's.
		_, err = c.App.Connection(ctx, bob, conn.ID)
		require.ErrorIs(t, err, app.ErrNotFound)
		_, err = c.App.CheckConnection(ctx, bob, conn.ID)
		require.ErrorIs(t, err, app.ErrNotFound)
		_, err = c.App.RevokeConnection(ctx, bob, conn.ID, "bob")
		require.ErrorIs(t, err, app.ErrNotFound)
		bobs, err := c.App.Connections(ctx, bob)
		require.NoError(t, err)
		require.Empty(t, bobs)
		// Bob's own connection to the same upstream account is his own.
		bobConn, err := addAccount(ctx, c.App, bob, "account=1001\nhandle=alice_renamed\ntoken=bob-session")
		require.NoError(t, err)
		require.NotEqual(t, conn.ID, bobConn.Connection.ID)
		require.Equal(t, 1, bobConn.Connection.CredentialRevision)

		// Revoke: the credential row goes, the connection stays.
		rev, err := c.App.RevokeConnection(ctx, alice, conn.ID, "test")
		require.NoError(t, err)
		require.Equal(t, "revoked", rev.Status)
		require.NotNil(t, rev.RevokedAt)
		n, err := c.Store.AccountCredentialCount(store.WithTenant(ctx, alice), alice, conn.ID)
		require.NoError(t, err)
		require.Zero(t, n)
		list, err = c.App.Connections(ctx, alice)
		require.NoError(t, err)
		require.Len(t, list, 2, "kept for the audit trail")
		require.Equal(t, "revoked", list[0].Status)
		require.False(t, list[0].Default)
		require.True(t, list[1].Default, "the other active connection becomes the default")
		_, err = c.App.CheckConnection(ctx, alice, conn.ID)
		require.ErrorIs(t, err, app.ErrConflict)
		require.ErrorContains(t, err, "revoked")
		_, err = c.App.RevokeConnection(ctx, alice, conn.ID, "test")
		require.NoError(t, err, "revoking twice is harmless")
		_, err = c.App.RevokeConnection(ctx, alice, uuid.Must(uuid.NewV7()), "test")
		require.ErrorIs(t, err, app.ErrNotFound)

		entries, err := c.App.Audit(ctx, 100)
		require.NoError(t, err)
		var actions []string
		for _, e := range entries {
			require.NotContains(t, string(e.Before)+string(e.After), "tok-", "the audit log never holds a credential")
			require.NotContains(t, string(e.Before)+string(e.After), "bob-session")
			if strings.HasPrefix(e.Action, "connection.") {
				actions = append(actions, e.Action)
			}
		}
		require.Contains(t, actions, "connection.add")
		require.Contains(t, actions, "connection.replace_credential")
		require.Contains(t, actions, "connection.revoke")
		require.Contains(t, actions, "connection.status")
	})
}

func TestConnectionRefusals(t *testing.T) {
	t.Parallel()
	eachAccountCore(t, func(t *testing.T, c *testcore.Core, fake *testkit.AccountAdapter) {
		ctx := context.Background()
		alice := c.Tenant(t, "alice", nil)
		added, err := addAccount(ctx, c.App, alice, "account=1001\ntoken=good")
		require.NoError(t, err)

		_, err = addAccount(ctx, c.App, alice, "account=1001\nhandle=x")
		require.ErrorIs(t, err, app.ErrInvalid)
		require.ErrorContains(t, err, "the token line is missing", "the adapter says which part is missing")

		// Wrong cookies for an existing account: refused, credential untouched.
		fake.Expire("stale")
		_, err = addAccount(ctx, c.App, alice, "account=1001\ntoken=stale")
		require.ErrorIs(t, err, app.ErrInvalid)
		require.ErrorContains(t, err, "refused the credential")
		require.ErrorContains(t, err, "nothing was stored")
		require.NotContains(t, err.Error(), "stale", "errors never repeat the credential")
		v, err := c.App.Connection(ctx, alice, added.Connection.ID)
		require.NoError(t, err)
		require.Equal(t, 1, v.CredentialRevision)
		require.Equal(t, "active", v.Status)
		res, err := c.App.CheckConnection(ctx, alice, added.Connection.ID)
		require.NoError(t, err)
		require.True(t, res.OK, "the stored credential is still the good one")

		_, err = addAccount(ctx, c.App, alice, "")
		require.ErrorIs(t, err, app.ErrInvalid)
		require.ErrorContains(t, err, "empty")
		_, err = addAccount(ctx, c.App, alice, strings.Repeat("a", 65<<10))
		require.ErrorIs(t, err, app.ErrInvalid)
		require.ErrorContains(t, err, "longer than 64 KiB")
		for _, tc := range []struct{ adapter, provider, want string }{
			{"nope", "", "not configured"},
			{"telegram", "", "this is not a Telegram session"},
			{"telegram", "tme-public", "is public and takes no account"},
			{"x", "", "no auth_token or ct0 cookie of x.com found"},
			{"x", "fxtwitter", "is public and takes no account"},
			{"acct", "public", "is public and takes no account"},
			{"acct", "other", `has no provider "other"`},
		} {
			_, err = c.App.AddConnection(ctx, app.AddConnectionRequest{TenantID: alice, Adapter: tc.adapter, Provider: tc.provider,
				Secret: []byte("account=1;token=t")})
			require.ErrorIs(t, err, app.ErrInvalid, tc.adapter+"/"+tc.provider)
			require.ErrorContains(t, err, tc.want)
		}
		_, err = addAccount(ctx, c.App, uuid.Must(uuid.NewV7()), "account=1;token=t")
		require.ErrorIs(t, err, app.ErrNotFound)
		list, err := c.App.Connections(ctx, alice)
		require.NoError(t, err)
		require.Len(t, list, 1, "no refusal stored anything")
	})
}

func TestConnectionsNeedTheMasterKey(t *testing.T) {
	t.Parallel()
	eachAccountCore(t, func(t *testing.T, c *testcore.Core, fake *testkit.AccountAdapter) {
		ctx := context.Background()
		alice := c.Tenant(t, "alice", nil)
		added, err := addAccount(ctx, c.App, alice, "account=1001\ntoken=good")
		require.NoError(t, err)
		checks := len(fake.Checked())

		// The same store under no key and under another key.
		none := app.New(app.Deps{Store: c.Store, Log: slog.New(slog.DiscardHandler)})
		_, err = addAccount(ctx, none, alice, "account=1001\ntoken=good")
		require.ErrorIs(t, err, app.ErrInvalid)
		require.ErrorContains(t, err, "MONITOR_MASTER_KEY is not set, so this instance cannot keep account credentials")
		_, err = none.CheckConnection(ctx, alice, added.Connection.ID)
		require.ErrorContains(t, err, "MONITOR_MASTER_KEY is not set")

		short := app.New(app.Deps{Store: c.Store, Log: slog.New(slog.DiscardHandler), MasterKey: "k3y"})
		_, err = addAccount(ctx, short, alice, "account=1001\ntoken=good")
		require.ErrorContains(t, err, "at least 16")

		wrong := app.New(app.Deps{Store: c.Store, Log: slog.New(slog.DiscardHandler), MasterKey: strings.Repeat("w", 32)})
		_, err = wrong.CheckConnection(ctx, alice, added.Connection.ID)
		require.ErrorIs(t, err, app.ErrInvalid)
		require.ErrorContains(t, err, "does not open with this MONITOR_MASTER_KEY")
		require.Equal(t, checks, len(fake.Checked()), "no secret went to the adapter without a usable key")

		v, err := c.App.Connection(ctx, alice, added.Connection.ID)
		require.NoError(t, err)
		require.Equal(t, "active", v.Status, "a wrong key says nothing about the account")
	})
}
