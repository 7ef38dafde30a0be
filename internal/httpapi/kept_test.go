package httpapi_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/httpapi"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

const videoPost = "https://x.com/archivist_demo/status/2079251421658238976"

// A page of the listing is given again from memory only while nothing was
// committed: a new save, a delete (also by another process on the same
// database, as `monitor admin` beside serve) and a revoked token show at
// the next request, and one tenant never gets another's page.
func TestListingKeptOnlyUntilTheDatabaseChanges(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{}, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		alice := c.Tenant(t, "alice", nil)
		bob := c.Tenant(t, "bob", nil)
		first, v := c.Capture(t, alice, photosPost)
		require.Equal(t, app.StateComplete, v.State, v.Error)
		aliceToken, _, err := c.App.CreateToken(ctx, "test", "alice", "t", false)
		require.NoError(t, err)
		bobToken, _, err := c.App.CreateToken(ctx, "test", "bob", "t", false)
		require.NoError(t, err)
		srv := httptest.NewServer(httpapi.NewHandler(httpapi.Deps{App: c.App, Admin: c.App, Log: storetest.Logger(t)}))
		t.Cleanup(srv.Close)
		list := func(token string, headers ...string) (int, []string, []byte) {
			r := call(t, srv, "GET", "/v1/collections?limit=10", "", append([]string{"Authorization", "Bearer " + token}, headers...)...)
			if r.status != http.StatusOK {
				return r.status, nil, r.body
			}
			var page struct {
				Items []struct {
					ID         string `json:"id"`
					ExternalID string `json:"external_id"`
					Summary    string `json:"summary"`
				} `json:"items"`
			}
			require.NoError(t, json.Unmarshal(r.body, &page), string(r.body))
			var ids []string
			for _, it := range page.Items {
				ids = append(ids, it.ExternalID)
			}
			return r.status, ids, r.body
		}

		status, ids, body := list(aliceToken)
		require.Equal(t, http.StatusOK, status, string(body))
		require.Equal(t, []string{"2078399740166950912"}, ids)
		_, _, again := list(aliceToken)
		require.Equal(t, body, again, "nothing changed, the same answer")
		_, _, english := list(aliceToken, "Accept-Language", "en")
		require.Contains(t, string(english), "[photo]", "the language is part of what is kept")
		require.Contains(t, string(body), "[图片]")
		_, bobIDs, _ := list(bobToken)
		require.Empty(t, bobIDs, "bob's page is his own")

		// A new save shows at once.
		_, v = c.Capture(t, alice, videoPost)
		require.Equal(t, app.StateComplete, v.State, v.Error)
		_, ids, _ = list(aliceToken)
		require.Equal(t, []string{"2079251421658238976", "2078399740166950912"}, ids)

		// So does a delete.
		require.NoError(t, c.App.DeleteCollection(ctx, alice, first.CollectionID))
		_, ids, _ = list(aliceToken)
		require.Equal(t, []string{"2079251421658238976"}, ids)

		if path, ok := strings.CutPrefix(c.StoreURL, "sqlite://"); ok {
			// Another process's commits: a save removed, then alice's token
			// revoked, with nothing of this process involved.
			raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
			require.NoError(t, err)
			defer raw.Close()
			_, err = raw.Exec(`DELETE FROM tenant_collections WHERE tenant_id = ?`, alice.String())
			require.NoError(t, err)
			_, ids, _ = list(aliceToken)
			require.Empty(t, ids, "another process's delete")
			_, err = raw.Exec(`UPDATE tokens SET revoked_at = CURRENT_TIMESTAMP WHERE tenant_id = ?`, alice.String())
			require.NoError(t, err)
		} else {
			// Another replica's commits on the same database: bob saves
			// the post alice kept and captures it again (a capture of
			// shared content shows in her listing too), then alice's
			// save is removed, with nothing of this process involved.
			raw, err := sql.Open("pgx", c.StoreURL)
			require.NoError(t, err)
			defer raw.Close()
			asTenant := func(tenant uuid.UUID, q string, args ...any) {
				t.Helper()
				tx, err := raw.BeginTx(ctx, nil)
				require.NoError(t, err)
				defer func() { _ = tx.Rollback() }()
				_, err = tx.Exec(`SELECT set_config('app.tenant_id', $1, true)`, tenant.String())
				require.NoError(t, err)
				_, err = tx.Exec(q, args...)
				require.NoError(t, err)
				require.NoError(t, tx.Commit())
			}
			_, _, body = list(aliceToken)
			asTenant(bob, `INSERT INTO tenant_collections (tenant_id, collection_id, saved_at, created_at) SELECT $1, collection_id, now(), now()
				FROM tenant_collections WHERE collection_id = $2`, bob, v.CollectionID)
			_, _, again := list(aliceToken)
			require.Equal(t, body, again, "bob's save is nothing of alice's")
			asTenant(bob, `INSERT INTO captures (id, collection_id, tenant_id, visibility, data_scope, access_scope, adapter_id, provider_id, state, created_at, updated_at)
				SELECT $1, id, $2, visibility, data_scope, access_scope, adapter_id, 'fxtwitter', 'failed', now() + interval '1 hour', now() FROM collections WHERE id = $3`,
				uuid.Must(uuid.NewV7()), bob, v.CollectionID)
			_, _, again = list(aliceToken)
			require.NotEqual(t, string(body), string(again), "another tenant's capture of what alice saved")
			require.Contains(t, string(again), `"state":"failed"`)
			asTenant(alice, `DELETE FROM tenant_collections WHERE tenant_id = $1`, alice)
			_, ids, _ = list(aliceToken)
			require.Empty(t, ids, "another replica's delete")
			require.NoError(t, c.App.RevokeToken(ctx, "test", "alice", tokenID(t, c.App, "alice")))
		}
		status, _, body = list(aliceToken)
		require.Equal(t, http.StatusUnauthorized, status, "a revoked token is refused at once: %s", body)
		status, _, _ = list(bobToken)
		require.Equal(t, http.StatusOK, status)
	})
}

func tokenID(t *testing.T, a *app.App, tenant string) uuid.UUID {
	t.Helper()
	toks, err := a.Tokens(context.Background(), tenant)
	require.NoError(t, err)
	require.NotEmpty(t, toks)
	return toks[0].ID
}
