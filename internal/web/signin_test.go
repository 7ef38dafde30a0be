package web_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/testkit/testcore"
	"github.com/monitorhq/monitor/internal/web"
)

// signinServer is the web library of a fresh core, served over HTTP.
func signinServer(t *testing.T, c *testcore.Core) *httptest.Server {
	t.Helper()
	h, err := web.NewHandler(web.Deps{App: c.App})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// linkPath turns a printed sign-in URL into its path on srv.
func linkPath(t *testing.T, link string) string {
	t.Helper()
	u, err := url.Parse(link)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(u.Path, "/login/"), link)
	return u.Path
}

func noRedirects(jar http.CookieJar) *http.Client {
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func get(t *testing.T, cl *http.Client, u string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	require.NoError(t, err)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := cl.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(body)
}

func TestLoginLinkSignsInOnce(t *testing.T) {
	testcore.Each(t, testcore.Options{NoAdapters: true}, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		c.Tenant(t, "alice", nil)
		srv := signinServer(t, c)
		link, _, err := c.App.CreateLoginLink(ctx, "test", "alice", false, 0)
		require.NoError(t, err)
		path := linkPath(t, link)

		jar, _ := cookiejar.New(nil)
		cl := noRedirects(jar)
		resp, _ := get(t, cl, srv.URL+path)
		require.Equal(t, http.StatusSeeOther, resp.StatusCode)
		require.Equal(t, "/", resp.Header.Get("Location"))
		var cookie *http.Cookie
		for _, ck := range resp.Cookies() {
			if ck.Name == web.SessionCookie {
				cookie = ck
			}
		}
		require.NotNil(t, cookie, "the session cookie is set")
		require.True(t, cookie.HttpOnly)
		require.Equal(t, http.SameSiteLaxMode, cookie.SameSite)
		require.False(t, cookie.Secure, "plain http: no Secure flag")
		require.WithinDuration(t, time.Now().Add(30*24*time.Hour), cookie.Expires, time.Hour)

		// The same link again, in another browser: refused, and the page says so.
		other := noRedirects(nil)
		resp, body := get(t, other, srv.URL+path)
		require.Equal(t, http.StatusGone, resp.StatusCode)
		require.Contains(t, body, "This sign-in link was already used")
		resp, body = get(t, other, srv.URL+path, "Accept-Language", "zh-CN,zh;q=0.9")
		require.Equal(t, http.StatusGone, resp.StatusCode)
		require.Contains(t, body, "此登录链接已被使用")
		require.Contains(t, body, `<html lang="zh-CN"`)

		// A link nobody made.
		resp, body = get(t, other, srv.URL+"/login/"+strings.Repeat("A", 43))
		require.Equal(t, http.StatusNotFound, resp.StatusCode)
		require.Contains(t, body, "This sign-in link is not valid")

		// The signed-in browser is not sent to the sign-in page.
		resp, _ = get(t, cl, srv.URL+"/login")
		require.Equal(t, http.StatusSeeOther, resp.StatusCode)
		require.Equal(t, "/", resp.Header.Get("Location"))
	})
}

func TestExpiredLoginLinkIsRefused(t *testing.T) {
	testcore.Each(t, testcore.Options{NoAdapters: true}, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		c.Tenant(t, "alice", nil)
		srv := signinServer(t, c)
		link, _, err := c.App.CreateLoginLink(ctx, "test", "alice", false, 15*time.Minute)
		require.NoError(t, err)
		c.Clock.Advance(16 * time.Minute)
		resp, body := get(t, noRedirects(nil), srv.URL+linkPath(t, link))
		require.Equal(t, http.StatusGone, resp.StatusCode)
		require.Contains(t, body, "This sign-in link has expired")
		require.Empty(t, resp.Cookies())
	})
}

func TestLogoutNeedsTheFormTokenAndThisSite(t *testing.T) {
	c := testcore.New(t, testcore.Options{NoAdapters: true})
	ctx := context.Background()
	c.Tenant(t, "alice", nil)
	srv := signinServer(t, c)
	link, _, err := c.App.CreateLoginLink(ctx, "test", "alice", false, 0)
	require.NoError(t, err)
	jar, _ := cookiejar.New(nil)
	cl := noRedirects(jar)
	resp, _ := get(t, cl, srv.URL+linkPath(t, link))
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	u, _ := url.Parse(srv.URL)
	key := jar.Cookies(u)[0].Value
	sess, err := c.App.WebSession(ctx, key)
	require.NoError(t, err)

	post := func(form url.Values, origin string) *http.Response {
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/logout", strings.NewReader(form.Encode()))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := cl.Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		return resp
	}
	require.Equal(t, http.StatusForbidden, post(url.Values{}, srv.URL).StatusCode, "no CSRF token")
	require.Equal(t, http.StatusForbidden, post(url.Values{"csrf": {"wrong"}}, srv.URL).StatusCode, "a wrong token")
	require.Equal(t, http.StatusForbidden, post(url.Values{"csrf": {sess.CSRF}}, "https://evil.example").StatusCode, "a foreign Origin")
	_, err = c.App.WebSession(ctx, key)
	require.NoError(t, err, "refused writes changed nothing")

	resp = post(url.Values{"csrf": {sess.CSRF}}, srv.URL)
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(t, "/login", resp.Header.Get("Location"))
	_, err = c.App.WebSession(ctx, key)
	require.Error(t, err, "the session ended")
}

func TestUnknownPagesAndStrictHeaders(t *testing.T) {
	c := testcore.New(t, testcore.Options{NoAdapters: true})
	srv := signinServer(t, c)
	resp, body := get(t, noRedirects(nil), srv.URL+"/no/such/page", "Accept-Language", "zh-CN")
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.Contains(t, resp.Header.Get("Content-Type"), "text/html")
	require.Contains(t, body, "未找到")
	csp := resp.Header.Get("Content-Security-Policy")
	require.Contains(t, csp, "default-src 'none'")
	require.Contains(t, csp, "script-src 'self'")
	require.NotContains(t, csp, "unsafe-inline")
	require.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"))

	resp, _ = get(t, noRedirects(nil), srv.URL+"/sessions")
	if resp.StatusCode != http.StatusNotFound { // the page exists once the sessions page lands
		require.Equal(t, http.StatusSeeOther, resp.StatusCode, "signed-out people are sent to sign in")
		require.Equal(t, "/login", resp.Header.Get("Location"))
	}
}
