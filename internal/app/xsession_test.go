package app_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/testkit"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// The accounts of issue 22 end to end through the real X adapter: its
// x-session provider talks to the fake X GraphQL (testcore.Core.X), its
// public provider to the fake FxTwitter, both over gRPC as in production.

const (
	xProtectedID  = "1900000000000000001"
	xProtectedURL = "https://x.com/harbor_locked/status/" + xProtectedID
)

var (
	xAlice = testkit.XSession{AuthToken: "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678", CT0: "0f1e2d3c4b5a69788796a5b4c3d2e1f0",
		AccountID: "1800000000000000001", Handle: "alice_archivist"}
	xBob = testkit.XSession{AuthToken: "b0b0b0b0c3d4e5f60718293a4b5c6d7e8f901234", CT0: "9a8b7c6d5e4f30211203f4e5d6c7b8a9",
		AccountID: "1800000000000000002", Handle: "bob_reads"}
)

// xFixture reads one of the X adapter's own GraphQL fixtures.
func xFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "adapters", "x", "testdata", "xgraphql", name))
	require.NoError(t, err)
	return b
}

// xSessionCore is a core whose fake X knows Alice's and Bob's sessions
// and the protected post, which FxTwitter cannot read (HTTP 401).
func xSessionCore(t *testing.T, fn func(t *testing.T, c *testcore.Core)) {
	t.Helper()
	testcore.Each(t, testcore.Options{MasterKey: accountsMasterKey}, func(t *testing.T, c *testcore.Core) {
		c.X.AddSession(xAlice)
		c.X.AddSession(xBob)
		c.X.SetTweet(xProtectedID, xFixture(t, "TweetResultByRestId.protected.1900000000000000001.json"))
		c.FX.SetOverride("/2/status/"+xProtectedID, 401, "application/json", []byte(`{"code":401,"message":"PRIVATE_TWEET"}`))
		fn(t, c)
	})
}

func addXAccount(ctx context.Context, a *app.App, tenant uuid.UUID, secret string) (app.AddConnectionResult, error) {
	return a.AddConnection(ctx, app.AddConnectionRequest{TenantID: tenant, Adapter: "x", Secret: []byte(secret), Actor: "test"})
}

// A protected X post archived by Alice through her account is private to
// her; Bob without an account is told he needs one; Bob with his own
// account gets his own private copy.
func TestXSessionProtectedPost(t *testing.T) {
	t.Parallel()
	xSessionCore(t, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		alice, bob := c.Tenant(t, "alice", nil), c.Tenant(t, "bob", nil)
		aConn, err := addXAccount(ctx, c.App, alice, "Cookie: lang=en; "+xAlice.Cookie())
		require.NoError(t, err)
		require.Equal(t, "x-session", aConn.Connection.Provider)
		require.Equal(t, xAlice.AccountID, aConn.Connection.AccountID)
		require.Equal(t, "alice_archivist", aConn.Connection.Handle)

		res, v := captureWith(t, c, alice, xProtectedURL, aConn.Connection.ID)
		require.Equal(t, app.StateComplete, v.State, v.Error)
		require.Equal(t, "x-session", v.Provider)
		coll, err := c.App.Collection(ctx, alice, res.CollectionID)
		require.NoError(t, err)
		require.Equal(t, "private", coll.Visibility)
		require.Equal(t, "The night ferry left late again; the harbour lights were all we had. & the gulls.", coll.Text)
		require.Len(t, coll.Media, 1, "the photo, downloaded")
		require.NotEqual(t, app.PublicCollectionID("x", "x.post", "", xProtectedID), coll.ID)

		// Bob without an account.
		_, bv := c.Capture(t, bob, xProtectedURL)
		require.Equal(t, app.StateFailed, bv.State)
		require.Contains(t, bv.Error, "protected account")
		require.Contains(t, bv.Error, "it needs an account")
		_, err = c.App.Collection(ctx, bob, res.CollectionID)
		require.ErrorIs(t, err, app.ErrNotFound, "Alice's copy stays hers")

		// Bob with his own account: his own copy, no shared revision.
		bConn, err := addXAccount(ctx, c.App, bob, "auth_token="+xBob.AuthToken+"\nct0="+xBob.CT0)
		require.NoError(t, err)
		bres, bv := captureWith(t, c, bob, xProtectedURL, bConn.Connection.ID)
		require.Equal(t, app.StateComplete, bv.State, bv.Error)
		require.NotEqual(t, res.CollectionID, bres.CollectionID)
		bcoll, err := c.App.Collection(ctx, bob, bres.CollectionID)
		require.NoError(t, err)
		require.Equal(t, "private", bcoll.Visibility)
		require.NotEqual(t, *coll.RevisionID, *bcoll.RevisionID)
	})
}

