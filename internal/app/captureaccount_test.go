package app_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	pngenc "image/png"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// eachAccountPipeline is a running pipeline with the account test adapter.
func eachAccountPipeline(t *testing.T, fn func(t *testing.T, c *testcore.Core, fake *testkit.AccountAdapter)) {
	t.Helper()
	for _, d := range storetest.Drivers() {
		t.Run(d, func(t *testing.T) {
			fake := testkit.NewAccountAdapter()
			c := testcore.New(t, testcore.Options{DB: d, MasterKey: accountsMasterKey, Adapters: []adapterv1.AdapterServer{fake}})
			fn(t, c, fake)
		})
	}
}

func captureWith(t *testing.T, c *testcore.Core, tenant uuid.UUID, url string, conn uuid.UUID) (app.SubmitResult, app.CaptureView) {
	t.Helper()
	res, err := c.App.Submit(context.Background(), app.SubmitRequest{TenantID: tenant, URL: url, ConnectionID: conn})
	require.NoError(t, err)
	return res, c.WaitCapture(t, tenant, res.CaptureID)
}

// A protected post archived by A through A's account is private to A; B
// without an account is told it needs one; B with an account of his own
// gets his own private copy, sharing no revision with A's.
func TestCaptureThroughAccountIsPrivate(t *testing.T) {
	t.Parallel()
	eachAccountPipeline(t, func(t *testing.T, c *testcore.Core, fake *testkit.AccountAdapter) {
		ctx := context.Background()
		alice, bob := c.Tenant(t, "alice", nil), c.Tenant(t, "bob", nil)
		aConn, err := addAccount(ctx, c.App, alice, "account=1001\nhandle=alice_acct\ntoken=alice-session")
		require.NoError(t, err)
		post := testkit.AccountPostURL("42")

		res, v := captureWith(t, c, alice, post, aConn.Connection.ID)
		require.Equal(t, app.StateComplete, v.State, v.Error)
		require.Equal(t, testkit.AccountAdapterProvider, v.Provider)
		require.Equal(t, &aConn.Connection.ID, v.ConnectionID)
		require.Equal(t, 1, *v.CredentialRevision)
		require.Equal(t, [][]byte{[]byte("acct1|1001|alice_acct|alice-session")}, fake.Fetched(), "the fetch got the prepared credential")
		coll, err := c.App.Collection(ctx, alice, res.CollectionID)
		require.NoError(t, err)
		require.Equal(t, "private", coll.Visibility)
		require.Equal(t, "protected post 42 read by account 1001", coll.Text)
		require.NotEqual(t, app.PublicCollectionID("acct", "acct.post", "", "42"), coll.ID, "not the public collection")

		// Bob without an account: a clear "needs an account", and Alice's
		// copy stays out of his sight.
		_, bv := c.Capture(t, bob, post)
		require.Equal(t, app.StateFailed, bv.State)
		require.Contains(t, bv.Error, "this post is protected; connect an account that may see it")
		_, err = c.App.Collection(ctx, bob, res.CollectionID)
		require.ErrorIs(t, err, app.ErrNotFound)

		// Bob with his own account: his own private copy.
		bConn, err := addAccount(ctx, c.App, bob, "account=2002\nhandle=bob_acct\ntoken=bob-session")
		require.NoError(t, err)
		bres, bv := captureWith(t, c, bob, post, bConn.Connection.ID)
		require.Equal(t, app.StateComplete, bv.State, bv.Error)
		require.NotEqual(t, res.CollectionID, bres.CollectionID)
		bcoll, err := c.App.Collection(ctx, bob, bres.CollectionID)
		require.NoError(t, err)
		require.Equal(t, "private", bcoll.Visibility)
		require.Equal(t, "protected post 42 read by account 2002", bcoll.Text)
		require.NotEqual(t, *coll.RevisionID, *bcoll.RevisionID, "no shared revision")
		acoll, err := c.App.Collection(ctx, alice, res.CollectionID)
		require.NoError(t, err)
		require.Equal(t, coll.RevisionID, acoll.RevisionID, "Bob's capture did not touch Alice's copy")

		// Submits a connection cannot serve.
		for _, tc := range []struct {
			tenant uuid.UUID
			url    string
			conn   uuid.UUID
			is     error
			want   string
		}{
			{bob, post, aConn.Connection.ID, app.ErrNotFound, "no connection"},
			{alice, "https://x.com/archivist_demo/status/2078399740166950912", aConn.Connection.ID, app.ErrInvalid, "is an account of acct; this link belongs to x"},
		} {
			_, err := c.App.Submit(ctx, app.SubmitRequest{TenantID: tc.tenant, URL: tc.url, ConnectionID: tc.conn})
			require.ErrorIs(t, err, tc.is)
			require.ErrorContains(t, err, tc.want)
		}
		_, err = c.App.Submit(ctx, app.SubmitRequest{TenantID: alice, URL: post, ConnectionID: aConn.Connection.ID, Expand: app.ExpandThread})
		require.ErrorIs(t, err, app.ErrInvalid)
		// A refresh reads it through the same account.
		before := len(fake.Fetched())
		ref, err := c.App.Refresh(ctx, alice, res.CollectionID, "")
		require.NoError(t, err)
		require.Equal(t, res.CollectionID, ref.CollectionID)
		rv := c.WaitCapture(t, alice, ref.CaptureID)
		require.Equal(t, app.StateComplete, rv.State, rv.Error)
		require.Equal(t, &aConn.Connection.ID, rv.ConnectionID)
		require.Len(t, fake.Fetched(), before+1)

		_, err = c.App.RevokeConnection(ctx, alice, aConn.Connection.ID, "test")
		require.NoError(t, err)
		_, err = c.App.Refresh(ctx, alice, res.CollectionID, "")
		require.ErrorIs(t, err, app.ErrConflict, "no fallback to the public provider after a revoke")
		_, err = c.App.Submit(ctx, app.SubmitRequest{TenantID: alice, URL: post, ConnectionID: aConn.Connection.ID, Refresh: true})
		require.ErrorIs(t, err, app.ErrConflict)
		require.ErrorContains(t, err, "revoked")
	})
}

