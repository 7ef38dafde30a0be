package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/demo"
	"github.com/monitorhq/monitor/internal/httpapi"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// GET /v1/search answers the tenant's matches with snippets and pages;
// a bad query is a 400 problem naming the character where it went wrong.
func TestSearchRoute(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{NoAdapters: true}, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		alice := c.Tenant(t, "alice", nil)
		c.Tenant(t, "bob", nil)
		_, err := demo.Import(ctx, c.App, alice)
		require.NoError(t, err)
		srv := httptest.NewServer(httpapi.NewHandler(httpapi.Deps{App: c.App, Admin: c.App, Log: storetest.Logger(t)}))
		t.Cleanup(srv.Close)
		aliceKey, bobKey := signIn(t, c.App, "alice"), signIn(t, c.App, "bob")

		type page struct {
			Items []struct {
				ID       string `json:"id"`
				Text     string `json:"text"`
				Summary  string `json:"summary"`
				Platform string `json:"platform"`
				Snippet  string `json:"snippet"`
				SavedAt  string `json:"saved_at"`
				Media    []any  `json:"media"`
			} `json:"items"`
			NextCursor *string `json:"next_cursor"`
		}
		get := func(key, q string, extra ...string) (reply, page) {
			v := url.Values{"q": {q}}
			for i := 0; i+1 < len(extra); i += 2 {
				v.Set(extra[i], extra[i+1])
			}
			r := call(t, srv, "GET", "/v1/search?"+v.Encode(), key)
			var p page
			if r.status == http.StatusOK {
				require.NoError(t, json.Unmarshal(r.body, &p), string(r.body))
			}
			return r, p
		}

		r, p := get(aliceKey, "满潮")
		require.Equal(t, http.StatusOK, r.status, string(r.body))
		require.Len(t, p.Items, 1)
		require.Equal(t, "今晚«满潮» 21:45，潮高 4.2 米。港口东侧的步道可能被淹，请绕行。 明早低潮 04:10。", p.Items[0].Snippet)
		require.Equal(t, "telegram", p.Items[0].Platform)
		require.NotNil(t, p.NextCursor)
		require.Empty(t, *p.NextCursor)

		// The media markers of summaries follow Accept-Language, as in GET /v1/collections.
		r, p = get(aliceKey, "has:video")
		require.Equal(t, http.StatusOK, r.status)
		require.Len(t, p.Items, 1)
		require.True(t, strings.HasSuffix(p.Items[0].Summary, "[视频]"), p.Items[0].Summary)
		require.NotEmpty(t, p.Items[0].Media)

		// Pages: limit and cursor.
		var seen []string
		cursor := ""
		for {
			r, p = get(aliceKey, "harbour OR tide", "limit", "2", "cursor", cursor)
			require.Equal(t, http.StatusOK, r.status, string(r.body))
			require.LessOrEqual(t, len(p.Items), 2)
			for _, it := range p.Items {
				require.NotContains(t, seen, it.ID)
				seen = append(seen, it.ID)
			}
			if *p.NextCursor == "" {
				break
			}
			cursor = *p.NextCursor
		}
		_, whole := get(aliceKey, "harbour OR tide", "limit", "100")
		require.Len(t, seen, len(whole.Items))
		require.Greater(t, len(seen), 4)
		r, rel := get(aliceKey, "harbour OR fog", "sort", "relevance")
		require.Equal(t, http.StatusOK, r.status)
		require.Contains(t, rel.Items[0].Text, "fog over the harbour")

		// Another tenant sees none of it.
		r, p = get(bobKey, "")
		require.Equal(t, http.StatusOK, r.status)
		require.Empty(t, p.Items)
		require.Equal(t, `{"items":[],"next_cursor":""}`, strings.TrimSpace(string(r.body)))

		// Bad queries: 400 naming the position, the parser's own words.
		for _, q := range []string{`tide "unclosed`, `from:`, `after:2026-13-01`, strings.Repeat("潮", 2000), "a OR", "(tide"} {
			_, perr := app.ParseQuery(q, time.Now())
			require.Error(t, perr, q)
			r, _ := get(aliceKey, q)
			require.Equal(t, http.StatusBadRequest, r.status, q)
			require.Equal(t, "application/problem+json", r.header.Get("Content-Type"))
			var prob struct {
				Type, Detail string
				Status       int
			}
			require.NoError(t, json.Unmarshal(r.body, &prob))
			require.Equal(t, 400, prob.Status)
			require.Contains(t, prob.Detail, "at character ", q)
			require.Contains(t, prob.Detail, perr.Error(), q)
		}
		for _, bad := range [][]string{{"sort", "best"}, {"limit", "0"}, {"limit", "101"}, {"cursor", "bm9wZQ"}} {
			r, _ := get(aliceKey, "tide", bad...)
			require.Equal(t, http.StatusBadRequest, r.status, "%v: %s", bad, r.body)
		}

		// A token or session is needed.
		r = call(t, srv, "GET", "/v1/search?q=tide", "")
		require.Equal(t, http.StatusUnauthorized, r.status)
	})
}
