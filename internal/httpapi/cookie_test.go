package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/httpapi"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

const photosPost = "https://x.com/archivist_demo/status/2078399740166950912"

// signIn makes a login link for the tenant and redeems it, as a browser
// opening it would, and returns the session key the cookie carries.
func signIn(t *testing.T, a *app.App, tenant string) string {
	t.Helper()
	ctx := context.Background()
	url, _, err := a.CreateLoginLink(ctx, app.ActorCLI, tenant, false, 0)
	require.NoError(t, err)
	key, _, err := a.RedeemLoginLink(ctx, url[strings.LastIndex(url, "/")+1:], app.WebClient{})
	require.NoError(t, err)
	return key
}

type reply struct {
	status int
	header http.Header
	body   []byte
}

func call(t *testing.T, srv *httptest.Server, method, path, cookie string, headers ...string) reply {
	t.Helper()
	var body io.Reader
	if method == http.MethodPost {
		body = strings.NewReader(`{"url": "` + photosPost + `"}`)
	}
	req, err := http.NewRequest(method, srv.URL+path, body)
	require.NoError(t, err)
	if cookie != "" {
		req.AddCookie(&http.Cookie{Name: httpapi.SessionCookie, Value: cookie})
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return reply{resp.StatusCode, resp.Header, b}
}

func TestCookieSessionsReadButNeverWrite(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{}, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		alice := c.Tenant(t, "alice", nil)
		c.Tenant(t, "bob", nil)
		res, v := c.Capture(t, alice, photosPost)
		require.Equal(t, app.StateComplete, v.State)
		coll, err := c.App.Collection(ctx, alice, res.CollectionID)
		require.NoError(t, err)
		require.NotEmpty(t, coll.Media)
		media := "/v1/media/" + coll.Media[0].SHA256

		srv := httptest.NewServer(httpapi.NewHandler(httpapi.Deps{App: c.App, Admin: c.App, Log: storetest.Logger(t)}))
		t.Cleanup(srv.Close)
		aliceKey, bobKey := signIn(t, c.App, "alice"), signIn(t, c.App, "bob")

		whole := call(t, srv, "GET", media, aliceKey)
		require.Equal(t, http.StatusOK, whole.status, string(whole.body))
		require.Equal(t, coll.Media[0].Size, int64(len(whole.body)))
		part := call(t, srv, "GET", media, aliceKey, "Range", "bytes=10-19")
		require.Equal(t, http.StatusPartialContent, part.status)
		require.Equal(t, whole.body[10:20], part.body)
		require.Equal(t, fmt.Sprintf("bytes 10-19/%d", len(whole.body)), part.header.Get("Content-Range"))
		head := call(t, srv, "HEAD", media, aliceKey)
		require.Equal(t, http.StatusOK, head.status)

		got := call(t, srv, "GET", "/v1/captures/"+res.CaptureID.String(), aliceKey)
		require.Equal(t, http.StatusOK, got.status, string(got.body))
		require.Contains(t, string(got.body), `"state":"complete"`)

		// A cookie alone never writes.
		post := call(t, srv, "POST", "/v1/captures", aliceKey, "Content-Type", "application/json")
		require.Equal(t, http.StatusUnauthorized, post.status, string(post.body))
		del := call(t, srv, "DELETE", "/v1/collections/"+res.CollectionID.String(), aliceKey)
		require.Equal(t, http.StatusUnauthorized, del.status)
		_, err = c.App.Collection(ctx, alice, res.CollectionID)
		require.NoError(t, err, "the refused delete changed nothing")

		// Bob's session sees only what bob saved; a public post alice saved is
		// not his.
		require.Equal(t, http.StatusNotFound, call(t, srv, "GET", media, bobKey).status)
		require.Equal(t, http.StatusNotFound, call(t, srv, "GET", "/v1/collections/"+res.CollectionID.String(), bobKey).status)

		// A cookie session is no admin of the REST API, and a wrong or ended
		// cookie is no session.
		admin := call(t, srv, "GET", "/v1/admin/tenants", aliceKey)
		require.Contains(t, []int{http.StatusForbidden, http.StatusNotFound}, admin.status, string(admin.body))
		require.Equal(t, http.StatusUnauthorized, call(t, srv, "GET", media, "not-a-session").status)
		require.NoError(t, c.App.EndWebSession(ctx, aliceKey))
		require.Equal(t, http.StatusUnauthorized, call(t, srv, "GET", media, aliceKey).status)
		require.Equal(t, http.StatusUnauthorized, call(t, srv, "GET", media, "").status)
	})
}
