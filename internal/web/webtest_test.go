package web_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/testkit/testcore"
	"github.com/monitorhq/monitor/internal/web"
)

// gonePost is a post the fake FxTwitter answers 404 for (the other
// fixture posts are named in item_test.go).
const gonePost = "https://x.com/archivist_demo/status/1000000000000000001"

// site is one tenant's signed-in view of the web library on a real core.
type site struct {
	t      testing.TB
	core   *testcore.Core
	tenant uuid.UUID
	csrf   string
	srv    *httptest.Server
	client *http.Client
}

// newSite serves the web library as tenant name's session on core.
func newSite(t testing.TB, core *testcore.Core, name string, quota *int64) *site {
	t.Helper()
	s := &site{t: t, core: core, tenant: core.Tenant(t, name, quota), csrf: "csrf-" + name}
	h, err := web.HandlerAs(web.Deps{App: core.App}, s.tenant, &web.Session{TenantName: name, CSRF: s.csrf})
	require.NoError(t, err)
	s.srv = httptest.NewServer(h)
	t.Cleanup(s.srv.Close)
	jar, _ := cookiejar.New(nil)
	s.client = &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return s
}

// page is one answer of the site.
type page struct {
	Status   int
	Body     string
	Location string
	Header   http.Header
}

func (s *site) do(method, path string, form url.Values, header ...string) page {
	s.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, s.srv.URL+path, body)
	require.NoError(s.t, err)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := s.client.Do(req)
	require.NoError(s.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(s.t, err)
	return page{Status: resp.StatusCode, Body: string(b), Location: resp.Header.Get("Location"), Header: resp.Header}
}

func (s *site) get(path string, header ...string) page {
	s.t.Helper()
	return s.do(http.MethodGet, path, nil, header...)
}

// post sends a form with the session's CSRF token.
func (s *site) post(path string, form url.Values, header ...string) page {
	s.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	form.Set("csrf", s.csrf)
	return s.do(http.MethodPost, path, form, header...)
}

// capture archives a link through the capture form and waits for it to end.
func (s *site) capture(link string) (captureID string) {
	s.t.Helper()
	p := s.post("/captures", url.Values{"url": {link}})
	require.Equal(s.t, http.StatusSeeOther, p.Status, p.Body)
	require.True(s.t, strings.HasPrefix(p.Location, "/captures/"), p.Location)
	id := strings.TrimPrefix(p.Location, "/captures/")
	s.core.WaitCapture(s.t, s.tenant, uuid.MustParse(id))
	return id
}
