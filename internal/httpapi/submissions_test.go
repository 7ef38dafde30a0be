package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/httpapi"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// pagesLimits make pages of 30 posts (production's are 100), so that two
// pages need few captures, and let a tenant run 8 captures at once.
func pagesLimits() app.Limits {
	l := testcore.TestLimits()
	l.TenantCaptures = 8
	l.PageSize = 30
	return l
}

// A profile over REST: 202 with the submission, its progress while the
// posts are archived, more, stop, the profile's members; bad limits are
// 400 problems.
func TestSubmissionRoutes(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{Limits: pagesLimits()}, func(t *testing.T, c *testcore.Core) {
		tl := c.FX.AddTextTimeline("rest_timeline", "4400000000000000002", 39, 10)
		srv, alice, bob := twoTenants(t, c)
		do := func(token, method, path, body string) (int, map[string]any) {
			t.Helper()
			return callJSON(t, srv, token, method, path, body)
		}
		wait := func(id string) map[string]any {
			t.Helper()
			deadline := time.Now().Add(2 * testcore.WaitTimeout)
			for {
				status, v := do(alice, "GET", "/v1/submissions/"+id, "")
				require.Equal(t, http.StatusOK, status, v)
				if testcore.Ended(v["state"].(string)) {
					return v
				}
				require.True(t, time.Now().Before(deadline), "submission did not end: %v", v)
				time.Sleep(20 * time.Millisecond)
			}
		}

		status, sub := do(alice, "POST", "/v1/captures", `{"url": "`+tl.ProfileURL+`"}`)
		require.Equal(t, http.StatusAccepted, status, sub)
		id := sub["submission_id"].(string)
		v := wait(id)
		require.Equal(t, "profile", v["kind"])
		require.Equal(t, "complete", v["state"])
		require.Equal(t, map[string]any{"total": 30.0, "queued": 0.0, "complete": 30.0, "partial": 0.0, "failed": 0.0}, v["progress"])
		require.Equal(t, true, v["has_more"])
		require.Equal(t, false, v["stopped"])
		require.NotContains(t, v, "next_submission")

		// Members of the profile, in pages.
		status, page := do(alice, "GET", "/v1/collections/"+v["collection_id"].(string)+"/members?limit=20", "")
		require.Equal(t, http.StatusOK, status, page)
		require.Len(t, page["items"], 20)
		require.NotEmpty(t, page["next_cursor"])
		status, page = do(alice, "GET", "/v1/collections/"+v["collection_id"].(string)+"/members?limit=20&cursor="+page["next_cursor"].(string), "")
		require.Equal(t, http.StatusOK, status, page)
		require.Len(t, page["items"], 10)
		require.Equal(t, "", page["next_cursor"])

		// More, twice: one page.
		status, more := do(alice, "POST", "/v1/submissions/"+id+"/more", "")
		require.Equal(t, http.StatusAccepted, status, more)
		status, again := do(alice, "POST", "/v1/submissions/"+id+"/more", "")
		require.Equal(t, http.StatusAccepted, status, again)
		require.Equal(t, more["submission_id"], again["submission_id"])
		next := wait(more["submission_id"].(string))
		require.Equal(t, 9.0, next["progress"].(map[string]any)["total"])
		require.Equal(t, false, next["has_more"])
		status, prob := do(alice, "POST", "/v1/submissions/"+more["submission_id"].(string)+"/more", "")
		require.Equal(t, http.StatusConflict, status, prob)
		require.Contains(t, prob["detail"], "archived to its end")
		v = wait(id)
		require.Equal(t, more["submission_id"], v["next_submission"])

		// Stop answers the stopped submission.
		status, stopped := do(alice, "POST", "/v1/submissions/"+id+"/stop", "")
		require.Equal(t, http.StatusOK, status, stopped)
		require.Equal(t, true, stopped["stopped"])

		// Bob sees none of it.
		for _, path := range []string{"/v1/submissions/" + id, "/v1/collections/" + v["collection_id"].(string) + "/members"} {
			status, prob := do(bob, "GET", path, "")
			require.Equal(t, http.StatusNotFound, status, path)
			require.Equal(t, "urn:monitor:problem:not-found", prob["type"])
		}
		status, _ = do(bob, "POST", "/v1/submissions/"+id+"/stop", "")
		require.Equal(t, http.StatusNotFound, status)

		// Bad input.
		for body, detail := range map[string]string{
			`{"url": "` + tl.ProfileURL + `", "limit": 0}`:                 "positive number",
			`{"url": "` + tl.ProfileURL + `", "limit": 5000}`:              "largest batch",
			`{"url": "` + tl.Posts[0] + `", "limit": 10}`:                  "single post",
			`{"url": "` + tl.ProfileURL + `", "expand": "everything"}`:     "expand must be",
			`{"url": "` + tl.ProfileURL + `", "expand": "thread"}`:         "is for a post",
			`{"url": "` + tl.ProfileURL + `", "limit": "many"}`:            "limit",
			`{"url": "` + tl.ProfileURL + `", "limit": 10, "extra": true}`: "extra",
		} {
			status, prob := do(alice, "POST", "/v1/captures", body)
			require.Equal(t, http.StatusBadRequest, status, body)
			require.Contains(t, prob["detail"], detail, body)
		}
		status, prob = do(alice, "GET", "/v1/submissions/not-an-id", "")
		require.Equal(t, http.StatusNotFound, status, prob)
		require.Contains(t, prob["detail"], `no submission with id "not-an-id"`)
	})
}

// callJSON sends method path with body (JSON, none when "") and the bearer
// token to srv and returns the status and the decoded JSON object (nil
// for an empty body).
// twoTenants makes the tenants alice and bob with a token each, and serves
// REST over c.
func twoTenants(t *testing.T, c *testcore.Core) (srv *httptest.Server, alice, bob string) {
	t.Helper()
	ctx := context.Background()
	c.Tenant(t, "alice", nil)
	c.Tenant(t, "bob", nil)
	alice, _, err := c.App.CreateToken(ctx, "test", "alice", "laptop", false)
	require.NoError(t, err)
	bob, _, err = c.App.CreateToken(ctx, "test", "bob", "laptop", false)
	require.NoError(t, err)
	srv = httptest.NewServer(httpapi.NewHandler(httpapi.Deps{App: c.App, Log: storetest.Logger(t)}))
	t.Cleanup(srv.Close)
	return srv, alice, bob
}

func callJSON(t *testing.T, srv *httptest.Server, token, method, path, body string) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, srv.URL+path, rd)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	var v map[string]any
	if len(b) > 0 {
		require.NoError(t, json.Unmarshal(b, &v), string(b))
	}
	return res.StatusCode, v
}