// An expired session mid-capture: the capture fails at once with a
// message for the tenant, the connection becomes reauth_required, the
// adapter is asked once (no retry storm), and a new submit with it is
// refused until the account is added again.
func TestCaptureWithExpiredSession(t *testing.T) {
	t.Parallel()
	eachAccountPipeline(t, func(t *testing.T, c *testcore.Core, fake *testkit.AccountAdapter) {
		ctx := context.Background()
		alice := c.Tenant(t, "alice", nil)
		conn, err := addAccount(ctx, c.App, alice, "account=1001\nhandle=alice_acct\ntoken=soon-expired")
		require.NoError(t, err)
		fake.Expire("soon-expired")
		_, v := captureWith(t, c, alice, testkit.AccountPostURL("7"), conn.Connection.ID)
		require.Equal(t, app.StateFailed, v.State)
		require.Contains(t, v.Error, "refused the account's session")
		require.Contains(t, v.Error, "added again")
		require.Len(t, fake.Fetched(), 1, "no retries")
		cv, err := c.App.Connection(ctx, alice, conn.Connection.ID)
		require.NoError(t, err)
		require.Equal(t, "reauth_required", cv.Status)
		_, err = c.App.Submit(ctx, app.SubmitRequest{TenantID: alice, URL: testkit.AccountPostURL("8"), ConnectionID: conn.Connection.ID})
		require.ErrorIs(t, err, app.ErrConflict)
		require.ErrorContains(t, err, "add the account again")

		// A rate limit at check time is not an auth failure.
		again, err := addAccount(ctx, c.App, alice, "account=1001\nhandle=alice_acct\ntoken=fresh")
		require.NoError(t, err)
		require.Equal(t, "active", again.Connection.Status)
		_, v = captureWith(t, c, alice, testkit.AccountPostURL("8"), conn.Connection.ID)
		require.Equal(t, app.StateComplete, v.State, v.Error)
		require.Equal(t, 2, *v.CredentialRevision)
	})
}

