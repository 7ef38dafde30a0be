package httpapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/httpapi"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// POST /v1/collections/{id}/push queues an upload to the tenant's default
// destination (or the one named), 202 with the push; GET /v1/pushes/{id}
// follows it to its end; a destination the tenant may not use is 404, a
// body with unknown fields 400.
func TestPushRoutes(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("rclone"); err != nil {
		t.Skip("rclone is not installed; pushes need it")
	}
	testcore.Each(t, testcore.Options{MasterKey: "test-master-key-0123456789"}, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		tenant := c.Tenant(t, "alice", nil)
		token, _, err := c.App.CreateToken(ctx, "test", "alice", "laptop", false)
		require.NoError(t, err)
		res, _ := c.Capture(t, tenant, photosPost)
		_, err = c.App.AddDestination(ctx, "test", "local", "local:"+t.TempDir(), []byte("[local]\ntype = local\n"))
		require.NoError(t, err)
		require.NoError(t, c.App.AllowDestination(ctx, "test", "local", "alice", true))
		srv := httptest.NewServer(httpapi.NewHandler(httpapi.Deps{App: c.App, Log: storetest.Logger(t)}))
		t.Cleanup(srv.Close)
		path := "/v1/collections/" + res.CollectionID.String() + "/push"

		status, p := callJSON(t, srv, token, http.MethodPost, path, `{"destination": "elsewhere"}`)
		require.Equal(t, http.StatusNotFound, status, p)
		status, p = callJSON(t, srv, token, http.MethodPost, path, `{"where": "local"}`)
		require.Equal(t, http.StatusBadRequest, status, p)

		status, push := callJSON(t, srv, token, http.MethodPost, path, "")
		require.Equal(t, http.StatusAccepted, status, push)
		require.Equal(t, "local", push["destination"])
		require.Equal(t, "queued", push["state"])
		id := push["id"].(string)
		require.Eventually(t, func() bool {
			status, push = callJSON(t, srv, token, http.MethodGet, "/v1/pushes/"+id, "")
			require.Equal(t, http.StatusOK, status, push)
			return push["state"] == "succeeded"
		}, 60*time.Second, 50*time.Millisecond)
		require.Len(t, push["files"], 3, "the Markdown file and two photos")
	})
}