// A post X shows to be public (its author is not protected), read through
// Alice's account, joins the post's public collection: Bob, who has no
// account, then gets the same collection and revision from his own
// submission. Only the raw responses X gave Alice's session stay hers.
func TestXSessionPublicEvidenceJoinsThePublicCollection(t *testing.T) {
	t.Parallel()
	xSessionCore(t, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		alice, bob := c.Tenant(t, "alice", nil), c.Tenant(t, "bob", nil)
		const id = "1900000000000000009"
		public := bytes.ReplaceAll(xFixture(t, "TweetResultByRestId.protected.1900000000000000001.json"), []byte(xProtectedID), []byte(id))
		public = bytes.ReplaceAll(public, []byte(`"protected": true`), []byte(`"protected": false`))
		require.NotContains(t, string(public), `"protected": true`)
		c.X.SetTweet(id, public)
		c.FX.SetOverride("/2/status/"+id, 503, "application/json", []byte(`{"code":503,"message":"unavailable"}`))
		conn, err := addXAccount(ctx, c.App, alice, xAlice.Cookie())
		require.NoError(t, err)
		url := "https://x.com/harbor_locked/status/" + id
		res, v := captureWith(t, c, alice, url, conn.Connection.ID)
		require.Equal(t, app.StateComplete, v.State, v.Error)
		require.Equal(t, "x-session", v.Provider)
		pub := app.PublicCollectionID("x", "x.post", "", id)
		require.Equal(t, pub, v.CollectionID, "the capture landed in the public collection")
		coll, err := c.App.Collection(ctx, alice, pub)
		require.NoError(t, err)
		require.Equal(t, "public", coll.Visibility)
		require.Equal(t, "The night ferry left late again; the harbour lights were all we had. & the gulls.", coll.Text)
		require.Len(t, coll.Media, 1)
		list, err := c.App.Library(ctx, alice, app.LibraryQuery{})
		require.NoError(t, err)
		require.Len(t, list.Items, 1, "one item in Alice's library, the public one")
		require.Equal(t, pub, list.Items[0].ID)
		_, err = c.App.Collection(ctx, alice, res.CollectionID)
		require.ErrorIs(t, err, app.ErrNotFound, "the empty private copy is not hers any more")

		// Bob has no account; FxTwitter is down, yet the post is archived.
		bres, bv := c.Capture(t, bob, url)
		require.Equal(t, pub, bres.CollectionID)
		require.Equal(t, app.StateComplete, bv.State, bv.Error)
		bcoll, err := c.App.Collection(ctx, bob, bres.CollectionID)
		require.NoError(t, err)
		require.Equal(t, *coll.RevisionID, *bcoll.RevisionID, "one shared revision")
		require.Equal(t, coll.Media[0].SHA256, bcoll.Media[0].SHA256)

		// The raw responses Alice's session got stay in her scope.
		rawCount := func(tenant uuid.UUID) (privRaw, pubRaw int) {
			tx, err := openRaw(t, c.StoreURL).BeginTx(ctx, nil)
			require.NoError(t, err)
			defer func() { _ = tx.Rollback() }()
			if !strings.HasPrefix(c.StoreURL, "sqlite://") { // row-level security: read as the tenant
				_, err = tx.ExecContext(ctx, `SELECT set_config('app.tenant_id', $1, true)`, tenant.String())
				require.NoError(t, err)
			}
			require.NoError(t, tx.QueryRowContext(ctx,
				`SELECT count(*) FILTER (WHERE visibility = 'private' AND data_scope = $2), count(*) FILTER (WHERE visibility = 'public')
				   FROM source_responses WHERE capture_id = $1`, v.ID, alice.String()).Scan(&privRaw, &pubRaw))
			return privRaw, pubRaw
		}
		privRaw, pubRaw := rawCount(alice)
		require.Positive(t, privRaw)
		require.Zero(t, pubRaw)
		if !strings.HasPrefix(c.StoreURL, "sqlite://") {
			privRaw, _ = rawCount(bob)
			require.Zero(t, privRaw, "Bob's transactions do not see them")
		}
	})
}

