package runtime_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
)

// TestLoginLinkNamesTheBoundAddress serves on a free port (MONITOR_HTTP_ADDR
// port 0): sign-in links name the port actually bound, and the session
// they start reads the REST API with its cookie.
func TestLoginLinkNamesTheBoundAddress(t *testing.T) {
	t.Parallel()
	rc := newRESTCore(t)
	ctx := context.Background()
	rc.tenant(t, "alice", nil)
	url, _, err := rc.core.App().CreateLoginLink(ctx, app.ActorCLI, "alice", false, 0)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(url, rc.base+"/login/"), "%s is on %s", url, rc.base)

	key, _, err := rc.core.App().RedeemLoginLink(ctx, url[strings.LastIndex(url, "/")+1:], app.WebClient{})
	require.NoError(t, err)
	req, err := http.NewRequest("GET", rc.base+"/v1/usage", nil)
	require.NoError(t, err)
	req.AddCookie(&http.Cookie{Name: "monitor_session", Value: key})
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
}
