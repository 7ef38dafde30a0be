package httpapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/httpapi"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// Watches over REST: 201 with the state, list, get, patch, pause, resume,
// runs, delete; bad input is a 400 problem that says what to fix; limits
// are 403; the admin routes approve and list every tenant's.
func TestWatchRoutes(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{}, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		tl := c.FX.AddTimeline("rest_watch", "4400000000000000003", 30, 20)
		c.Tenant(t, "alice", nil)
		alice, _, err := c.App.CreateToken(ctx, "test", "alice", "laptop", false)
		require.NoError(t, err)
		root, _, err := c.App.CreateToken(ctx, "test", "alice", "ops", true)
		require.NoError(t, err)
		srv := httptest.NewServer(httpapi.NewHandler(httpapi.Deps{App: c.App, Admin: c.App, Log: storetest.Logger(t)}))
		t.Cleanup(srv.Close)
		do := func(token, method, path, body string) (int, map[string]any) {
			t.Helper()
			return callJSON(t, srv, token, method, path, body)
		}

		for _, bad := range []struct{ body, detail string }{
			{`{}`, "url is required"},
			{`{"url": "not a link"}`, "is not a link"},
			{`{"url": "` + tl.Posts[0] + `"}`, "is a single post"},
			{`{"url": "` + tl.ProfileURL + `", "interval_seconds": 60}`, "interval_seconds must be at least 300"},
			{`{"url": "` + tl.ProfileURL + `", "notify": "loud"}`, "notify must be deliver"},
			{`{"url": "` + tl.ProfileURL + `", "since": "soon"}`, "since must be"},
			{`{"url": "` + tl.ProfileURL + `", "every": 5}`, "every"},
		} {
			status, p := do(alice, http.MethodPost, "/v1/watches", bad.body)
			require.Equal(t, http.StatusBadRequest, status, bad.body)
			require.Equal(t, "urn:monitor:problem:invalid-request", p["type"])
			require.Contains(t, p["detail"], bad.detail)
		}

		status, w := do(alice, http.MethodPost, "/v1/watches", `{"url": "`+tl.ProfileURL+`", "interval_seconds": 600, "notify": "digest"}`)
		require.Equal(t, http.StatusCreated, status, w)
		require.Equal(t, "active", w["state"])
		require.EqualValues(t, 600, w["interval_seconds"])
		id := w["id"].(string)
		status, p := do(alice, http.MethodPost, "/v1/watches", `{"url": "`+tl.ProfileURL+`"}`)
		require.Equal(t, http.StatusConflict, status)
		require.Contains(t, p["detail"], "you watch")

		status, list := do(alice, http.MethodGet, "/v1/watches", "")
		require.Equal(t, http.StatusOK, status)
		require.Len(t, list["items"], 1)
		status, got := do(alice, http.MethodPatch, "/v1/watches/"+id, `{"interval_seconds": 1800}`)
		require.Equal(t, http.StatusOK, status, got)
		require.EqualValues(t, 1800, got["interval_seconds"])
		status, got = do(alice, http.MethodPost, "/v1/watches/"+id+"/pause", "")
		require.Equal(t, http.StatusOK, status)
		require.Equal(t, "paused", got["state"])
		status, _ = do(alice, http.MethodPost, "/v1/watches/"+id+"/pause", "")
		require.Equal(t, http.StatusConflict, status)
		status, got = do(alice, http.MethodPost, "/v1/watches/"+id+"/resume", "")
		require.Equal(t, http.StatusOK, status)
		require.Equal(t, "active", got["state"])
		require.NotEmpty(t, got["next_run_at"])

		_, err = c.App.WatchTick(ctx)
		require.NoError(t, err)
		status, runs := do(alice, http.MethodGet, "/v1/watches/"+id+"/runs?limit=5", "")
		require.Equal(t, http.StatusOK, status)
		require.NotNil(t, runs["items"])
		status, _ = do(alice, http.MethodGet, "/v1/watches/"+id+"/runs?limit=500", "")
		require.Equal(t, http.StatusBadRequest, status)

		// Limits and approvals.
		_, err = c.App.SetSetting(ctx, "test", "watch_per_user_limit", "1")
		require.NoError(t, err)
		other := c.FX.AddTimeline("rest_watch_other", "4400000000000000004", 30, 20)
		status, p = do(alice, http.MethodPost, "/v1/watches", `{"url": "`+other.ProfileURL+`"}`)
		require.Equal(t, http.StatusForbidden, status)
		require.Contains(t, p["detail"], "watch_per_user_limit")
		_, err = c.App.SetSetting(ctx, "test", "watch_per_user_limit", "3")
		require.NoError(t, err)
		_, err = c.App.SetSetting(ctx, "test", "watch_require_approval", "true")
		require.NoError(t, err)
		status, pending := do(alice, http.MethodPost, "/v1/watches", `{"url": "`+other.ProfileURL+`"}`)
		require.Equal(t, http.StatusCreated, status)
		require.Equal(t, "pending", pending["state"])
		status, _ = do(alice, http.MethodGet, "/v1/admin/watches", "")
		require.Equal(t, http.StatusForbidden, status, "admins only")
		status, all := do(root, http.MethodGet, "/v1/admin/watches?state=pending", "")
		require.Equal(t, http.StatusOK, status)
		require.Len(t, all["items"], 1)
		status, got = do(root, http.MethodPost, "/v1/admin/watches/"+pending["id"].(string)+"/approve", "")
		require.Equal(t, http.StatusOK, status, got)
		require.Equal(t, "active", got["state"])

		status, _ = do(alice, http.MethodDelete, "/v1/watches/"+id, "")
		require.Equal(t, http.StatusNoContent, status)
		status, p = do(alice, http.MethodGet, "/v1/watches/"+id, "")
		require.Equal(t, http.StatusNotFound, status)
		require.Contains(t, p["detail"], "no watch")
	})
}