// A protected account's timeline through Alice's account: the profile
// and its posts, page by page through UserTweets, all into her private
// copies; Bob without an account gets none of them.
func TestXSessionProtectedTimeline(t *testing.T) {
	t.Parallel()
	xSessionCore(t, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		alice, bob := c.Tenant(t, "alice", nil), c.Tenant(t, "bob", nil)
		const user, second = "1700000000000000007", "1900000000000000002"
		profile := []byte(`{"code":200,"message":"OK","user":{"id":"` + user + `","screen_name":"harbor_locked","name":"Harbor Locked",` +
			`"description":"Notes from the harbour, for followers only.","protected":true,"followers":42,"following":17,"statuses":311}}`)
		c.FX.SetOverride("/2/profile/harbor_locked", 200, "application/json", profile)
		c.FX.SetOverride("/2/profile/id:"+user, 200, "application/json", profile)
		c.X.SetUserTweets(user, "", xFixture(t, "UserTweets.protected.page1.json"))
		c.X.SetUserTweets(user, "DAABCgABLockedBottom1", xFixture(t, "UserTweets.protected.page2.json"))
		c.X.SetTweet(second, bytes.ReplaceAll(xFixture(t, "TweetResultByRestId.protected.1900000000000000001.json"), []byte(xProtectedID), []byte(second)))
		c.FX.SetOverride("/2/status/"+second, 401, "application/json", []byte(`{"code":401,"message":"PRIVATE_TWEET"}`))
		conn, err := addXAccount(ctx, c.App, alice, xAlice.Cookie())
		require.NoError(t, err)

		res, err := c.App.Submit(ctx, app.SubmitRequest{TenantID: alice, URL: "https://x.com/harbor_locked", ConnectionID: conn.Connection.ID})
		require.NoError(t, err)
		v := waitSubmission(t, c.App, alice, res.SubmissionID)
		require.Equal(t, app.StateComplete, v.State, "%+v", v)
		require.Equal(t, 2, v.Progress.Total, "the two posts of the first page")
		coll, err := c.App.Collection(ctx, alice, res.CollectionID)
		require.NoError(t, err)
		require.Equal(t, "private", coll.Visibility)
		members, err := c.App.Members(ctx, alice, res.CollectionID, 10, "")
		require.NoError(t, err)
		require.Len(t, members.Items, 2)
		for _, m := range members.Items {
			require.Equal(t, "private", m.Visibility, m.SourceURL)
			require.NotEqual(t, app.PublicCollectionID("x", "x.post", "", m.ExternalID), m.ID)
			_, err := c.App.Collection(ctx, bob, m.ID)
			require.ErrorIs(t, err, app.ErrNotFound, "Alice's posts stay hers")
		}
		require.GreaterOrEqual(t, c.X.Hits("TweetResultByRestId"), 2, "each post read through the account")

		// A profile that is not protected, through the account: what its
		// pages list is still the account's view, so the page stays hers.
		const open = "1700000000000000008"
		openProfile := bytes.ReplaceAll(bytes.ReplaceAll(profile, []byte(user), []byte(open)), []byte(`"protected":true`), []byte(`"protected":false`))
		openProfile = bytes.ReplaceAll(openProfile, []byte("harbor_locked"), []byte("harbor_open"))
		c.FX.SetOverride("/2/profile/harbor_open", 200, "application/json", openProfile)
		c.FX.SetOverride("/2/profile/id:"+open, 200, "application/json", openProfile)
		c.X.SetUserTweets(open, "", xFixture(t, "UserTweets.protected.page1.json"))
		c.X.SetUserTweets(open, "DAABCgABLockedBottom1", xFixture(t, "UserTweets.protected.page2.json"))
		ores, err := c.App.Submit(ctx, app.SubmitRequest{TenantID: alice, URL: "https://x.com/harbor_open", ConnectionID: conn.Connection.ID})
		require.NoError(t, err)
		ov := waitSubmission(t, c.App, alice, ores.SubmissionID)
		require.Equal(t, app.StateComplete, ov.State, "%+v", ov)
		ocoll, err := c.App.Collection(ctx, alice, ov.CollectionID)
		require.NoError(t, err)
		require.Equal(t, "private", ocoll.Visibility, "a page an account read is never public")
	})
}

