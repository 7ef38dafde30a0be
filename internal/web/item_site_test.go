package web_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/httpapi"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
	"github.com/monitorhq/monitor/internal/web"
)

// itemSite serves a test core as the one server serves it (runtime's
// front door): REST under /v1, which reads the session cookie for GET
// /v1/media, and the web library for the rest, signed in with a real
// login link's session cookie.
type itemSite struct {
	core *testcore.Core
	srv  *httptest.Server
	// h is what srv serves, for calls without the network (benchmarks).
	h      http.Handler
	tenant uuid.UUID
	// key is the session cookie's value.
	key string
}

func newItemSite(t testing.TB, c *testcore.Core, tenantName string) *itemSite {
	t.Helper()
	ctx := context.Background()
	s := &itemSite{core: c, tenant: c.Tenant(t, tenantName, nil)}
	r, err := web.New()
	require.NoError(t, err)
	pages, err := web.NewHandler(web.Deps{App: c.App, Renderer: r, Log: discardLog()})
	require.NoError(t, err)
	api := httpapi.NewHandler(httpapi.Deps{App: c.App, Log: discardLog()})
	s.h = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if strings.HasPrefix(req.URL.Path, "/v1/") {
			api.ServeHTTP(w, req)
			return
		}
		pages.ServeHTTP(w, req)
	})
	s.srv = httptest.NewServer(s.h)
	t.Cleanup(s.srv.Close)
	c.App.SetHTTPAddr(strings.TrimPrefix(s.srv.URL, "http://"))
	link, _, err := c.App.CreateLoginLink(ctx, "test", tenantName, false, time.Hour)
	require.NoError(t, err)
	s.key, _, err = c.App.RedeemLoginLink(ctx, path.Base(link), app.WebClient{IP: "127.0.0.1", UserAgent: "test"})
	require.NoError(t, err)
	return s
}

// loginLink makes a fresh one-use sign-in link for the site's tenant.
func (s *itemSite) loginLink(t testing.TB) string {
	t.Helper()
	link, _, err := s.core.App.LoginLinkURL(context.Background(), s.tenant, time.Hour)
	require.NoError(t, err)
	return link
}

// get fetches a page as the signed-in person.
func (s *itemSite) get(t testing.TB, p, lang string) (int, *goquery.Document) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.srv.URL+p, nil)
	require.NoError(t, err)
	req.AddCookie(&http.Cookie{Name: httpapi.SessionCookie, Value: s.key})
	if lang != "" {
		req.Header.Set("Accept-Language", lang)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	doc, err := goquery.NewDocumentFromReader(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, doc
}

// save captures a link for the site's tenant and returns its collection.
func (s *itemSite) save(t testing.TB, url string) uuid.UUID {
	t.Helper()
	res, cv := s.core.Capture(t, s.tenant, url)
	require.Equal(t, app.StateComplete, cv.State, "capture of %s", url)
	return res.CollectionID
}

func words(sel *goquery.Selection) string { return strings.Join(strings.Fields(sel.Text()), " ") }

func discardLog() *slog.Logger { return slog.New(slog.DiscardHandler) }