// A credential replaced, or an account revoked, while its capture runs:
// the capture cannot keep its result.
func TestCaptureResultRefusedWhenCredentialChanges(t *testing.T) {
	t.Parallel()
	eachAccountPipeline(t, func(t *testing.T, c *testcore.Core, fake *testkit.AccountAdapter) {
		ctx := context.Background()
		alice := c.Tenant(t, "alice", nil)
		conn, err := addAccount(ctx, c.App, alice, "account=1001\nhandle=alice_acct\ntoken=first")
		require.NoError(t, err)

		for _, change := range []struct {
			name string
			do   func()
			want string
		}{
			{"replaced", func() {
				_, err := addAccount(ctx, c.App, alice, "account=1001\nhandle=alice_acct\ntoken=second")
				require.NoError(t, err)
			}, "credential was replaced while this capture ran"},
			{"revoked", func() {
				_, err := c.App.RevokeConnection(ctx, alice, conn.Connection.ID, "test")
				require.NoError(t, err)
			}, "account was revoked while this capture ran"},
		} {
			hold := fake.Hold()
			res, err := c.App.Submit(ctx, app.SubmitRequest{TenantID: alice, URL: testkit.AccountPostURL(change.name), ConnectionID: conn.Connection.ID})
			require.NoError(t, err)
			select {
			case <-hold.Started:
			case <-time.After(testcore.WaitTimeout):
				t.Fatal("the fetch did not start")
			}
			change.do()
			hold.Release()
			v := c.WaitCapture(t, alice, res.CaptureID)
			require.Equal(t, app.StateFailed, v.State, change.name)
			require.Contains(t, v.Error, change.want)
			require.Nil(t, v.RevisionID, "nothing kept")
			coll, err := c.App.Collection(ctx, alice, res.CollectionID)
			require.NoError(t, err)
			require.Nil(t, coll.RevisionID, "the collection has no content from it")
		}
		n, err := c.Store.AccountCredentialCount(store.WithTenant(ctx, alice), alice, conn.Connection.ID)
		require.NoError(t, err)
		require.Zero(t, n)
	})
}

// Two tenants archiving the same protected post, media and all, through
// their own accounts share no blob; a post called public by a provider
// that declares only private results stays in the tenant's private copy
// (that is no evidence).
func TestAccountCapturesShareNoBlob(t *testing.T) {
	t.Parallel()
	var png bytes.Buffer
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.RGBA{R: 200, A: 255})
	require.NoError(t, pngenc.Encode(&png, img))
	media := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(png.Bytes())
	}))
	t.Cleanup(media.Close)
	eachAccountPipeline(t, func(t *testing.T, c *testcore.Core, fake *testkit.AccountAdapter) {
		ctx := context.Background()
		fake.SetMedia(media.URL + "/photo.png")
		alice, bob := c.Tenant(t, "alice", nil), c.Tenant(t, "bob", nil)
		aConn, err := addAccount(ctx, c.App, alice, "account=1001;token=a")
		require.NoError(t, err)
		bConn, err := addAccount(ctx, c.App, bob, "account=2002;token=b")
		require.NoError(t, err)

		ares, av := captureWith(t, c, alice, testkit.AccountPostURL("55"), aConn.Connection.ID)
		require.Equal(t, app.StateComplete, av.State, av.Error)
		bres, bv := captureWith(t, c, bob, testkit.AccountPostURL("55"), bConn.Connection.ID)
		require.Equal(t, app.StateComplete, bv.State, bv.Error)
		acoll, err := c.App.Collection(ctx, alice, ares.CollectionID)
		require.NoError(t, err)
		bcoll, err := c.App.Collection(ctx, bob, bres.CollectionID)
		require.NoError(t, err)
		require.Len(t, acoll.Media, 1)
		require.Len(t, bcoll.Media, 1)
		sum := acoll.Media[0].SHA256
		require.Equal(t, sum, bcoll.Media[0].SHA256)
		blobOf := func(tenant, scope uuid.UUID, access string) (store.Blob, error) {
			var b store.Blob
			tctx := store.WithTenant(ctx, tenant)
			err := c.Store.InTx(tctx, func(tx *store.Tx) (err error) {
				b, err = tx.BlobGetByHash(tctx, scope, access, sum)
				return err
			})
			return b, err
		}
		ab, err := blobOf(alice, alice, "private")
		require.NoError(t, err)
		bb, err := blobOf(bob, bob, "private")
		require.NoError(t, err)
		require.NotEqual(t, ab.ID, bb.ID, "the same bytes, one blob per tenant's private scope")
		_, err = blobOf(alice, store.PublicScope, "public")
		require.ErrorIs(t, err, store.ErrNotFound, "no public blob of them")

		pres, pv := captureWith(t, c, alice, testkit.AccountPostURL("pub1"), aConn.Connection.ID)
		require.Equal(t, app.StateComplete, pv.State, pv.Error)
		pcoll, err := c.App.Collection(ctx, alice, pres.CollectionID)
		require.NoError(t, err)
		require.Equal(t, "private", pcoll.Visibility, "called public without evidence: still private")
		_, err = c.App.Collection(ctx, bob, app.PublicCollectionID("acct", "acct.post", "", "pub1"))
		require.ErrorIs(t, err, app.ErrNotFound, "nothing entered the public collection")
	})
}