// Wrong cookies are refused when an account is added, and an existing
// credential stays as it was.
func TestXSessionWrongCookies(t *testing.T) {
	t.Parallel()
	xSessionCore(t, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		alice := c.Tenant(t, "alice", nil)
		conn, err := addXAccount(ctx, c.App, alice, xAlice.Cookie())
		require.NoError(t, err)
		checks := c.X.Hits("Viewer")
		for _, tc := range []struct{ secret, want string }{
			{"auth_token=" + xAlice.AuthToken, "the ct0 cookie is missing"},
			{"ct0=" + xAlice.CT0, "the auth_token cookie is missing"},
			{"just some text", "no auth_token or ct0 cookie of x.com found"},
			{"auth_token=ffffffffffffffffffffffffffffffffffffffff; ct0=" + xAlice.CT0, "X no longer accepts this session"},
		} {
			_, err := addXAccount(ctx, c.App, alice, tc.secret)
			require.ErrorIs(t, err, app.ErrInvalid, tc.secret)
			require.ErrorContains(t, err, "the account was not added")
			require.ErrorContains(t, err, tc.want)
			require.NotContains(t, err.Error(), xAlice.AuthToken)
		}
		require.Equal(t, checks+1, c.X.Hits("Viewer"), "only the cookies that parse are checked with X")
		cv, err := c.App.Connection(ctx, alice, conn.Connection.ID)
		require.NoError(t, err)
		require.Equal(t, "active", cv.Status)
		require.Equal(t, 1, cv.CredentialRevision, "the existing credential untouched")
		_, v := captureWith(t, c, alice, xProtectedURL, conn.Connection.ID)
		require.Equal(t, app.StateComplete, v.State, v.Error)

		// A rate limit while checking changes nothing.
		c.X.FailNext(1, 429, map[string]string{"Retry-After": "60"}, []byte("Rate limit exceeded\n"))
		_, err = c.App.CheckConnection(ctx, alice, conn.Connection.ID)
		require.Error(t, err)
		cv, err = c.App.Connection(ctx, alice, conn.Connection.ID)
		require.NoError(t, err)
		require.Equal(t, "active", cv.Status)
	})
}

// An expired session mid-capture: the capture fails at once with a
// message for the tenant, the connection becomes reauth_required, X is
// asked once (no retry storm). A 5xx or a rate limit is retried and never
// touches the connection.
func TestXSessionExpired(t *testing.T) {
	t.Parallel()
	xSessionCore(t, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		alice := c.Tenant(t, "alice", nil)
		conn, err := addXAccount(ctx, c.App, alice, xAlice.Cookie())
		require.NoError(t, err)

		c.X.FailNext(1, 503, nil, []byte("upstream connect error"))
		_, v := captureWith(t, c, alice, xProtectedURL, conn.Connection.ID)
		require.Equal(t, app.StateComplete, v.State, "a server fault is retried: %s", v.Error)
		cv, err := c.App.Connection(ctx, alice, conn.Connection.ID)
		require.NoError(t, err)
		require.Equal(t, "active", cv.Status)

		c.X.Expire(xAlice.AuthToken)
		before := c.X.Hits("TweetResultByRestId")
		_, v = captureWith(t, c, alice, "https://x.com/harbor_locked/status/1900000000000000002", conn.Connection.ID)
		require.Equal(t, app.StateFailed, v.State)
		require.Contains(t, v.Error, "refused the account's session")
		require.Contains(t, v.Error, "X no longer accepts this session")
		require.Equal(t, before+1, c.X.Hits("TweetResultByRestId"), "no retries")
		cv, err = c.App.Connection(ctx, alice, conn.Connection.ID)
		require.NoError(t, err)
		require.Equal(t, "reauth_required", cv.Status)

		// The audit log has the change, never the session.
		events, err := c.App.Audit(ctx, 100)
		require.NoError(t, err)
		var trail bytes.Buffer
		for _, e := range events {
			trail.WriteString(e.Action + " " + string(e.Before) + string(e.After) + "\n")
		}
		require.Contains(t, trail.String(), "connection.status")
		require.NotContains(t, trail.String(), xAlice.AuthToken)
		require.NotContains(t, trail.String(), xAlice.CT0)
	})
}
